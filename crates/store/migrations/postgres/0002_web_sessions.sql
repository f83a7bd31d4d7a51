-- The schema of migrations/sqlite/0002_web_sessions.sql in PostgreSQL's types.
-- The web pages: sign-in sessions, failed sign-in counters, and single-use key forms.
-- Times are milliseconds since the Unix epoch (UTC).

-- Only the SHA-256 hash of a session id is stored: the id itself lives in the browser's cookie,
-- so a copy of the database cannot sign anyone in.
CREATE TABLE web_sessions (
    token_hash BYTEA PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX web_sessions_account ON web_sessions (account_id);
CREATE INDEX web_sessions_last_seen ON web_sessions (last_seen_at);

-- Sign-in attempts per scope (a callsign, or a client address) in a fixed window that starts
-- with the first attempt; a successful attempt is taken back off.
CREATE TABLE signin_attempts (
    scope TEXT PRIMARY KEY,
    window_start BIGINT NOT NULL,
    failures BIGINT NOT NULL
);

-- The one-time token of the form that made a key: a second post of the same form (a reload or
-- the back button) finds it taken and shows no key.
ALTER TABLE api_keys ADD COLUMN form_token TEXT;
CREATE UNIQUE INDEX api_keys_form_token ON api_keys (account_id, form_token);
