-- QRZ.com's confirmed status read back into the contacts (docs/API.md, "Imports"). A synced
-- QRZ book's records changed since `status_since` (a day, YYYY-MM-DD) are read again for their
-- APP_QRZLOG_STATUS; NULL until the first read.
ALTER TABLE logbooks ADD COLUMN status_since TEXT;

-- Where a contact went and who confirmed it is the contact's record of its QSLs, not a change
-- of what any book holds: written by a confirmation, an upload or a book's answer, it must not
-- send the contact again to every book as an edit would (QRZ would drop its own confirmation
-- of each record replaced). 0016's trigger left eQSL's sent fields out; this one leaves out
-- every QSL service's sent and received flags and dates (LoTW's and eQSL's), and the `adif`
-- entries svc and QRZ keep of them: APP_SVC_LOTW_SENT (what was uploaded to LoTW),
-- APP_SVC_LOTW_RCVD (when LoTW said it had it), APP_QRZLOG_STATUS and APP_QRZLOG_QSLDATE
-- (QRZ's confirmation). The `adif` object is compared apart, without those, so that a contact
-- whose only entries they are compares as one with none. The paper card's fields stay in:
-- a book shows them as the operator keeps them.
DROP TRIGGER contacts_repush;
CREATE TRIGGER contacts_repush AFTER UPDATE ON contacts
WHEN (OLD.callsign, OLD.frequency, OLD.band, OLD.mode, OLD.time_on, OLD.rst_sent,
      OLD.rst_received, OLD.name, OLD.notes, OLD.sig, OLD.sig_info, OLD.my_sig, OLD.my_sig_info,
      OLD.station_callsign,
      json_remove(COALESCE(OLD.fields, '{}'), '$.lotwQslSent', '$.lotwQslSdate',
          '$.lotwQslRcvd', '$.lotwQslRdate', '$.eqslQslSent', '$.eqslQslSdate', '$.eqslQslRcvd',
          '$.eqslQslRdate', '$.adif'),
      json_remove(COALESCE(json_extract(OLD.fields, '$.adif'), '{}'), '$.APP_SVC_LOTW_SENT',
          '$.APP_SVC_LOTW_RCVD', '$.APP_QRZLOG_STATUS', '$.APP_QRZLOG_QSLDATE'))
  IS NOT (NEW.callsign, NEW.frequency, NEW.band, NEW.mode, NEW.time_on, NEW.rst_sent,
      NEW.rst_received, NEW.name, NEW.notes, NEW.sig, NEW.sig_info, NEW.my_sig, NEW.my_sig_info,
      NEW.station_callsign,
      json_remove(COALESCE(NEW.fields, '{}'), '$.lotwQslSent', '$.lotwQslSdate',
          '$.lotwQslRcvd', '$.lotwQslRdate', '$.eqslQslSent', '$.eqslQslSdate', '$.eqslQslRcvd',
          '$.eqslQslRdate', '$.adif'),
      json_remove(COALESCE(json_extract(NEW.fields, '$.adif'), '{}'), '$.APP_SVC_LOTW_SENT',
          '$.APP_SVC_LOTW_RCVD', '$.APP_QRZLOG_STATUS', '$.APP_QRZLOG_QSLDATE'))
BEGIN
    UPDATE external_copies SET edits = edits + 1
    WHERE contact_id = NEW.id AND state = 'waiting' AND lease_until IS NOT NULL;
    UPDATE external_copies SET state = 'waiting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL, edits = edits + CASE WHEN state = 'pushed' THEN 1 ELSE 0 END
    WHERE contact_id = NEW.id AND state IN ('pushed', 'failed');
END;
