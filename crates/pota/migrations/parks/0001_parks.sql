-- POTA's parks as POTA last told them, by reference, with when they were fetched.
CREATE TABLE IF NOT EXISTS parks (
    reference TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    location TEXT,
    grid TEXT,
    latitude REAL,
    longitude REAL,
    fetched_at INTEGER NOT NULL
);
