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
    -- Importing from the book: the last log id read, when the next import is due, and the
    -- lease of the process doing it.
    import_after TEXT,
    import_due INTEGER NOT NULL DEFAULT 0,
    import_lease INTEGER,
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
    -- Why it is bound there: `push` (automatic push: a delete here deletes it there), `sync`
    -- (routed by station callsign, or sent from the review queue: a delete here keeps it there)
    -- or `import` (it came from the book).
    via TEXT NOT NULL CHECK (via IN ('push', 'sync', 'import')),
    PRIMARY KEY (contact_id, logbook_id)
);
CREATE INDEX external_copies_due ON external_copies (due_at) WHERE state IN ('waiting', 'deleting');
CREATE INDEX external_copies_book ON external_copies (logbook_id, state);

CREATE INDEX external_copies_log ON external_copies (logbook_id, log_id);
-- An import matches a book's record to a contact here by call and time.
CREATE INDEX contacts_account_call ON contacts (account_id, callsign, time_on);

-- Copies in a book whose contact was deleted here while the book is synced: the book keeps
-- them, and the import from it must never bring them back.
CREATE TABLE external_kept (
    logbook_id TEXT NOT NULL REFERENCES logbooks (id) ON DELETE CASCADE,
    log_id TEXT NOT NULL,
    PRIMARY KEY (logbook_id, log_id)
);

-- Contacts the automatic sync could not route: no synced book has their station callsign, or
-- several have. They wait for the user to pick a book or skip them.
CREATE TABLE external_reviews (
    contact_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('no_book', 'several_books')),
    created_at INTEGER NOT NULL
);
CREATE INDEX external_reviews_account ON external_reviews (account_id, created_at);

-- In the transaction that stores a contact, whichever path stores it (single, batch, import):
-- it is queued for every book of its account that takes automatic pushes, and for the one
-- synced book of its station callsign (the account's callsign when it has none); with no such
-- book or several, it waits for review.
CREATE TRIGGER contacts_push AFTER INSERT ON contacts
BEGIN
    INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at, via)
    SELECT NEW.id, l.id, NEW.account_id, 'waiting', NEW.created_at, 'push'
    FROM logbooks l WHERE l.account_id = NEW.account_id AND l.auto_push;
    INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at, via)
    SELECT NEW.id, l.id, NEW.account_id, 'waiting', NEW.created_at, 'sync'
    FROM logbooks l
    WHERE l.account_id = NEW.account_id AND l.auto_sync
    AND l.callsign = COALESCE(NEW.station_callsign,
        (SELECT a.callsign FROM accounts a WHERE a.id = NEW.account_id))
    AND (SELECT COUNT(*) FROM logbooks m WHERE m.account_id = NEW.account_id AND m.auto_sync
        AND m.callsign = l.callsign) = 1
    ON CONFLICT (contact_id, logbook_id) DO NOTHING;
    INSERT INTO external_reviews (contact_id, account_id, reason, created_at)
    SELECT NEW.id, NEW.account_id, CASE WHEN n.matches = 0 THEN 'no_book' ELSE 'several_books' END,
        NEW.created_at
    FROM (SELECT COUNT(*) AS matches FROM logbooks m
          WHERE m.account_id = NEW.account_id AND m.auto_sync
          AND m.callsign = COALESCE(NEW.station_callsign,
              (SELECT a.callsign FROM accounts a WHERE a.id = NEW.account_id))) n
    WHERE n.matches <> 1
    AND EXISTS (SELECT 1 FROM logbooks s WHERE s.account_id = NEW.account_id AND s.auto_sync);
END;

-- A deleted contact: a copy not sent yet is forgotten; a pushed copy is deleted there too; a
-- synced or imported copy stays there and is remembered so no import brings it back.
CREATE TRIGGER contacts_unpush AFTER DELETE ON contacts
BEGIN
    DELETE FROM external_reviews WHERE contact_id = OLD.id;
    INSERT INTO external_kept (logbook_id, log_id)
    SELECT logbook_id, log_id FROM external_copies
    WHERE contact_id = OLD.id AND via IN ('sync', 'import') AND log_id IS NOT NULL
    ON CONFLICT (logbook_id, log_id) DO NOTHING;
    DELETE FROM external_copies WHERE contact_id = OLD.id
        AND (state IN ('waiting', 'failed') OR via IN ('sync', 'import'));
    UPDATE external_copies SET state = 'deleting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL
    WHERE contact_id = OLD.id AND state = 'pushed';
END;
