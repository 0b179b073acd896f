/** Migration 4: scheduled tasks (design.md "Scheduler"): one row per task with its due time, so a restart resumes. */
import type { Migration } from './migration.js'

export const m004: Migration = {
  version: 4,
  name: 'tasks',
  sql: `
    CREATE TABLE tasks (
      key      TEXT PRIMARY KEY,
      kind     TEXT NOT NULL,
      ca       TEXT NOT NULL,
      arg      TEXT NOT NULL DEFAULT '',
      due      INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    CREATE INDEX tasks_by_due ON tasks(due);
  `,
}
