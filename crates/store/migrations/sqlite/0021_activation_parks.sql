-- A contact of an activation carries the activation's parks as its my_sig_info. Adding a park
-- to an activation (POST /v1/activations/{id}/parks) rewrites the folder and its contacts in
-- one transaction; a contact checked against the folder as it was read before that and stored
-- after it takes the parks the activation has when it is stored. SQLite has one writer, so
-- what this trigger reads is what the transaction that adds a park left. The WHEN clause
-- keeps every other insert (hunting logs, imports of them) free of it.
CREATE TRIGGER contacts_activation_parks AFTER INSERT ON contacts
WHEN NEW.activation_id IS NOT NULL
    AND NEW.my_sig_info IS NOT (SELECT location_reference FROM folders WHERE id = NEW.activation_id)
BEGIN
    UPDATE contacts
    SET my_sig_info = (SELECT location_reference FROM folders WHERE id = NEW.activation_id)
    WHERE seq = NEW.seq;
END;
