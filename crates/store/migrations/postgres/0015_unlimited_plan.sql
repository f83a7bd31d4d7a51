-- The unlimited plan (no cap, no budgets) and an account's own cap (`qso_cap`; NULL: the
-- server's --free-plan-cap), both set by svc server user set. svc_create_contacts is 0014's
-- with each account's plan deciding which limits apply: p_cap is the server's cap, which an
-- account's own replaces; an unlimited account is charged (its counters still count) but
-- never refused.
ALTER TABLE accounts DROP CONSTRAINT accounts_plan_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_plan_check
    CHECK (plan IN ('free', 'paid', 'unlimited'));
ALTER TABLE accounts ADD COLUMN qso_cap BIGINT CHECK (qso_cap >= 0);

CREATE OR REPLACE FUNCTION svc_create_contacts(
    p_items JSON,
    p_day BIGINT,
    p_live_after BIGINT,
    p_lifetime_budget BIGINT,
    p_cap BIGINT,
    p_daily_budget BIGINT,
    p_daily_applies BOOLEAN
) RETURNS TABLE (item INT, outcome TEXT, duplicate_of TEXT)
LANGUAGE plpgsql
-- Planned at each call (0012): no planner switch is overridden.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    batch svc_new_contact[];
    claimed INT[];
    admitted INT[];
