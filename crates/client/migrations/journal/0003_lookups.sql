-- The callbook's answers by the call looked up (the client's lookups::Answer as JSON).
CREATE TABLE lookups (
    callsign TEXT PRIMARY KEY,
    answer TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
);
