-- The schema change of migrations/sqlite/0012_signin_delays.sql in PostgreSQL's types.
-- Sign-in limits wait instead of refusing for the rest of the window: `next_at` is when the
-- scope may try again (milliseconds since the Unix epoch; 0: at once), set with each counted
-- attempt from its count: no wait for the first few, then a delay that doubles with each
-- failure, never past the window's end.
ALTER TABLE signin_attempts ADD COLUMN next_at BIGINT NOT NULL DEFAULT 0;

-- A scope that had used up its attempts under the earlier rule (5 failed sign-ins, 10 sign-ups,
-- in 15 minutes) keeps waiting for its window's end, as it was told; any other may try now.
UPDATE signin_attempts SET next_at = window_start + 900000
WHERE failures >= CASE WHEN scope LIKE 'signup-%' THEN 10 ELSE 5 END;
