-- The schema of migrations/sqlite/0020_award_columns.sql in PostgreSQL's terms: what the awards
-- and the map read of a contact as columns generated from its `fields` and stored, kept by
-- every write of a contact without a line of its own, so that a read of a whole log takes them
-- off the rows rather than parsing each contact's JSON. One statement, so the table is written
-- again once. The map counts its locators by band off contacts_map_grid alone (an index-only
-- scan, which an index on an expression never gives).
ALTER TABLE contacts
    ADD COLUMN award_dxcc TEXT GENERATED ALWAYS AS (fields::json ->> 'dxcc') STORED,
    ADD COLUMN award_state TEXT GENERATED ALWAYS AS (fields::json ->> 'state') STORED,
    ADD COLUMN award_cqz TEXT GENERATED ALWAYS AS (fields::json ->> 'cqz') STORED,
    ADD COLUMN award_grid TEXT GENERATED ALWAYS AS (fields::json ->> 'gridsquare') STORED,
    ADD COLUMN award_prop_mode TEXT GENERATED ALWAYS AS (fields::json ->> 'propMode') STORED,
    ADD COLUMN award_lotw_qsl_rcvd TEXT GENERATED ALWAYS AS (fields::json ->> 'lotwQslRcvd') STORED,
    ADD COLUMN award_eqsl_qsl_rcvd TEXT GENERATED ALWAYS AS (fields::json ->> 'eqslQslRcvd') STORED,
    ADD COLUMN award_qsl_rcvd TEXT GENERATED ALWAYS AS (fields::json ->> 'qslRcvd') STORED,
    ADD COLUMN award_qrz_status TEXT
        GENERATED ALWAYS AS (fields::json -> 'adif' ->> 'APP_QRZLOG_STATUS') STORED,
    ADD COLUMN map_grid TEXT GENERATED ALWAYS AS (NULLIF(UPPER(TRIM(COALESCE(
        fields::json ->> 'gridsquare', fields::json -> 'adif' ->> 'GRIDSQUARE'))), '')) STORED;
CREATE INDEX contacts_map_grid ON contacts (account_id, map_grid, band) WHERE map_grid IS NOT NULL;
