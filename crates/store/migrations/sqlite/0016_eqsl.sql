-- no-transaction
-- eQSL.cc as an external logbook beside QRZ and Club Log (docs/API.md, "External logbooks"):
-- `provider` may be 'eqsl'. An eQSL book's `callsign` is its eQSL user name (eQSL's accounts
-- are named by their callsigns), its `key_sealed` holds the eQSL password, sealed as QRZ's key
-- is, and its `key_last4` is empty, since no part of a password is ever shown.
--
-- SQLite cannot change a CHECK constraint in place, so logbooks is rebuilt as 0015 rebuilt it,
-- for the same reasons: foreign keys off around the transaction (external_copies and
-- external_kept refer to logbooks, and the drop must not cascade to them), and the legacy
-- rename, which does not re-parse the triggers that read logbooks while the new table takes
-- its name. The index dropped with the old table is made again. One transaction, which also
-- makes the trigger that queues an edited contact again leave eQSL's sent fields out.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN;
CREATE TABLE logbooks_rebuilt (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    provider TEXT NOT NULL CHECK (provider IN ('qrz', 'clublog', 'eqsl')),
    callsign TEXT NOT NULL,
    key_sealed BLOB NOT NULL,
    key_last4 TEXT NOT NULL,
    auto_push INTEGER NOT NULL,
    auto_sync INTEGER NOT NULL,
    paused_reason TEXT,
    last_error TEXT,
    import_after TEXT,
    import_due INTEGER NOT NULL DEFAULT 0,
    import_lease INTEGER,
    created_at INTEGER NOT NULL,
    email TEXT
);
INSERT INTO logbooks_rebuilt (seq, id, account_id, provider, callsign, key_sealed, key_last4,
    auto_push, auto_sync, paused_reason, last_error, import_after, import_due, import_lease,
    created_at, email)
SELECT seq, id, account_id, provider, callsign, key_sealed, key_last4, auto_push, auto_sync,
    paused_reason, last_error, import_after, import_due, import_lease, created_at, email
FROM logbooks;
DROP TABLE logbooks;
ALTER TABLE logbooks_rebuilt RENAME TO logbooks;
CREATE INDEX logbooks_account ON logbooks (account_id);
-- When a push to eQSL is settled, the store writes eQSL's sent flag and date into the
-- contact's fields (eqslQslSent, eqslQslSdate), in the settling transaction. That is the
-- contact's record of where it went, not a change of what any book holds: it must not send
-- the contact again to every book as an edit would (0007's trigger, with those two fields left
-- out of the comparison).
DROP TRIGGER contacts_repush;
CREATE TRIGGER contacts_repush AFTER UPDATE ON contacts
WHEN (OLD.callsign, OLD.frequency, OLD.band, OLD.mode, OLD.time_on, OLD.rst_sent,
      OLD.rst_received, OLD.name, OLD.notes, OLD.sig, OLD.sig_info, OLD.my_sig, OLD.my_sig_info,
      OLD.station_callsign,
      json_remove(COALESCE(OLD.fields, '{}'), '$.eqslQslSent', '$.eqslQslSdate'))
  IS NOT (NEW.callsign, NEW.frequency, NEW.band, NEW.mode, NEW.time_on, NEW.rst_sent,
      NEW.rst_received, NEW.name, NEW.notes, NEW.sig, NEW.sig_info, NEW.my_sig, NEW.my_sig_info,
      NEW.station_callsign,
      json_remove(COALESCE(NEW.fields, '{}'), '$.eqslQslSent', '$.eqslQslSdate'))
BEGIN
    UPDATE external_copies SET edits = edits + 1
    WHERE contact_id = NEW.id AND state = 'waiting' AND lease_until IS NOT NULL;
    UPDATE external_copies SET state = 'waiting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL, edits = edits + CASE WHEN state = 'pushed' THEN 1 ELSE 0 END
    WHERE contact_id = NEW.id AND state IN ('pushed', 'failed');
END;
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
