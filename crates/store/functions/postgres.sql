-- PostgreSQL's functions as this build has them, each in one place. The store runs this file
-- after the migrations whenever it is newer than what the database has (FUNCTIONS_VERSION in
-- crates/store/src/sql/functions.rs), so a change to a function is an edit here and a bump of
-- that number, never a migration that copies the function whole. A migration still makes what
-- a function needs (a table, a column, a type) and drops a function whose arguments change.

-- svc_create_contacts (last written whole in migrations/postgres/0015_unlimited_plan.sql)
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
            CASE WHEN a.budgeted THEN p_lifetime_budget - a.lifetime_created END,
            CASE WHEN a.capped THEN COALESCE(a.qso_cap, p_cap) - a.native_qso_count END,
            CASE WHEN p_daily_applies AND a.budgeted
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
            WHEN a.budgeted AND a.lifetime_created >= p_lifetime_budget
                THEN 'lifetime'
            WHEN p_daily_applies AND a.budgeted AND (p_daily_budget <= 0
                OR (a.daily_day = p_day AND a.daily_created >= p_daily_budget)) THEN 'daily'
            WHEN a.capped AND a.native_qso_count >= COALESCE(a.qso_cap, p_cap) THEN 'cap'
            ELSE 'daily'
        END, f.repeats
    FROM unnest(batch) i
    LEFT JOIN fresh f ON f.item = i.item
    JOIN accounts a ON a.id = i.account_id;
END;
$$;

-- svc_create_contact (last written whole in migrations/postgres/0018_lone_create.sql)
CREATE OR REPLACE FUNCTION svc_create_contact(
    p_items JSON,
    p_day BIGINT,
    p_live_after BIGINT,
    p_lifetime_budget BIGINT,
    p_cap BIGINT,
    p_daily_budget BIGINT,
    p_daily_applies BOOLEAN,
    p_durable BOOLEAN
) RETURNS TABLE (item INT, outcome TEXT, duplicate_of TEXT)
LANGUAGE plpgsql
-- Planned at each call, as svc_create_contacts (0012).
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    i svc_new_contact;
    a accounts;
    places BIGINT;
    repeats TEXT;
BEGIN
    IF p_durable THEN
        PERFORM set_config('synchronous_commit', 'on', true);
    END IF;
    -- p_items holds one create, as svc_create_contacts reads it.
    i := json_populate_record(NULL::svc_new_contact, p_items -> 0);

    -- An account that does not exist has no folder: the check below refuses it.
    SELECT * INTO a FROM accounts WHERE id = i.account_id FOR UPDATE;
    IF (SELECT f.account_id FROM folders f WHERE f.id = i.folder_id) IS DISTINCT FROM i.account_id
    THEN
        RAISE EXCEPTION 'svc_create_contact: a folder that is not its account''s';
    END IF;

    IF i.idem_key IS NOT NULL THEN
        INSERT INTO idempotency (account_id, key, fingerprint, response, created_at)
        VALUES (i.account_id, i.idem_key, i.fingerprint, NULL, i.created_at)
        ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
            response = excluded.response, created_at = excluded.created_at
        WHERE idempotency.created_at < p_live_after;
        -- Not claimed: the key is live, its request answered or under way.
        IF NOT FOUND THEN
            RETURN QUERY SELECT i.item, 'answered'::text, NULL::text;
            RETURN;
        END IF;
    END IF;

    places := LEAST(
        CASE WHEN a.budgeted THEN p_lifetime_budget - a.lifetime_created END,
        CASE WHEN a.capped THEN COALESCE(a.qso_cap, p_cap) - a.native_qso_count END,
        CASE WHEN p_daily_applies AND a.budgeted
            THEN p_daily_budget - CASE WHEN a.daily_day = p_day THEN a.daily_created ELSE 0 END
        END);
    -- NULL: no limit applies (the unlimited plan).
    IF places < 1 THEN
        IF i.idem_key IS NOT NULL THEN
            DELETE FROM idempotency d WHERE d.account_id = i.account_id AND d.key = i.idem_key;
        END IF;
        RETURN QUERY SELECT i.item, CASE
                WHEN a.budgeted AND a.lifetime_created >= p_lifetime_budget
                    THEN 'lifetime'
                WHEN p_daily_applies AND a.budgeted AND (p_daily_budget <= 0
                    OR (a.daily_day = p_day AND a.daily_created >= p_daily_budget)) THEN 'daily'
                WHEN a.capped AND a.native_qso_count >= COALESCE(a.qso_cap, p_cap)
                    THEN 'cap'
                ELSE 'daily'
            END, NULL::text;
        RETURN;
    END IF;

    UPDATE accounts d SET
        lifetime_created = d.lifetime_created + 1,
        native_qso_count = d.native_qso_count + 1,
        daily_created = CASE WHEN d.daily_day = p_day THEN d.daily_created ELSE 0 END
            + CASE WHEN p_daily_applies THEN 1 ELSE 0 END,
        daily_day = p_day
    WHERE d.id = i.account_id;

    IF i.dupe_key IS NOT NULL THEN
        repeats := (SELECT c.id FROM contacts c
            WHERE c.folder_id = i.folder_id AND c.dupe_key = i.dupe_key
            ORDER BY c.seq LIMIT 1);
    END IF;
    INSERT INTO contacts (id, account_id, folder_id, callsign, frequency, band, mode,
        time_on, rst_sent, rst_received, name, notes, sig, sig_info, my_sig, my_sig_info,
        activation_id, station_callsign, dupe_key, fields, created_at)
    VALUES (i.id, i.account_id, i.folder_id, i.callsign, i.frequency, i.band, i.mode,
        i.time_on, i.rst_sent, i.rst_received, i.name, i.notes, i.sig, i.sig_info, i.my_sig,
        i.my_sig_info, i.activation_id, i.station_callsign, i.dupe_key, i.fields, i.created_at);
    UPDATE folders d SET contact_count = d.contact_count + 1 WHERE d.id = i.folder_id;
    IF i.idem_key IS NOT NULL THEN
        UPDATE idempotency d
        SET response = jsonb_strip_nulls(jsonb_build_object('id', i.id, 'duplicateOf', repeats))::text
        WHERE d.account_id = i.account_id AND d.key = i.idem_key;
    END IF;
    RETURN QUERY SELECT i.item, 'stored'::text, repeats;
