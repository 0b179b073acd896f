/**
 * Migration 9 (issue 24, design.md §9): login sessions, scoped API tokens and the audit trail. Secrets are never
 * stored: a session or token is kept under the SHA-256 of its secret. Times are milliseconds since the epoch.
 */

// Typed where it is listed (index.ts): importing the Migration type here would close an import cycle.
export const m009 = {
  version: 9,
  name: 'access',
  sql: `
    -- A login (config-file user, OpenID Connect user, or the admin token through the console): valid until idle too
    -- long, past its end, or revoked; every instance reads the same rows, so a logout is seen everywhere at once.
    CREATE TABLE auth_sessions (
      id        TEXT PRIMARY KEY,          -- hex SHA-256 of the session secret
      user_id   TEXT NOT NULL,
      provider  TEXT NOT NULL,
      role      TEXT NOT NULL,             -- the role's name, looked up in the configuration on each use
      created   INTEGER NOT NULL,
      last_seen INTEGER NOT NULL,
      expires   INTEGER NOT NULL,          -- the absolute end
      revoked   INTEGER,                   -- when it was revoked (logout), or NULL
      data      TEXT NOT NULL DEFAULT '{}' -- provider data kept for the logout (OpenID Connect: the id token hint)
    );
    CREATE INDEX auth_sessions_by_user ON auth_sessions(user_id, provider);
    CREATE INDEX auth_sessions_by_expiry ON auth_sessions(expires);

    -- An OpenID Connect login under way (the authorization request sent, the callback not yet back): the PKCE
    -- verifier and nonce, under the SHA-256 of the state; any instance may receive the callback.
    CREATE TABLE auth_logins (
      id       TEXT PRIMARY KEY,          -- hex SHA-256 of the state parameter
      verifier TEXT NOT NULL,
      nonce    TEXT NOT NULL,
      created  INTEGER NOT NULL,
      data     TEXT NOT NULL DEFAULT '{}'
    );

    -- A scoped API token: its owner, a role no wider than the owner's, an optional expiry.
    CREATE TABLE api_tokens (
      id             TEXT PRIMARY KEY,     -- the public part of the token (it names the row; not a secret)
      name           TEXT NOT NULL,
      owner          TEXT NOT NULL,
      owner_provider TEXT NOT NULL,
      role           TEXT NOT NULL,        -- JSON {"name", "permissions": [...], "cas": [...] | null}
      secret_hash    TEXT NOT NULL,        -- hex SHA-256 of the secret part
      created        INTEGER NOT NULL,
      expires        INTEGER,
      last_used      INTEGER,
      revoked        INTEGER,
      UNIQUE (owner, name)
    );

    -- Who did what, across CAs and the publication server; never a secret.
    CREATE TABLE audit_log (
      seq      INTEGER PRIMARY KEY AUTOINCREMENT,
      time     INTEGER NOT NULL,
      actor    TEXT NOT NULL,
      provider TEXT NOT NULL,
      token    TEXT,
      kind     TEXT NOT NULL,
      ca       TEXT,
      success  INTEGER NOT NULL,
      source   TEXT,
      details  TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX audit_log_by_time ON audit_log(time);
    CREATE INDEX audit_log_by_actor ON audit_log(actor, seq);
    CREATE INDEX audit_log_by_ca ON audit_log(ca, seq);
  `,
}
