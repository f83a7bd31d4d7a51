-- External logbooks (QRZ): the connections, and what went where. docs/API.md, "External logbooks".

CREATE TABLE logbooks (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    provider TEXT NOT NULL CHECK (provider IN ('qrz')),
    -- The book's owner, as the provider's STATUS said when the key was given.
    callsign TEXT NOT NULL,
    -- The provider's API key, sealed with the server's secret (nonce and ciphertext); never
    -- stored or answered in the clear.
    key_sealed BYTEA NOT NULL,
    key_last4 TEXT NOT NULL,
    auto_push BOOLEAN NOT NULL,
    auto_sync BOOLEAN NOT NULL,
    -- Set when the provider refused the key: nothing goes to the book until a new key is given.
    paused_reason TEXT,
    last_error TEXT,
    created_at BIGINT NOT NULL
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
    attempts BIGINT NOT NULL DEFAULT 0,
    due_at BIGINT NOT NULL,
    lease_until BIGINT,
    last_error TEXT,
    PRIMARY KEY (contact_id, logbook_id)
);
CREATE INDEX external_copies_due ON external_copies (due_at) WHERE state IN ('waiting', 'deleting');
CREATE INDEX external_copies_book ON external_copies (logbook_id, state);

-- A contact is queued for every book of its account that takes automatic pushes in the
-- transaction that stores it, whichever path stores it (single, batch, import, grouped).
CREATE FUNCTION svc_contacts_push() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at)
    SELECT n.id, l.id, n.account_id, 'waiting', n.created_at
    FROM new_contacts n JOIN logbooks l ON l.account_id = n.account_id AND l.auto_push;
    RETURN NULL;
END;
$$;
CREATE TRIGGER contacts_push AFTER INSERT ON contacts
    REFERENCING NEW TABLE AS new_contacts
    FOR EACH STATEMENT EXECUTE FUNCTION svc_contacts_push();

-- A deleted contact: a copy not sent yet is forgotten, a pushed copy is deleted there too.
CREATE FUNCTION svc_contacts_unpush() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM external_copies WHERE contact_id = OLD.id AND state IN ('waiting', 'failed');
    UPDATE external_copies SET state = 'deleting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL
    WHERE contact_id = OLD.id AND state = 'pushed';
    RETURN NULL;
END;
$$;
CREATE TRIGGER contacts_unpush AFTER DELETE ON contacts
    FOR EACH ROW EXECUTE FUNCTION svc_contacts_unpush();