END;
$$;

-- svc_contacts_push (last written whole in migrations/postgres/0005_logbooks.sql)
CREATE OR REPLACE FUNCTION svc_contacts_push() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at, via)
    SELECT n.id, l.id, n.account_id, 'waiting', n.created_at, 'push'
    FROM new_contacts n JOIN logbooks l ON l.account_id = n.account_id AND l.auto_push;
    WITH station AS (
        SELECT n.id, n.account_id, n.created_at,
            COALESCE(n.station_callsign, a.callsign) AS callsign
        FROM new_contacts n JOIN accounts a ON a.id = n.account_id
        WHERE EXISTS (SELECT 1 FROM logbooks s WHERE s.account_id = n.account_id AND s.auto_sync)
    ), routed AS (
        SELECT st.*, (SELECT COUNT(*) FROM logbooks m WHERE m.account_id = st.account_id
            AND m.auto_sync AND m.callsign = st.callsign) AS matches
        FROM station st
    ), sent AS (
        INSERT INTO external_copies (contact_id, logbook_id, account_id, state, due_at, via)
        SELECT r.id, l.id, r.account_id, 'waiting', r.created_at, 'sync'
        FROM routed r JOIN logbooks l ON l.account_id = r.account_id AND l.auto_sync
            AND l.callsign = r.callsign
        WHERE r.matches = 1
        ON CONFLICT (contact_id, logbook_id) DO NOTHING
    )
    INSERT INTO external_reviews (contact_id, account_id, reason, created_at)
    SELECT r.id, r.account_id, CASE WHEN r.matches = 0 THEN 'no_book' ELSE 'several_books' END,
        r.created_at
    FROM routed r WHERE r.matches <> 1;
    RETURN NULL;
END;
$$;

-- svc_contacts_unpush (last written whole in migrations/postgres/0007_contact_edits.sql)
CREATE OR REPLACE FUNCTION svc_contacts_unpush() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM external_reviews WHERE contact_id = OLD.id;
    INSERT INTO external_kept (logbook_id, log_id)
    SELECT logbook_id, log_id FROM external_copies
    WHERE contact_id = OLD.id AND via IN ('sync', 'import') AND log_id IS NOT NULL
    ON CONFLICT (logbook_id, log_id) DO NOTHING;
    DELETE FROM external_copies WHERE contact_id = OLD.id
        AND (log_id IS NULL OR via IN ('sync', 'import'));
    UPDATE external_copies SET state = 'deleting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL
    WHERE contact_id = OLD.id;
    RETURN NULL;
END;
$$;

-- svc_contacts_repush (last written whole in migrations/postgres/0007_contact_edits.sql)
CREATE OR REPLACE FUNCTION svc_contacts_repush() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE external_copies SET edits = edits + 1
    WHERE contact_id = NEW.id AND state = 'waiting' AND lease_until IS NOT NULL;
    UPDATE external_copies SET state = 'waiting', attempts = 0, due_at = 0, lease_until = NULL,
        last_error = NULL, edits = edits + CASE WHEN state = 'pushed' THEN 1 ELSE 0 END
    WHERE contact_id = NEW.id AND state IN ('pushed', 'failed');
    RETURN NULL;
END;
$$;

-- svc_external_copies_queued (last written whole in migrations/postgres/0017_queue_age.sql)
CREATE OR REPLACE FUNCTION svc_external_copies_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IN ('waiting', 'deleting')
        AND (TG_OP = 'INSERT' OR OLD.state NOT IN ('waiting', 'deleting')) THEN
        NEW.queued_at := (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT;
    END IF;
    RETURN NEW;
END;
$$;
