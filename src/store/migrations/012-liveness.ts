/**
 * Migration 12 (issue 26, design.md §11): the liveness service's state, one row per CA (the JSON of StoredLiveness in
 * store/liveness-interfaces.ts), written by the leader after each check. Derived state: not in svcd migrate's or
 * backup's tables (the next check rebuilds it). Times are milliseconds since the epoch.
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m012 = {
  version: 12,
  name: 'liveness',
  sql: `
    CREATE TABLE liveness_state (
      ca         TEXT PRIMARY KEY,
      checked_at INTEGER NOT NULL,
      state      TEXT NOT NULL   -- JSON: StoredLiveness
    );
  `,
}
