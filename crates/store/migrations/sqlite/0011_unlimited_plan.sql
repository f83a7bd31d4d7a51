-- no-transaction
-- The unlimited plan (no cap, no budgets) and an account's own cap (`qso_cap`; NULL: the
-- server's --free-plan-cap), both set by svc server user set.
--
-- SQLite cannot change a CHECK constraint in place, so accounts is rebuilt as SQLite's
-- documentation describes ("Making Other Kinds Of Table Schema Changes"): foreign keys off
-- around the transaction (the pragma is a no-op inside one), and the legacy rename, which
-- does not re-parse the triggers that read accounts while the new table takes its name. The
-- whole rebuild is one transaction: it happens entirely or not at all.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN;
CREATE TABLE accounts_rebuilt (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    callsign TEXT NOT NULL UNIQUE,
    plan TEXT NOT NULL CHECK (plan IN ('free', 'paid', 'unlimited')),
    password_hash TEXT,
    native_qso_count INTEGER NOT NULL DEFAULT 0 CHECK (native_qso_count >= 0),
    lifetime_created INTEGER NOT NULL DEFAULT 0,
    -- Contacts created on the UTC day `daily_day` (days since the epoch), for the daily budget.
    daily_day INTEGER NOT NULL DEFAULT 0,
    daily_created INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    disabled_at INTEGER,
    qso_cap INTEGER CHECK (qso_cap >= 0)
);
INSERT INTO accounts_rebuilt (seq, id, callsign, plan, password_hash, native_qso_count,
    lifetime_created, daily_day, daily_created, created_at, disabled_at)
SELECT seq, id, callsign, plan, password_hash, native_qso_count, lifetime_created, daily_day,
    daily_created, created_at, disabled_at
FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_rebuilt RENAME TO accounts;
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
