-- Which of its plan's limits apply to an account: the free plan's cap (capped) and the daily
-- and lifetime contact budgets (budgeted). The store writes both from the model's Plan
-- whenever it sets a plan, so the SQL that charges a create reads them and no longer knows
-- which plan has which limit. The defaults are the free plan's, the plan an account starts on.
ALTER TABLE accounts ADD COLUMN capped INTEGER NOT NULL DEFAULT 1 CHECK (capped IN (0, 1));
ALTER TABLE accounts ADD COLUMN budgeted INTEGER NOT NULL DEFAULT 1 CHECK (budgeted IN (0, 1));
UPDATE accounts SET capped = (plan = 'free'), budgeted = (plan <> 'unlimited');
