-- no-transaction
-- Club Log as an external logbook beside QRZ (docs/API.md, "External logbooks"): `provider`
-- may be 'clublog', and a Club Log book keeps the email of its Club Log account (`email`;
-- NULL for QRZ, whose key alone opens a book). A Club Log book's `key_sealed` holds its
-- application password, sealed as QRZ's key is; its `key_last4` is empty, since no part of a
-- password is ever shown.
--
-- SQLite cannot change a CHECK constraint in place, so logbooks is rebuilt as 0011 rebuilt
-- accounts: foreign keys off around the transaction (external_copies and external_kept refer
-- to logbooks, and the drop must not cascade to them), and the legacy rename, which does not
-- re-parse the triggers that read logbooks (contacts_push) while the new table takes its name.
-- The index dropped with the old table is made again. The whole rebuild is one transaction.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN;
CREATE TABLE logbooks_rebuilt (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    provider TEXT NOT NULL CHECK (provider IN ('qrz', 'clublog')),
    callsign TEXT NOT NULL,
    key_sealed BLOB NOT NULL,
    key_last4 TEXT NOT NULL,
    auto_push INTEGER NOT NULL,
    auto_sync INTEGER NOT NULL,
    paused_reason TEXT,
    last_error TEXT,
    import_after TEXT,
    import_due INTEGER NOT NULL DEFAULT 0,
    import_lease INTEGER,
    created_at INTEGER NOT NULL,
    email TEXT
);
INSERT INTO logbooks_rebuilt (seq, id, account_id, provider, callsign, key_sealed, key_last4,
    auto_push, auto_sync, paused_reason, last_error, import_after, import_due, import_lease,
    created_at)
SELECT seq, id, account_id, provider, callsign, key_sealed, key_last4, auto_push, auto_sync,
    paused_reason, last_error, import_after, import_due, import_lease, created_at
FROM logbooks;
DROP TABLE logbooks;
ALTER TABLE logbooks_rebuilt RENAME TO logbooks;
CREATE INDEX logbooks_account ON logbooks (account_id);
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
