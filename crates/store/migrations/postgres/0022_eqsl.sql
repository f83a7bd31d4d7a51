-- eQSL.cc as an external logbook beside QRZ and Club Log (docs/API.md, "External logbooks"):
-- `provider` may be 'eqsl'. An eQSL book's `callsign` is its eQSL user name (eQSL's accounts
-- are named by their callsigns), its `key_sealed` holds the eQSL password, sealed as QRZ's key
-- is, and its `key_last4` is empty, since no part of a password is ever shown. SQLite's 0016
-- makes the same change.
ALTER TABLE logbooks DROP CONSTRAINT logbooks_provider_check;
ALTER TABLE logbooks ADD CONSTRAINT logbooks_provider_check
    CHECK (provider IN ('qrz', 'clublog', 'eqsl'));

-- When a push to eQSL is settled, the store writes eQSL's sent flag and date into the
-- contact's fields (eqslQslSent, eqslQslSdate), in the settling transaction. That is the
-- contact's record of where it went, not a change of what any book holds: it must not send
-- the contact again to every book as an edit would (0009's trigger, with those two fields left
-- out of the comparison).
DROP TRIGGER contacts_repush ON contacts;
CREATE TRIGGER contacts_repush AFTER UPDATE ON contacts
    FOR EACH ROW
    WHEN ((OLD.callsign, OLD.frequency, OLD.band, OLD.mode, OLD.time_on, OLD.rst_sent,
           OLD.rst_received, OLD.name, OLD.notes, OLD.sig, OLD.sig_info, OLD.my_sig,
           OLD.my_sig_info, OLD.station_callsign,
           COALESCE(OLD.fields, '{}')::jsonb - 'eqslQslSent' - 'eqslQslSdate')
      IS DISTINCT FROM (NEW.callsign, NEW.frequency, NEW.band, NEW.mode, NEW.time_on,
           NEW.rst_sent, NEW.rst_received, NEW.name, NEW.notes, NEW.sig, NEW.sig_info,
           NEW.my_sig, NEW.my_sig_info, NEW.station_callsign,
           COALESCE(NEW.fields, '{}')::jsonb - 'eqslQslSent' - 'eqslQslSdate'))
    EXECUTE FUNCTION svc_contacts_repush();
