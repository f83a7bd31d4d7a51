-- The rule of migrations/sqlite/0021_activation_parks.sql in PostgreSQL's terms: a contact of
-- an activation takes the activation's parks as its my_sig_info when it is stored. The read
-- locks the folder's row FOR KEY SHARE, which the creates of one folder share among
-- themselves (and with their count's update) but which waits for, and is waited for by, the
-- FOR UPDATE of a park being added: either the park was added before, and this reads the new
-- list, or the addition waits for this contact's transaction and then rewrites it with the
-- rest.
CREATE FUNCTION svc_contacts_activation_parks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT location_reference INTO NEW.my_sig_info
    FROM folders WHERE id = NEW.activation_id FOR KEY SHARE;
    RETURN NEW;
END $$;

CREATE TRIGGER contacts_activation_parks BEFORE INSERT ON contacts
FOR EACH ROW WHEN (NEW.activation_id IS NOT NULL)
EXECUTE FUNCTION svc_contacts_activation_parks();
