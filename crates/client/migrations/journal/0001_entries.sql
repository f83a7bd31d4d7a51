-- The outbox journal as its first version wrote it: what was logged here (entries), the
-- folders logged with no link, and the copy of the account for starting with no link.
CREATE TABLE entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('contact', 'activation', 'monthly')),
    body TEXT NOT NULL,
    folder_id TEXT,
    local_folder_id TEXT,
    idempotency_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'sent', 'refused')),
    logged_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until INTEGER,
    not_before INTEGER,
    sent_id TEXT,
    sent_at INTEGER,
    error TEXT
);
CREATE INDEX entries_by_state ON entries (state, seq);
CREATE INDEX entries_by_folder ON entries (folder_id);
-- A folder logged with no link: the loc_ id contacts use until its entry is sent, then the
-- real folder, so a loc_ id still held by the logbook keeps working.
CREATE TABLE local_folders (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL,
    identity TEXT NOT NULL UNIQUE,
    folder TEXT NOT NULL,
    real_id TEXT
);
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cached_folders (
    list TEXT NOT NULL,
    position INTEGER NOT NULL,
    id TEXT NOT NULL,
    folder TEXT NOT NULL,
    PRIMARY KEY (list, id)
);
CREATE TABLE cached_contacts (
    folder_id TEXT NOT NULL,
    id TEXT NOT NULL,
    time_on INTEGER NOT NULL,
    contact TEXT NOT NULL,
    PRIMARY KEY (folder_id, id)
);
CREATE INDEX cached_contacts_by_time ON cached_contacts (folder_id, time_on);
