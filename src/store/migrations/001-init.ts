/** Migration 1: server properties (key/value). */
import type { Migration } from './migration.js'

export const m001: Migration = {
  version: 1,
  name: 'init',
  sql: `
    CREATE TABLE properties (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;
  `,
}
