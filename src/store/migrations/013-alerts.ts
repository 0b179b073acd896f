/**
 * Migration 13 (issue 26, design.md §11): alarms and their webhook deliveries. `alarms` holds every alarm by its key
 * (kind and subject): active while `cleared` is null; a raise after a clear starts the row again. `alert_deliveries`
 * holds each event sent to each webhook with its exact body (retries send the same bytes), until delivered or given up.
 * Times are milliseconds since the epoch. (Migration 12 is the liveness state.)
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m013 = {
  version: 13,
  name: 'alerts',
  sql: `
    CREATE TABLE alarms (
      key     TEXT PRIMARY KEY,
      kind    TEXT NOT NULL,
      subject TEXT NOT NULL,
      ca      TEXT,
      source  TEXT NOT NULL,
      reason  TEXT NOT NULL,
      raised  INTEGER NOT NULL,
      cleared INTEGER
    );
    CREATE TABLE alert_deliveries (
      id        INTEGER PRIMARY KEY AUTOINCREMENT,
      webhook   TEXT NOT NULL,
      event     TEXT NOT NULL,
      alarm_key TEXT,
      body      TEXT NOT NULL,
      status    TEXT NOT NULL,              -- pending, delivered, failed
      attempts  INTEGER NOT NULL DEFAULT 0,
      next_at   INTEGER,
      last_error TEXT,
      created   INTEGER NOT NULL,
      done      INTEGER
    );
    CREATE INDEX alert_deliveries_pending ON alert_deliveries(status, next_at);
  `,
}
