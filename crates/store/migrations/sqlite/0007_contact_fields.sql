-- The whole contact (docs/API.md, "Fields"): the fields beyond the seed's (gridsquare, txPwr,
-- qslSent, …) and every other ADIF field a contact carries (its adif map), as one JSON object
-- in the contact's wire names; NULL when it has none. One column rather than one per field,
-- so that a new field is a line of src/model/fields.rs and no migration.
ALTER TABLE contacts ADD COLUMN fields TEXT;

-- An edit of those fields changes what an external logbook holds as much as one of the
-- seed's: the copy goes again (as in 0005, with fields added).
DROP TRIGGER contacts_repush;
CREATE TRIGGER contacts_repush AFTER UPDATE ON contacts
WHEN (OLD.callsign, OLD.frequency, OLD.band, OLD.mode, OLD.time_on, OLD.rst_sent,
      OLD.rst_received, OLD.name, OLD.notes, OLD.sig, OLD.sig_info, OLD.my_sig, OLD.my_sig_info,
      OLD.station_callsign, OLD.fields)
  IS NOT (NEW.callsign, NEW.frequency, NEW.band, NEW.mode, NEW.time_on, NEW.rst_sent,
      NEW.rst_received, NEW.name, NEW.notes, NEW.sig, NEW.sig_info, NEW.my_sig, NEW.my_sig_info,
      NEW.station_callsign, NEW.fields)
BEGIN
    UPDATE external_copies SET edits = edits + 1
    WHERE contact_id = NEW.id AND state = 'waiting' AND lease_until IS NOT NULL;
    UPDATE external_copies SET state = 'waiting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL, edits = edits + CASE WHEN state = 'pushed' THEN 1 ELSE 0 END
    WHERE contact_id = NEW.id AND state IN ('pushed', 'failed');
END;
