-- All Contacts lists every contact of the account, newest first (docs/API.md, "GET
-- /v1/folders/{folderId}/contacts"): its pages read this index as a folder's read contacts_page.
CREATE INDEX contacts_account_page ON contacts (account_id, time_on DESC, seq DESC);
