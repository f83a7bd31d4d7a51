//! Several server processes on one database, sharing nothing else: every guarantee that
//! concurrency could break holds across processes, with requests spread over all of them.

use std::sync::{Arc, Barrier};

use serde_json::{Value, json};

use crate::common::{Api, Resp, Server, contact, this_month};

const PROCESSES: usize = 3;

/// A server and two more processes on its database, and one client per process with `key`.
struct Cluster {
    server: Server,
    _peers: Vec<crate::common::Peer>,
    clients: Vec<Api>,
}

impl Cluster {
    /// Starts the processes with `flags`, and an account W1AW whose key every client uses.
    fn start(flags: &[&str], tier: &str) -> Cluster {
        let server = Server::start_with(flags);
        let first = server.account("W1AW", tier);
        let peers: Vec<_> = (1..PROCESSES).map(|_| server.another(flags)).collect();
        let mut clients = vec![first.clone()];
        clients.extend(peers.iter().map(|p| p.api(Some(first.key()))));
        Cluster {
            server,
            _peers: peers,
            clients,
        }
    }

    /// Sends `per_client` requests from each of `threads` threads, all released at once; thread
    /// `t` talks to process `t % PROCESSES`. Returns every response.
    fn fire(
        &self,
        threads: usize,
        per_client: usize,
        request: impl Fn(&Api, usize) -> Resp + Send + Sync + 'static,
    ) -> Vec<Resp> {
        let barrier = Arc::new(Barrier::new(threads));
        let request = Arc::new(request);
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let api = self.clients[t % PROCESSES].clone();
                let (barrier, request) = (barrier.clone(), request.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    (0..per_client)
                        .map(|i| request(&api, t * per_client + i))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a client thread"))
            .collect()
    }
}

fn statuses(responses: &[Resp]) -> Vec<u16> {
    responses.iter().map(|r| r.status).collect()
}

fn count(responses: &[Resp], status: u16) -> usize {
    responses.iter().filter(|r| r.status == status).count()
}

fn activation_find_or_create_gives_one_folder() {
    let c = Cluster::start(&["--burst-limit", "10000"], "basic");
    let responses = c.fire(12, 2, |api, _| {
        api.post(
            "/v1/activations",
            json!({ "locationReference": "us-4567", "callsign": "W1AW" }),
        )
    });
    let created = responses
        .iter()
        .filter(|r| r.body["created"] == true)
        .count();
    assert_eq!(created, 1, "{:?}", statuses(&responses));
    assert_eq!(count(&responses, 201), 1, "{:?}", statuses(&responses));
    assert_eq!(count(&responses, 200), 23, "{:?}", statuses(&responses));
    let id = responses[0].id();
    assert!(responses.iter().all(|r| r.id() == id));
    assert_eq!(c.clients[1].folders("activation").len(), 1);
}

fn monthly_find_or_create_gives_one_folder() {
    let c = Cluster::start(&["--burst-limit", "10000"], "basic");
    let month = this_month().0;
    let responses = c.fire(12, 2, move |api, _| {
        api.post(
            "/v1/folders",
            json!({ "type": "monthly", "month": month, "programId": "pota" }),
        )
    });
    assert_eq!(count(&responses, 201), 1, "{:?}", statuses(&responses));
    assert_eq!(count(&responses, 200), 23, "{:?}", statuses(&responses));
    let id = responses[0].id();
    assert!(responses.iter().all(|r| r.id() == id));
    let monthly: Vec<Value> = c.clients[2].folders("monthly");
    assert_eq!(monthly.len(), 1, "{monthly:?}");
}

fn the_free_plan_cap_holds_across_processes() {
    let c = Cluster::start(
        &["--burst-limit", "10000", "--free-plan-cap", "25"],
        "basic",
    );
    let folder = c.clients[0].monthly(&this_month().0, None);
    let responses = c.fire(12, 4, move |api, n| {
        api.post("/v1/contacts", contact(&folder, &format!("K{}ABC", n % 10)))
    });
    assert_eq!(count(&responses, 201), 25, "{:?}", statuses(&responses));
    assert_eq!(
        count(&responses, 402),
        48 - 25,
        "{:?}",
        statuses(&responses)
    );
    for api in &c.clients {
        assert_eq!(api.qso_count(), 25);
    }
}

fn the_burst_limit_counts_each_key_once_across_processes() {
    // The window is the clock's minute: start early in one, so the test never straddles two.
    let second = svc::model::Timestamp::now().millis() / 1000 % 60;
    if second > 45 {
        std::thread::sleep(std::time::Duration::from_secs((61 - second) as u64));
    }
    let c = Cluster::start(&["--burst-limit", "30"], "basic");
    // Account and key setup made no API request; the clients' requests are all counted here.
    let responses = c.fire(9, 6, |api, _| api.get("/v1/whoami"));
    assert_eq!(count(&responses, 200), 30, "{:?}", statuses(&responses));
    let limited: Vec<&Resp> = responses.iter().filter(|r| r.status == 429).collect();
    assert_eq!(limited.len(), 54 - 30, "{:?}", statuses(&responses));
    for r in limited {
        assert_eq!(r.body["details"]["reason"], "burst");
        assert!(r.header("retry-after").is_some());
    }
}

fn logbook_budgets_count_each_account_once_across_processes() {
    let c = Cluster::start(
        &[
            "--burst-limit",
            "10000",
            "--daily-contact-budget",
            "20",
            "--free-plan-cap",
            "1000",
        ],
        "basic",
    );
    let folder = c.clients[0].monthly(&this_month().0, None);
    let responses = c.fire(10, 3, move |api, _| {
        api.post("/v1/contacts", contact(&folder, "K1ABC"))
    });
    assert_eq!(count(&responses, 201), 20, "{:?}", statuses(&responses));
    for r in responses.iter().filter(|r| r.status != 201) {
        r.expect_error(429, "rate_limited");
        assert_eq!(r.body["details"]["reason"], "daily_logbook_budget");
    }
    assert_eq!(c.clients[2].qso_count(), 20);
}

fn idempotency_keys_replay_across_processes() {
    let c = Cluster::start(&["--burst-limit", "10000"], "basic");
    let folder = c.clients[0].monthly(&this_month().0, None);
    let body = contact(&folder, "K1ABC");
    // The same create sent to every process at once, as a client retrying on another node.
    let responses = c.fire(9, 1, move |api, _| {
        api.send(
            "POST",
            "/v1/contacts",
            Some(&body),
            &[("Idempotency-Key", "one-contact")],
        )
    });
    assert_eq!(count(&responses, 201), 9, "{:?}", statuses(&responses));
    let id = responses[0].id();
    assert!(responses.iter().all(|r| r.id() == id));
    let fresh = responses
        .iter()
        .filter(|r| r.body.get("replayed").is_none())
        .count();
    assert_eq!(fresh, 1, "one first answer, the others replays");
    for api in &c.clients {
        assert_eq!(api.qso_count(), 1);
    }
    assert_eq!(
        c.server
            .api(Some(c.clients[0].key()))
            .contacts(&folder)
            .len(),
        1
    );
}

fn duplicates_point_to_one_first_contact_across_processes() {
    let c = Cluster::start(&["--burst-limit", "10000"], "basic");
    let folder = c.clients[0].monthly(&this_month().0, Some("pota"));
    // The same hunted park logged many times at once, each with its own key, on every process.
    let responses = c.fire(12, 3, move |api, n| {
        let mut body = contact(&folder, "K1ABC");
        body["sig"] = json!("POTA");
        body["sigInfo"] = json!("US-1234");
        api.send(
            "POST",
            "/v1/contacts",
            Some(&body),
            &[("Idempotency-Key", &format!("hunt-{n}"))],
        )
    });
    assert_eq!(count(&responses, 201), 36, "{:?}", statuses(&responses));
    let firsts: Vec<&Resp> = responses
        .iter()
        .filter(|r| r.body.get("duplicateOf").is_none())
        .collect();
    assert_eq!(
        firsts.len(),
        1,
        "one first contact, every other its duplicate"
    );
    let first = firsts[0].id();
    for r in &responses {
        if r.id() != first {
            assert_eq!(r.body["duplicateOf"], first.as_str(), "{}", r.body);
        }
    }
    assert_eq!(c.clients[1].qso_count(), 36);
}

/// A park added to an activation while contacts are logged into it on every process: each
/// contact ends with the activation's parks, however its create and the addition crossed.
fn a_park_added_while_contacts_are_logged_reaches_them_all() {
    let c = Cluster::start(&["--burst-limit", "10000"], "elevated");
    let folder = c.clients[0].activation("US-1234", "W1AW");
    let path = format!("/v1/activations/{folder}/parks");
    let responses = c.fire(12, 4, move |api, n| {
        if n == 21 {
            api.post(&path, json!({ "locationReference": "US-5678" }))
        } else {
            api.post("/v1/contacts", contact(&folder, &format!("K{}ABC", n % 10)))
        }
    });
    assert_eq!(count(&responses, 201), 47, "{:?}", statuses(&responses));
    assert_eq!(count(&responses, 200), 1, "{:?}", statuses(&responses));
    let stored = c.clients[1].all_contacts(&c.clients[2].activation("US-1234,US-5678", "W1AW"));
    assert_eq!(stored.len(), 47);
    for contact in &stored {
        assert_eq!(contact["mySigInfo"], "US-1234,US-5678", "{contact}");
    }
}

crate::both_backends!(
    a_park_added_while_contacts_are_logged_reaches_them_all,
    activation_find_or_create_gives_one_folder,
    duplicates_point_to_one_first_contact_across_processes,
    monthly_find_or_create_gives_one_folder,
    the_free_plan_cap_holds_across_processes,
    the_burst_limit_counts_each_key_once_across_processes,
    logbook_budgets_count_each_account_once_across_processes,
    idempotency_keys_replay_across_processes,
);
