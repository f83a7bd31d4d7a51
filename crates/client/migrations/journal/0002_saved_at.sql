-- When a copied contact was written, so that a page asked for before it does not undo it.
-- Rows of an earlier file count as written long ago: the next save replaces them.
ALTER TABLE cached_contacts ADD COLUMN saved_at INTEGER NOT NULL DEFAULT 0;
