-- When each job of the external logbooks' queue joined it, for the metrics' age of the oldest
-- waiting job (docs/API.md, "Metrics"). `due_at` cannot tell it: a delete, an edit or a retry
-- sets it to 0 ("due now") or to a later try. The time is the database's clock, in
-- milliseconds, and the age is read against the same clock, so that processes on several
-- hosts agree.
ALTER TABLE external_copies ADD COLUMN queued_at BIGINT;

-- Jobs waiting when this ran have waited at least since now.
UPDATE external_copies SET queued_at = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT
WHERE state IN ('waiting', 'deleting');

-- A copy joins the queue when it is inserted waiting (or deleting), and when a copy that was
-- in the book or refused there is to be sent or deleted again. A job that stays in the queue
-- (tried again, edited on its way, or turned from a send into a delete) keeps its time.
CREATE FUNCTION svc_external_copies_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IN ('waiting', 'deleting')
        AND (TG_OP = 'INSERT' OR OLD.state NOT IN ('waiting', 'deleting')) THEN
        NEW.queued_at := (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER external_copies_queued BEFORE INSERT OR UPDATE OF state ON external_copies
    FOR EACH ROW EXECUTE FUNCTION svc_external_copies_queued();
