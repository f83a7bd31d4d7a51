-- External logbooks (QRZ): the connections, and what went where. docs/API.md, "External logbooks".

CREATE TABLE logbooks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    provider TEXT NOT NULL CHECK (provider IN ('qrz')),
    -- The book's owner, as the provider's STATUS said when the key was given.
    callsign TEXT NOT NULL,
    -- The provider's API key, sealed with the server's secret (nonce and ciphertext); never
    -- stored or answered in the clear.
    key_sealed BLOB NOT NULL,
    key_last4 TEXT NOT NULL,
    auto_push INTEGER NOT NULL,
    auto_sync INTEGER NOT NULL,
    -- Set when the provider refused the key: nothing goes to the book until a new key is given.
    paused_reason TEXT,
    last_error TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX logbooks_account ON logbooks (account_id);

-- One row per contact and book it is bound for: the push queue and, once pushed, the link to
-- the book's copy. `waiting`: to be sent; `pushed`: in the book as `log_id`; `failed`: the
-- book refused it (`last_error`); `deleting`: deleted here, its copy to be deleted there.
CREATE TABLE external_copies (
    contact_id TEXT NOT NULL,
    logbook_id TEXT NOT NULL REFERENCES logbooks (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'pushed', 'failed', 'deleting')),
    log_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_error TEXT,
    PRIMARY KEY (contact_id, logbook_id)
);
CREATE INDEX external_copies_due ON external_copies (due_at) WHERE state IN ('waiting', 'deleting');
CREATE INDEX external_copies_book ON external_copies (logbook_id, state);

-- A contact is queued for every book of its account that takes automatic pushes in the
-- transaction that stores it, whichever path stores it (single, batch, import).
CREATE TRIGGER contacts_push AFTER INSERT ON contacts
BEGIN
    INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at)
    SELECT NEW.id, l.id, NEW.account_id, 'waiting', NEW.created_at
    FROM logbooks l WHERE l.account_id = NEW.account_id AND l.auto_push;
END;

-- A deleted contact: a copy not sent yet is forgotten, a pushed copy is deleted there too.
CREATE TRIGGER contacts_unpush AFTER DELETE ON contacts
BEGIN
    DELETE FROM external_copies WHERE contact_id = OLD.id AND state IN ('waiting', 'failed');
    UPDATE external_copies SET state = 'deleting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL
    WHERE contact_id = OLD.id AND state = 'pushed';
END;
