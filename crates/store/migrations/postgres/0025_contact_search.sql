-- The schema of migrations/sqlite/0019_contact_search.sql in PostgreSQL's terms: the log
-- page's search (crates/store/src/sql/search.rs) reads the start of a call and of the worked
-- station's locator as ranges over the first two, in the C collation, since a prefix is a
-- range of bytes and the database's own collation may order by words; a band or a mode in
-- time order from the next two; a park off the contacts that have one. Each expression and the
-- partial index's condition are written as search.rs writes them, or the planner does not see
-- the index.
CREATE INDEX contacts_search_call ON contacts (account_id, (callsign COLLATE "C"));
CREATE INDEX contacts_search_grid ON contacts (account_id, ((fields::json ->> 'gridsquare') COLLATE "C"));
CREATE INDEX contacts_search_band ON contacts (account_id, band, time_on DESC, seq DESC);
CREATE INDEX contacts_search_mode ON contacts (account_id, mode, time_on DESC, seq DESC);
CREATE INDEX contacts_search_park ON contacts (account_id, time_on DESC, seq DESC, sig_info, my_sig_info, sig, my_sig)
    WHERE sig_info IS NOT NULL OR my_sig_info IS NOT NULL;
