/**
 * Migration 10 (issue 27, design.md §12): change plans. One row per plan: its CA, its status (for the filters and the
 * compare-and-set of each step) and its record as JSON (ca/plans.ts PlanRecord). Times are milliseconds since the epoch.
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m010 = {
  version: 10,
  name: 'plans',
  sql: `
    CREATE TABLE ca_plans (
      id      INTEGER PRIMARY KEY AUTOINCREMENT,
      ca      TEXT NOT NULL,
      status  TEXT NOT NULL,               -- open, approved, applied, rejected, withdrawn
      created INTEGER NOT NULL,
      record  TEXT NOT NULL
    );
    CREATE INDEX ca_plans_by_ca ON ca_plans(ca, id);
  `,
}
