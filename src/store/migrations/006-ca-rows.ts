/**
 * Migration 6: a CA's children and ROA configurations get a row each (issue 11, item 5). A CA with 1,000 children
 * had a 2 MB snapshot, parsed and rewritten whole on every command; now a command writes the rows it changed. The
 * snapshot keeps the rest of the state, with `children` and `routes` left as empty objects in place (so the state
 * reassembled from the rows has the same key order as before).
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m006 = {
  version: 6,
  name: 'ca-rows',
  sql: `
    -- One row per child of a CA: the ChildInfo JSON (ca/state.ts), keyed by the child's handle.
    CREATE TABLE ca_children (
      handle TEXT NOT NULL,
      child  TEXT NOT NULL,
      info   TEXT NOT NULL,
      PRIMARY KEY (handle, child)
    ) STRICT;

    -- One row per configured ROA of a CA: the RouteConfig JSON (ca/routes.ts), keyed by the route key.
    CREATE TABLE ca_routes (
      handle TEXT NOT NULL,
      route  TEXT NOT NULL,
      config TEXT NOT NULL,
      PRIMARY KEY (handle, route)
    ) STRICT;

    INSERT INTO ca_children (handle, child, info)
      SELECT s.handle, j.key, j.value FROM ca_snapshots s, json_each(s.state, '$.children') j;
    INSERT INTO ca_routes (handle, route, config)
      SELECT s.handle, j.key, j.value FROM ca_snapshots s, json_each(s.state, '$.routes') j;
    UPDATE ca_snapshots SET state = json_set(state, '$.children', json('{}'), '$.routes', json('{}'));

    -- Changes with every write of the snapshot, so a reader's cache of a version is never one a rolled-back
    -- transaction wrote (the version alone repeats after a rollback).
    ALTER TABLE ca_snapshots ADD COLUMN tag TEXT NOT NULL DEFAULT '';
  `,
} as const
