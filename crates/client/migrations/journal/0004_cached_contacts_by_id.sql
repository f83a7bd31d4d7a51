-- The copy's contacts by id alone (a sent contact's folder, a contact moved or deleted):
-- without it each was a scan of the whole copy, and `svc outbox push` of 10,000 contacts took
-- 13 s of the journal's CPU (718 a second against the target of 2,000; 4,241 with it).
CREATE INDEX IF NOT EXISTS cached_contacts_by_id ON cached_contacts (id);