BEGIN
    batch := ARRAY(SELECT i FROM json_populate_recordset(NULL::svc_new_contact, p_items) i);

    -- Every group takes the rows of its accounts first, in one order, so that groups of several
    -- processes queue rather than deadlock, and each statement below (a new snapshot) reads
    -- the accounts, their keys and their contacts as the last group left them.
    PERFORM 1 FROM accounts a
    WHERE a.id IN (SELECT i.account_id FROM unnest(batch) i)
    ORDER BY a.id FOR UPDATE;
    IF EXISTS (
        SELECT 1 FROM unnest(batch) i
        WHERE (SELECT f.account_id FROM folders f WHERE f.id = i.folder_id)
            IS DISTINCT FROM i.account_id
    ) THEN
        RAISE EXCEPTION 'svc_create_contacts: a folder that is not its account''s';
    END IF;

    -- A key that is live already is not claimed; one older than the TTL is taken over. Each
    -- account admits its creates in the group's order while its limits leave room, and is
    -- charged once for all of them.
    WITH claims AS (
        INSERT INTO idempotency (account_id, key, fingerprint, response, created_at)
        SELECT i.account_id, i.idem_key, i.fingerprint, NULL, i.created_at
        FROM unnest(batch) i WHERE i.idem_key IS NOT NULL
        ORDER BY i.account_id, i.idem_key
        ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
            response = excluded.response, created_at = excluded.created_at
        WHERE idempotency.created_at < p_live_after
        RETURNING account_id, key
    ), claiming AS (
        SELECT i.item FROM unnest(batch) i
        JOIN claims c ON c.account_id = i.account_id AND c.key = i.idem_key
    ), wanting AS (
        SELECT i.item, i.account_id,
            row_number() OVER (PARTITION BY i.account_id ORDER BY i.item) AS place
        FROM unnest(batch) i
        WHERE i.idem_key IS NULL OR i.item IN (SELECT c.item FROM claiming c)
    ), room AS (
        -- LEAST skips NULLs: a limit that does not apply is NULL, and an account none
        -- applies to (the unlimited plan) has NULL places, room for all.
        SELECT a.id, LEAST(
            CASE WHEN a.plan <> 'unlimited' THEN p_lifetime_budget - a.lifetime_created END,
            CASE WHEN a.plan = 'free' THEN COALESCE(a.qso_cap, p_cap) - a.native_qso_count END,
            CASE WHEN p_daily_applies AND a.plan <> 'unlimited'
                THEN p_daily_budget - CASE WHEN a.daily_day = p_day THEN a.daily_created ELSE 0 END
            END
        ) AS places
        FROM accounts a WHERE a.id IN (SELECT w.account_id FROM wanting w)
    ), let_in AS (
        SELECT w.item, w.account_id FROM wanting w JOIN room r ON r.id = w.account_id
        WHERE r.places IS NULL OR w.place <= r.places
    ), charged AS (
        UPDATE accounts a SET
            lifetime_created = a.lifetime_created + n.count,
            native_qso_count = a.native_qso_count + n.count,
            daily_created = CASE WHEN a.daily_day = p_day THEN a.daily_created ELSE 0 END
                + CASE WHEN p_daily_applies THEN n.count ELSE 0 END,
            daily_day = p_day
        FROM (SELECT l.account_id, count(*) AS count FROM let_in l GROUP BY l.account_id) n
        WHERE a.id = n.account_id
    )
    SELECT (SELECT COALESCE(array_agg(c.item), '{}') FROM claiming c),
        (SELECT COALESCE(array_agg(l.item), '{}') FROM let_in l)
    INTO claimed, admitted;

    RETURN QUERY
    WITH fresh AS (
        SELECT i.*, CASE WHEN i.dupe_key IS NOT NULL THEN COALESCE(
            (SELECT c.id FROM contacts c
             WHERE c.folder_id = i.folder_id AND c.dupe_key = i.dupe_key
             ORDER BY c.seq LIMIT 1),
            NULLIF(first_value(i.id) OVER (PARTITION BY i.folder_id, i.dupe_key ORDER BY i.item),
                i.id)
        ) END AS repeats
        FROM unnest(batch) i WHERE i.item = ANY (admitted)
    ), stored AS (
        INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode,
            time_on, rst_sent, rst_received, name, notes, sig, sig_info, my_sig, my_sig_info,
            activation_id, station_callsign, dupe_key, fields, created_at)
        SELECT f.id, f.account_id, f.folder_id, f.callsign, f.frequency, f.band, f.mode,
            f.time_on, f.rst_sent, f.rst_received, f.name, f.notes, f.sig, f.sig_info, f.my_sig,
            f.my_sig_info, f.activation_id, f.station_callsign, f.dupe_key, f.fields, f.created_at
        FROM fresh f ORDER BY f.item
    ), counted AS (
        UPDATE folders d SET contact_count = d.contact_count + n.count
        FROM (SELECT f.folder_id, count(*) AS count FROM fresh f GROUP BY f.folder_id) n
        WHERE d.id = n.folder_id
    ), answers AS (
        UPDATE idempotency d
        SET response = jsonb_strip_nulls(jsonb_build_object('id', f.id, 'duplicateOf', f.repeats))::text
        FROM fresh f WHERE d.account_id = f.account_id AND d.key = f.idem_key
    ), refused AS (
        DELETE FROM idempotency d USING unnest(batch) i
        WHERE i.item = ANY (claimed) AND NOT i.item = ANY (admitted)
            AND d.account_id = i.account_id AND d.key = i.idem_key
    )
    SELECT i.item, CASE
            WHEN f.id IS NOT NULL THEN 'stored'
            WHEN i.idem_key IS NOT NULL AND NOT i.item = ANY (claimed) THEN 'answered'
            WHEN a.plan <> 'unlimited' AND a.lifetime_created >= p_lifetime_budget
                THEN 'lifetime'
            WHEN p_daily_applies AND a.plan <> 'unlimited' AND (p_daily_budget <= 0
                OR (a.daily_day = p_day AND a.daily_created >= p_daily_budget)) THEN 'daily'
            WHEN a.plan = 'free' AND a.native_qso_count >= COALESCE(a.qso_cap, p_cap) THEN 'cap'
            ELSE 'daily'
        END, f.repeats
    FROM unnest(batch) i
    LEFT JOIN fresh f ON f.item = i.item
    JOIN accounts a ON a.id = i.account_id;
END;
$$;
