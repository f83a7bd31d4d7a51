-- The schema of migrations/sqlite/0004_known_devices.sql in PostgreSQL's types.
-- Browsers that signed in to an account before. A sign-in from one of them is not held back by
-- the failures others caused for the callsign (docs/API.md, "Web pages"). As with sessions, only
-- the SHA-256 hash of the cookie's value is stored.
CREATE TABLE known_devices (
    token_hash BYTEA PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL
);
CREATE INDEX known_devices_created ON known_devices (created_at);
