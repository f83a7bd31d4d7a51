-- Times are milliseconds since the Unix epoch (UTC). `seq` orders rows for keyset paging.

CREATE TABLE accounts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    callsign TEXT NOT NULL UNIQUE,
    plan TEXT NOT NULL CHECK (plan IN ('free', 'paid')),
    password_hash TEXT,
    native_qso_count INTEGER NOT NULL DEFAULT 0 CHECK (native_qso_count >= 0),
    lifetime_created INTEGER NOT NULL DEFAULT 0,
    -- Contacts created on the UTC day `daily_day` (days since the epoch), for the daily budget.
    daily_day INTEGER NOT NULL DEFAULT 0,
    daily_created INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    tier TEXT NOT NULL CHECK (tier IN ('basic', 'elevated')),
    key_prefix TEXT NOT NULL,
    -- The first 8 bytes of the SHA-256 hash: an index that never compares the whole hash.
    lookup INTEGER NOT NULL,
    key_hash BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    revoked_reason TEXT
);
CREATE INDEX api_keys_lookup ON api_keys (lookup);
CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE INDEX api_keys_prefix ON api_keys (key_prefix);

-- Burst window and last use per key.
CREATE TABLE key_usage (
    key_id TEXT PRIMARY KEY REFERENCES api_keys (id),
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    last_used_at INTEGER NOT NULL
);

CREATE TABLE folders (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    parent_id TEXT REFERENCES folders (id),
    type TEXT NOT NULL CHECK (type IN ('activation', 'category', 'monthly')),
    name TEXT NOT NULL,
    program_id TEXT,
    month TEXT,
    start_time INTEGER,
    end_time INTEGER,
    location_reference TEXT,
    location_name TEXT,
    callsign TEXT,
    auto_folder_key TEXT,
    -- What makes two find-or-create requests ask for the same folder; NULL for categories.
    identity_key TEXT,
    contact_count INTEGER NOT NULL DEFAULT 0 CHECK (contact_count >= 0),
    created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX folders_identity ON folders (account_id, identity_key);
CREATE INDEX folders_account ON folders (account_id, seq);
CREATE INDEX folders_activations ON folders (account_id, start_time DESC, seq DESC) WHERE type = 'activation';

CREATE TABLE contacts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    folder_id TEXT NOT NULL REFERENCES folders (id),
    callsign TEXT NOT NULL,
    frequency REAL NOT NULL,
    band TEXT NOT NULL,
    mode TEXT NOT NULL,
    time_on INTEGER NOT NULL,
    rst_sent TEXT,
    rst_received TEXT,
    name TEXT,
    notes TEXT,
    sig TEXT,
    sig_info TEXT,
    my_sig TEXT,
    my_sig_info TEXT,
    activation_id TEXT,
    station_callsign TEXT,
    dupe_key TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX contacts_page ON contacts (folder_id, time_on DESC, seq DESC);
CREATE INDEX contacts_dupes ON contacts (folder_id, dupe_key) WHERE dupe_key IS NOT NULL;

CREATE TABLE idempotency (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    key TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    response TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, key)
);
