-- Entries by their idempotency key, each key once: a contact logged under a key its caller
-- chose (a QSO WSJT-X reported, keyed by svc_wsjtx::once_key) is found by it, so that the same
-- QSO reported again is answered as logged instead of logged twice, and the file itself
-- refuses a second entry with a key one holds. Keys made here are random, one an entry.
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_key ON entries (idempotency_key);
