//! `svc server backup`: a copy of an SQLite database taken while the server writes to it is
//! consistent, the owner's alone, never written over an existing file, and a server started on
//! it is the restore. PostgreSQL is backed up with pg_dump, which the refusal says.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::common::{Backend, Db, Server, contact, this_month};

#[test]
fn a_backup_taken_while_the_server_writes_is_a_server_of_its_own() {
    let server = Server::start_with(&["--burst-limit", "100000", "--free-plan-cap", "100000"]);
    let api = server.account("W1AW", "elevated");
    let folder = api.monthly(&this_month().0, None);
    let stop = Arc::new(AtomicBool::new(false));
    let created = Arc::new(AtomicUsize::new(0));
    let writer = {
        let api = server.api(Some(api.key()));
        let (stop, created, folder) = (stop.clone(), created.clone(), folder.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let n = created.load(Ordering::Relaxed);
                let r = api.post("/v1/contacts", contact(&folder, &format!("K{n}ABC")));
                assert_eq!(r.status, 201, "{}", r.body);
                created.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    while created.load(Ordering::Relaxed) < 20 {
        std::thread::yield_now();
    }
    let to = server.db.dir.path().join("copy.db");
    let out = server.admin(&["backup", "--to", to.to_str().unwrap()]);
    let during = created.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.starts_with(&format!("backed up to {}: 1 accounts, ", to.display())),
        "{stdout}"
    );
    assert_eq!(
        std::fs::metadata(&to).unwrap().permissions().mode() & 0o777,
        0o600,
        "the copy holds password hashes and sealed keys"
    );
    let len = std::fs::metadata(&to).unwrap().len();

    // A backup never writes over a file, the backup before included.
    let again = server.admin(&["backup", "--to", to.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("exists; a backup never overwrites a file"),
        "{again:?}"
    );
    assert_eq!(std::fs::metadata(&to).unwrap().len(), len);

    // Restoring is starting a server on the copy: the same key works, and the copy is one
    // moment of the log: the account's count is the contacts it holds, which are the first
    // ones written, with none torn.
    let restored = Db::fresh();
    std::fs::copy(&to, restored.dir.path().join("svc.db")).unwrap();
    let copy = Server::start_on(restored, &[]);
    let api = copy.api(Some(api.key()));
    let held = api.qso_count();
    let listed = api.all_contacts(&folder);
    assert_eq!(
        listed.len() as i64,
        held,
        "the count and the contacts are one snapshot"
    );
    assert!(
        (20..=during as i64 + 1).contains(&held),
        "{held} of {during} written when the backup ended"
    );
    let reported = format!("{held} contacts");
    assert!(stdout.contains(&reported), "{stdout} says {reported}");
}

#[test]
fn postgres_is_backed_up_with_pg_dump() {
    crate::common::on(Backend::Postgres, || {
        let server = Server::start();
        let to = server.db.dir.path().join("copy.db");
        let out = server.admin(&["backup", "--to", to.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("back up PostgreSQL with pg_dump"),
            "{out:?}"
        );
        assert!(!to.exists(), "nothing is made");
    });
}
