-- Station profiles: the account's own station under one of its station callsigns (grid,
-- state, county, rig, antenna, power), which fills a new contact's MY_* fields. docs/API.md,
-- "Station profiles". One row per account and callsign, so two writers of one profile
-- replace each other rather than making two.

CREATE TABLE station_profiles (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    callsign TEXT NOT NULL,
    -- The values as a JSON object of contact wire names (myGridsquare, txPwr, ...) and their
    -- stored text, as the contact fields they fill keep them.
    profile_values TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, callsign)
);
