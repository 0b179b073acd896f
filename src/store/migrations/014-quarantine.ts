/**
 * Migration 14 (issue 26 §5): what was set aside because it could not be decoded or run (a task row, a CA whose
 * stored state does not decode, a publication object): the error and the raw row, until an operator drops it.
 */
import type { Migration } from './migration.js'

export const m014: Migration = {
  version: 14,
  name: 'quarantine',
  sql: `
    CREATE TABLE quarantine (
      id      INTEGER PRIMARY KEY AUTOINCREMENT,
      what    TEXT NOT NULL,
      subject TEXT NOT NULL,
      reason  TEXT NOT NULL,
      raw     TEXT NOT NULL DEFAULT '',
      at      INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX quarantine_by_subject ON quarantine(what, subject);
  `,
}
