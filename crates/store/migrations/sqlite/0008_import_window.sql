-- Import batches are counted per key in a window of their own (the import limit), apart from
-- the burst limit's requests (docs/API.md, "Rate limits and the free plan cap").
ALTER TABLE key_usage ADD COLUMN import_window_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE key_usage ADD COLUMN import_count INTEGER NOT NULL DEFAULT 0;
