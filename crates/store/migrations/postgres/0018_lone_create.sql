-- A create that goes to the database alone (one request at a time) runs a function of its own,
-- svc_create_contact, with the same outcomes as svc_create_contacts (0015) for a group of one.
-- Most of a lone create's time in svc_create_contacts was planning its statements, chains of
-- CTEs over the group planned at every call (0012): about half of the call's 1.7-2.2 ms on a
-- busy 2-core machine. Here each statement reads or writes one row by its key, which is cheap
-- to plan at every call too (the call took 0.55 ms there), so the plans still see the tables
-- as they are.
--
-- p_durable makes the call's transaction commit synchronously (it is otherwise run on
-- connections that do not wait for the disk): a lone create is then on disk when the call
-- returns, without a flush of its own afterwards. The setting lasts to the end of the call's
-- transaction only.
--
-- The order in which rows are taken is svc_create_contacts': the account's row first, then
-- its idempotency key, so that a lone create and a group of another process queue rather than
-- deadlock.
CREATE FUNCTION svc_create_contact(
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
        CASE WHEN a.plan <> 'unlimited' THEN p_lifetime_budget - a.lifetime_created END,
        CASE WHEN a.plan = 'free' THEN COALESCE(a.qso_cap, p_cap) - a.native_qso_count END,
        CASE WHEN p_daily_applies AND a.plan <> 'unlimited'
            THEN p_daily_budget - CASE WHEN a.daily_day = p_day THEN a.daily_created ELSE 0 END
        END);
    -- NULL: no limit applies (the unlimited plan).
    IF places < 1 THEN
        IF i.idem_key IS NOT NULL THEN
            DELETE FROM idempotency d WHERE d.account_id = i.account_id AND d.key = i.idem_key;
        END IF;
        RETURN QUERY SELECT i.item, CASE
                WHEN a.plan <> 'unlimited' AND a.lifetime_created >= p_lifetime_budget
                    THEN 'lifetime'
                WHEN p_daily_applies AND a.plan <> 'unlimited' AND (p_daily_budget <= 0
                    OR (a.daily_day = p_day AND a.daily_created >= p_daily_budget)) THEN 'daily'
                WHEN a.plan = 'free' AND a.native_qso_count >= COALESCE(a.qso_cap, p_cap)
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
