/**
 * Migration 8 (issue 22): a publisher registered through the testbed self-service is flagged, so that its tighter
 * quota applies (pubd/quota.ts) and the self-service removes only what it registered; an index on (publisher, size)
 * makes the usage the quota rule reads (per publisher, per self-service publishers, in total) an index-only scan.
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m008 = {
  version: 8,
  name: 'pubd-self-service',
  sql: `
    ALTER TABLE pubd_publishers ADD COLUMN self_service INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX pubd_objects_usage ON pubd_objects(publisher, size);
  `,
}
