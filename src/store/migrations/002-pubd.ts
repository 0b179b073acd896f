/** Migration 2: the publication server: publishers, current objects, changes not yet in RRDP, RRDP state. */
import type { Migration } from './migration.js'

export const m002: Migration = {
  version: 2,
  name: 'pubd',
  sql: `
    CREATE TABLE pubd_publishers (
      handle       TEXT PRIMARY KEY,
      id_cert      BLOB NOT NULL,
      base_uri     TEXT NOT NULL UNIQUE,
      created      TEXT NOT NULL,
      last_publish TEXT
    ) STRICT;

    CREATE TABLE pubd_objects (
      uri       TEXT PRIMARY KEY,
      publisher TEXT NOT NULL REFERENCES pubd_publishers(handle),
      hash      TEXT NOT NULL,
      size      INTEGER NOT NULL,
      content   BLOB NOT NULL
    ) STRICT;
    CREATE INDEX pubd_objects_by_publisher ON pubd_objects(publisher);

    -- One row per URI changed by an accepted message, until the RRDP writer puts it in a serial.
    CREATE TABLE pubd_changes (
      seq      INTEGER PRIMARY KEY AUTOINCREMENT,
      uri      TEXT NOT NULL,
      previous TEXT
    ) STRICT;

    CREATE TABLE rrdp_state (
      id            INTEGER PRIMARY KEY CHECK (id = 1),
      session       TEXT NOT NULL,
      serial        INTEGER NOT NULL,
      snapshot_path TEXT NOT NULL,
      snapshot_hash TEXT NOT NULL,
      snapshot_size INTEGER NOT NULL,
      updated       TEXT NOT NULL
    ) STRICT;

    CREATE TABLE rrdp_deltas (
      serial INTEGER PRIMARY KEY,
      path   TEXT NOT NULL,
      hash   TEXT NOT NULL,
      size   INTEGER NOT NULL,
      time   TEXT NOT NULL
    ) STRICT;
  `,
}
