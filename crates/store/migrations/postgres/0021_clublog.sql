-- Club Log as an external logbook beside QRZ (docs/API.md, "External logbooks"): `provider`
-- may be 'clublog', and a Club Log book keeps the email of its Club Log account (`email`;
-- NULL for QRZ, whose key alone opens a book). A Club Log book's `key_sealed` holds its
-- application password, sealed as QRZ's key is; its `key_last4` is empty, since no part of a
-- password is ever shown. SQLite's 0015 makes the same change.
ALTER TABLE logbooks DROP CONSTRAINT logbooks_provider_check;
ALTER TABLE logbooks ADD CONSTRAINT logbooks_provider_check
    CHECK (provider IN ('qrz', 'clublog'));
ALTER TABLE logbooks ADD COLUMN email TEXT;
