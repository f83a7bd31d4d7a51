-- The schema of migrations/sqlite/0005_contact_edits.sql in PostgreSQL's types and functions.
-- Edited contacts (PATCH /v1/contacts/{qsoId}) and their copies in external logbooks:
-- docs/API.md, "Edits and external logbooks".

-- Edits of the contact that its copy has to catch up with. A job remembers the count it was
-- taken with: when the count has moved by the time the book answers, the contact changed while
-- it was on its way, and it goes again. A copy sent after an edit replaces the book's copy
-- (deleted by its log id first) instead of adding to it.
ALTER TABLE external_copies ADD COLUMN edits BIGINT NOT NULL DEFAULT 0;

-- In the transaction of an edit that changes what a book holds: a copy in the book, or on its
-- way there, goes again; a copy the book refused is tried again, since the edit may be what
-- it wanted. A copy waiting its first turn needs nothing: it is read when it is sent.
CREATE FUNCTION svc_contacts_repush() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE external_copies SET edits = edits + 1
    WHERE contact_id = NEW.id AND state = 'waiting' AND lease_until IS NOT NULL;
    UPDATE external_copies SET state = 'waiting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL, edits = edits + CASE WHEN state = 'pushed' THEN 1 ELSE 0 END
    WHERE contact_id = NEW.id AND state IN ('pushed', 'failed');
    RETURN NULL;
END;
$$;
CREATE TRIGGER contacts_repush AFTER UPDATE ON contacts
    FOR EACH ROW
    WHEN ((OLD.callsign, OLD.frequency, OLD.band, OLD.mode, OLD.time_on, OLD.rst_sent,
           OLD.rst_received, OLD.name, OLD.notes, OLD.sig, OLD.sig_info, OLD.my_sig,
           OLD.my_sig_info, OLD.station_callsign)
      IS DISTINCT FROM (NEW.callsign, NEW.frequency, NEW.band, NEW.mode, NEW.time_on,
           NEW.rst_sent, NEW.rst_received, NEW.name, NEW.notes, NEW.sig, NEW.sig_info,
           NEW.my_sig, NEW.my_sig_info, NEW.station_callsign))
    EXECUTE FUNCTION svc_contacts_repush();

-- A deleted contact, as before, and now also a copy waiting to replace the book's: the book's
-- copy (known by its log id) is deleted there when it was pushed, kept and remembered when it
-- was synced or imported; a copy the book does not hold, or whose log id is not known, is
-- forgotten.
CREATE OR REPLACE FUNCTION svc_contacts_unpush() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM external_reviews WHERE contact_id = OLD.id;
    INSERT INTO external_kept (logbook_id, log_id)
    SELECT logbook_id, log_id FROM external_copies
    WHERE contact_id = OLD.id AND via IN ('sync', 'import') AND log_id IS NOT NULL
    ON CONFLICT (logbook_id, log_id) DO NOTHING;
    DELETE FROM external_copies WHERE contact_id = OLD.id
        AND (log_id IS NULL OR via IN ('sync', 'import'));
    UPDATE external_copies SET state = 'deleting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL
    WHERE contact_id = OLD.id;
    RETURN NULL;
END;
$$;
