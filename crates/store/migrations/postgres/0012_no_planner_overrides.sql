-- The grouped create ran with enable_seqscan = off so that its cached plans would not keep
-- scanning tables that were small when they were made. That setting makes any scan without an
-- index (the trigger's transition table new_contacts) cost 10^10, past PostgreSQL's JIT
-- thresholds, so every create was JIT-compiled (0.6-1 s of CPU on a stock server with jit on).
-- Plans made for each call instead: they see the tables as they are, with PostgreSQL's own
-- costs.
ALTER FUNCTION svc_create_contacts(JSON, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BOOLEAN)
    RESET enable_seqscan;
ALTER FUNCTION svc_create_contacts(JSON, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BOOLEAN)
    SET plan_cache_mode = force_custom_plan;
