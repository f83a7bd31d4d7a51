-- no-transaction
-- Contest logs (svc contest start): a folder of type 'contest', whose `contest` holds the
-- contest's id, the exchange sent, the Cabrillo categories and header as JSON (svc_model's
-- ContestLog, as the folder's wire form writes it). Every other folder has none.
--
-- SQLite changes no CHECK in place, so folders is rebuilt as 0020 rebuilt contacts: foreign
-- keys off around the transaction, and the legacy rename, which leaves the references of
-- contacts and folders to "folders" as they are. Its indexes are made again as they were.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN;
CREATE TABLE folders_rebuilt (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    parent_id TEXT REFERENCES folders (id),
    type TEXT NOT NULL CHECK (type IN ('activation', 'category', 'contest', 'monthly')),
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
    created_at INTEGER NOT NULL,
    contest TEXT CHECK ((type = 'contest') = (contest IS NOT NULL))
);
INSERT INTO folders_rebuilt (seq, id, account_id, parent_id, type, name, program_id, month,
        start_time, end_time, location_reference, location_name, callsign, auto_folder_key,
        identity_key, contact_count, created_at)
    SELECT seq, id, account_id, parent_id, type, name, program_id, month, start_time, end_time,
        location_reference, location_name, callsign, auto_folder_key, identity_key,
        contact_count, created_at FROM folders;
DROP TABLE folders;
ALTER TABLE folders_rebuilt RENAME TO folders;
CREATE UNIQUE INDEX folders_identity ON folders (account_id, identity_key);
CREATE INDEX folders_account ON folders (account_id, seq);
CREATE INDEX folders_activations ON folders (account_id, start_time DESC, seq DESC) WHERE type = 'activation';
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
