/**
 * Migration 5: RFC 8181 replay protection kept across restarts (pubd/replay.ts): per publisher, the signing time of
 * the newest message seen and the digests of the changing messages seen at that time (a JSON array of hex strings).
 */
import type { Migration } from './migration.js'

export const m005: Migration = {
  version: 5,
  name: 'pubd-replay',
  sql: `
    CREATE TABLE pubd_replay (
      publisher    TEXT PRIMARY KEY REFERENCES pubd_publishers(handle) ON DELETE CASCADE,
      signing_time TEXT NOT NULL,
      digests      TEXT NOT NULL
    ) STRICT;
  `,
}
