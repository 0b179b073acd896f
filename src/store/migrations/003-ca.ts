/**
 * Migration 3: CAs. A snapshot of each CA's current state (startup reads snapshots, never replays history), its
 * command history (the audit log behind `svcc history`), its current objects per key (not evented: manifests and
 * CRLs are re-signed as state updates), and exchange status with parents, children and repositories (CA issues).
 */
import type { Migration } from './migration.js'

export const m003: Migration = {
  version: 3,
  name: 'ca',
  sql: `
    CREATE TABLE ca_snapshots (
      handle  TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      state   TEXT NOT NULL
    ) STRICT;

    CREATE TABLE ca_history (
      handle  TEXT NOT NULL,
      seq     INTEGER NOT NULL,
      time    TEXT NOT NULL,
      actor   TEXT NOT NULL,
      kind    TEXT NOT NULL,
      success INTEGER NOT NULL,
      record  TEXT NOT NULL,
      PRIMARY KEY (handle, seq)
    ) STRICT;
    CREATE INDEX ca_history_by_time ON ca_history(handle, time);

    -- Published objects per CA key: name → DER, and per key the manifest/CRL numbers and revocations (JSON).
    CREATE TABLE ca_keys (
      handle TEXT NOT NULL,
      key_id TEXT NOT NULL,
      state  TEXT NOT NULL,
      PRIMARY KEY (handle, key_id)
    ) STRICT;
    CREATE TABLE ca_objects (
      handle    TEXT NOT NULL,
      key_id    TEXT NOT NULL,
      name      TEXT NOT NULL,
      kind      TEXT NOT NULL,
      der       BLOB NOT NULL,
      hash      TEXT NOT NULL,
      not_after TEXT NOT NULL,
      meta      TEXT NOT NULL,
      PRIMARY KEY (handle, key_id, name)
    ) STRICT;

    CREATE TABLE ca_status (
      handle TEXT NOT NULL,
      kind   TEXT NOT NULL,
      name   TEXT NOT NULL,
      status TEXT NOT NULL,
      PRIMARY KEY (handle, kind, name)
    ) STRICT;
  `,
}
