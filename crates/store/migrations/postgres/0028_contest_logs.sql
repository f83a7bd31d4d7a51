-- Contest logs (svc contest start): a folder of type 'contest', whose `contest` holds the
-- contest's id, the exchange sent, the Cabrillo categories and header as JSON (svc_model's
-- ContestLog, as the folder's wire form writes it). Every other folder has none.
ALTER TABLE folders DROP CONSTRAINT folders_type_check;
ALTER TABLE folders ADD CONSTRAINT folders_type_check
    CHECK (type IN ('activation', 'category', 'contest', 'monthly'));
ALTER TABLE folders ADD COLUMN contest TEXT;
ALTER TABLE folders ADD CONSTRAINT folders_contest_check
    CHECK ((type = 'contest') = (contest IS NOT NULL));
