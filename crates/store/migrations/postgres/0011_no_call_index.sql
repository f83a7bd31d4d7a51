-- A book's record is matched to a contact here by account and a minute either side of its
-- time-on: contacts_account_page (account_id, time_on, seq) finds those few rows. An index by
-- callsign cost every create a write in a random place of a large index, a third of the disk
-- writes of an import.
DROP INDEX contacts_account_call;
