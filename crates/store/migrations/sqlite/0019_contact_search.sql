-- The log page's search (crates/store/src/sql/search.rs), an account's contacts at a time:
-- - the start of a call and of the worked station's locator are ranges over these two, so a
--   search for a call or a grid a log holds a few times reads those few rows, not the log
--   (the band after the locator is the map's);
-- - a band or a mode is read in time order from these two, so a rare one (6 m in an HF log)
--   does not walk the whole log for a page;
-- - a park is read off the contacts that have one, in time order, from the index alone; the
--   map counts the parks hunted and activated off it too (its sig and my_sig).
-- Each costs a create one more index entry. A day range reads contacts_account_page, and
-- confirmed or not is read off the rows as the page walks them. The expressions and the
-- partial index's condition are written as search.rs writes them.
CREATE INDEX contacts_search_call ON contacts (account_id, callsign);
CREATE INDEX contacts_search_grid ON contacts (account_id, json_extract(fields, '$.gridsquare'), band);
-- The map (crates/store/src/sql/pictures.rs) counts contacts by grid and band from the index
-- above alone, never reading a contact's JSON; the few contacts whose locator svc kept only as
-- the GRIDSQUARE an ADIF file gave (a 10-character one) from this one.
CREATE INDEX contacts_kept_grid ON contacts (account_id, json_extract(fields, '$.adif.GRIDSQUARE'), band)
    WHERE json_extract(fields, '$.adif.GRIDSQUARE') IS NOT NULL;
CREATE INDEX contacts_search_band ON contacts (account_id, band, time_on DESC, seq DESC);
CREATE INDEX contacts_search_mode ON contacts (account_id, mode, time_on DESC, seq DESC);
CREATE INDEX contacts_search_park ON contacts (account_id, time_on DESC, seq DESC, sig_info, my_sig_info, sig, my_sig)
    WHERE sig_info IS NOT NULL OR my_sig_info IS NOT NULL;
