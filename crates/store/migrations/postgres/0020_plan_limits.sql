-- Which of its plan's limits apply to an account: the free plan's cap (capped) and the daily
-- and lifetime contact budgets (budgeted). The store writes both from the model's Plan
-- whenever it sets a plan, so the SQL that charges a create (functions/postgres.sql among it)
-- reads them and no longer knows which plan has which limit. The defaults are the free
-- plan's, the plan an account starts on.
ALTER TABLE accounts ADD COLUMN capped BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE accounts ADD COLUMN budgeted BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE accounts SET capped = (plan = 'free'), budgeted = (plan <> 'unlimited');
