-- An account the service's operator disabled (svc server user disable): its keys and web
-- sessions are refused until it is enabled again; nothing of it is deleted.
ALTER TABLE accounts ADD COLUMN disabled_at INTEGER;
