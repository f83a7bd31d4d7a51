-- When each job of the external logbooks' queue joined it, for the metrics' age of the oldest
-- waiting job (docs/API.md, "Metrics"). `due_at` cannot tell it: a delete, an edit or a retry
-- sets it to 0 ("due now") or to a later try. The time is the database's clock, in
-- milliseconds, and the age is read against the same clock.
ALTER TABLE external_copies ADD COLUMN queued_at INTEGER;

-- Jobs waiting when this ran have waited at least since now.
UPDATE external_copies SET queued_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE state IN ('waiting', 'deleting');

-- A copy joins the queue when it is inserted waiting (or deleting), and when a copy that was
-- in the book or refused there is to be sent or deleted again. A job that stays in the queue
-- (tried again, edited on its way, or turned from a send into a delete) keeps its time.
CREATE TRIGGER external_copies_queued AFTER INSERT ON external_copies
WHEN NEW.state IN ('waiting', 'deleting')
BEGIN
    UPDATE external_copies SET queued_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
    WHERE contact_id = NEW.contact_id AND logbook_id = NEW.logbook_id;
END;

CREATE TRIGGER external_copies_requeued AFTER UPDATE OF state ON external_copies
WHEN NEW.state IN ('waiting', 'deleting') AND OLD.state NOT IN ('waiting', 'deleting')
BEGIN
    UPDATE external_copies SET queued_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
    WHERE contact_id = NEW.contact_id AND logbook_id = NEW.logbook_id;
END;
