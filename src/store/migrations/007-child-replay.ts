/**
 * Migration 7: RFC 6492 replay protection kept in the database (issue 22, defect 3), as migration 5 keeps RFC 8181's:
 * per (CA, child), the signing time of the newest message seen and the digests of the changing messages seen at
 * that time (a JSON array of hex strings; protocol/replay.ts). Every instance on one database reads the same state.
 */
import type { Migration } from './migration.js'

export const m007: Migration = {
  version: 7,
  name: 'child-replay',
  sql: `
    CREATE TABLE ca_child_replay (
      handle       TEXT NOT NULL,
      child        TEXT NOT NULL,
      signing_time TEXT NOT NULL,
      digests      TEXT NOT NULL,
      PRIMARY KEY (handle, child)
    ) STRICT;
  `,
}
