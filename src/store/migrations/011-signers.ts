/**
 * Migration 11 (issue 25, design.md §10): which signer holds which key. `signers` has one row per signer svcd has used,
 * by its handle (stored in the token for PKCS#11, fixed for the software signer), with the name the config gives it
 * now and what the token says of itself; `key_signers` names the signer of every key made since. Keys made before
 * this migration have no row: they are the software signer's. Times are milliseconds since the epoch.
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m011 = {
  version: 11,
  name: 'signers',
  sql: `
    CREATE TABLE signers (
      handle TEXT PRIMARY KEY,
      name   TEXT NOT NULL,
      type   TEXT NOT NULL,                -- OpenSSL, PKCS#11
      info   TEXT NOT NULL DEFAULT '{}',   -- JSON: token label and serial, library path (never the PIN)
      seen   INTEGER NOT NULL
    );
    CREATE TABLE key_signers (
      key_id  TEXT PRIMARY KEY,
      handle  TEXT NOT NULL,
      created INTEGER NOT NULL
    );
    CREATE INDEX key_signers_by_handle ON key_signers(handle);
  `,
}
