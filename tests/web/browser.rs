//! The pages in a real headless Chromium against the real server: sign up, generate a key, the
//! reveal dialog's rules (close disabled until acknowledged, Escape refused, focus kept inside,
//! the key blanked 90 s after opening on the page's own clock, driven through the DevTools
//! virtual time instead of waiting), the key used by the real `svc` client, revoked in the page,
//! and refused to the client with `key_revoked`.
//!
//! The log: signed in, its table on a phone and a desktop (screenshots of both), and a
//! contact opened from it. And the logbooks page: signed in, a QRZ book connected through its form (against the fake);
//! and the activations page, reached from the sign-in it leads to, naming its parks once the
//! service has had them from the POTA stand-in, and fitting a phone.
//!
//! Without Chromium the test says so loudly, and fails when SVC_TEST_REQUIRE_BROWSER=1 (as CI
//! sets it).

use std::ffi::OsStr;
use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use headless_chrome::browser::tab::{ModifierKey, Tab};
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Browser as Cdp, Emulation};
use headless_chrome::types::Bounds;
use headless_chrome::{Browser, LaunchOptions};
use serde_json::Value;

use crate::cli::Cli;
use crate::common::Server;
use crate::common::pota::FakePota;
use crate::common::qrz::FakeQrz;

const QRZ_KEY: &str = "A1B2-C3D4-E5F6-7788";

/// Chromium: `SVC_TEST_CHROMIUM`, else `chromium` or `chromium-browser` on the PATH.
fn chromium() -> Option<std::path::PathBuf> {
    if let Some(path) = std::env::var_os("SVC_TEST_CHROMIUM") {
        return Some(path.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| [dir.join("chromium"), dir.join("chromium-browser")])
        .find(|candidate| candidate.is_file())
}

/// Chromium, or `None` after saying loudly that the test did not run (a failure instead when
/// SVC_TEST_REQUIRE_BROWSER=1).
pub(super) fn chromium_or_say_why() -> Option<std::path::PathBuf> {
    let path = chromium();
    if path.is_none() {
        let why =
            "BROWSER TEST NOT RUN: Chromium is not installed (Debian: apt-get install chromium)";
        if std::env::var("SVC_TEST_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!("{why}, and SVC_TEST_REQUIRE_BROWSER=1 requires it");
        }
        // Straight to the process's stderr: eprintln! would be captured and hidden.
        let _ = writeln!(std::io::stderr(), "\n!!!!! {why} !!!!!\n");
    }
    path
}

/// A headless Chromium with a fresh profile, on a phone-sized window.
pub(super) fn launch(path: std::path::PathBuf, profile: &std::path::Path) -> Browser {
    // Besides these, headless_chrome passes --headless, --no-sandbox, --disable-gpu,
    // --disable-background-networking, --disable-sync and --no-first-run; with no network
    // here, a browser that reaches out for updates or components stalls.
    let args: Vec<&OsStr> = vec![
        OsStr::new("--disable-component-update"),
        OsStr::new("--disable-domain-reliability"),
    ];
    let options = LaunchOptions {
        headless: true,
        sandbox: false,
        enable_gpu: false,
        path: Some(path),
        user_data_dir: Some(profile.to_path_buf()),
        window_size: Some((390, 844)),
        args,
        idle_browser_timeout: Duration::from_secs(300),
        ..LaunchOptions::default()
    };
    let browser = Browser::new(options).expect("start headless Chromium");
    answer_promptly(&browser);
    browser
}

/// headless_chrome reads its DevTools socket with a 100 ms timeout while it holds the lock
/// that sending a command needs, so each command waited up to 100 ms for its turn: most of
/// these tests' time, idle. The socket's receive timeout made shorter (this process's own
/// socket to this browser's DevTools port), a command waits that much at most.
fn answer_promptly(browser: &Browser) {
    let url = reqwest::Url::parse(&browser.get_ws_url()).expect("the DevTools address");
    let port = url.port().expect("the DevTools port");
    let mut found = 0;
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<libc::c_int>() else {
            continue;
        };
        if !std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        {
            continue;
        }
        // SAFETY: getpeername and setsockopt only read and write the structs passed to them;
        // an fd closed meanwhile makes them fail, and one reused names another peer.
        unsafe {
            let mut peer: libc::sockaddr_in = std::mem::zeroed();
            let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            if libc::getpeername(fd, (&raw mut peer).cast(), &mut len) != 0
                || libc::c_int::from(peer.sin_family) != libc::AF_INET
                || u16::from_be(peer.sin_port) != port
                || u32::from_be(peer.sin_addr.s_addr) != u32::from(std::net::Ipv4Addr::LOCALHOST)
            {
                continue;
            }
            let timeout = libc::timeval {
                tv_sec: 0,
                tv_usec: 3_000,
            };
            let set = libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                (&raw const timeout).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            );
            assert_eq!(set, 0, "{}", std::io::Error::last_os_error());
            found += 1;
        }
    }
    assert_eq!(found, 1, "one DevTools socket to port {port}");
}

/// The value of a JavaScript expression (awaited when it is a promise).
pub(super) fn js(tab: &Tab, expression: &str) -> Value {
    let result = tab
        .evaluate(expression, true)
        .unwrap_or_else(|e| panic!("evaluate {expression}: {e}"));
    result.value.unwrap_or(Value::Null)
}

pub(super) fn js_bool(tab: &Tab, expression: &str) -> bool {
    js(tab, expression)
        .as_bool()
        .unwrap_or_else(|| panic!("{expression} is not a boolean"))
}

pub(super) fn js_string(tab: &Tab, expression: &str) -> String {
    js(tab, expression)
        .as_str()
        .unwrap_or_else(|| panic!("{expression} is not a string"))
        .to_owned()
}

/// Clicks what `selector` names and waits until the page it leads to has loaded: the old
/// document carries a mark that the new one does not.
pub(super) fn click_and_wait(tab: &Tab, selector: &str) {
    js(tab, "window.svcTestOldPage = true");
    tab.wait_for_element(selector)
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .click()
        .unwrap_or_else(|e| panic!("click {selector}: {e}"));
    wait_for_new_page(tab, selector);
}

fn wait_for_new_page(tab: &Tab, after: &str) {
    let loaded = "window.svcTestOldPage === undefined && document.readyState === 'complete'";
    for _ in 0..600 {
        // A navigation under way can make an evaluation fail; that is "not yet".
        if tab
            .evaluate(loaded, false)
            .ok()
            .and_then(|r| r.value)
            .and_then(|v| v.as_bool())
            == Some(true)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no new page loaded after {after}");
}

pub(super) fn type_into(tab: &Tab, selector: &str, text: &str) {
    tab.wait_for_element(selector)
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .type_into(text)
        .unwrap_or_else(|e| panic!("type into {selector}: {e}"));
}

pub(super) fn path_of(tab: &Tab) -> String {
    js_string(tab, "location.pathname + location.search")
}

/// The page fits the window: nothing to scroll sideways.
pub(super) fn assert_fits(tab: &Tab, what: &str) {
    let (page, window) = (
        js(tab, "document.documentElement.scrollWidth"),
        js(tab, "window.innerWidth"),
    );
    assert!(
        page.as_f64().unwrap() <= window.as_f64().unwrap(),
        "{what}: the page is {page} px wide in a window of {window} px"
    );
}

/// The page's virtual clock: paused, and advanced by a budget at a time.
struct Clock {
    expired: mpsc::Receiver<()>,
}

impl Clock {
    fn pause(tab: &Tab) -> Clock {
        let (tx, expired) = mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        tab.add_event_listener(Arc::new(move |event: &Event| {
            if let Event::EmulationVirtualTimeBudgetExpired(_) = event {
                let _ = tx.lock().unwrap().send(());
            }
        }))
        .unwrap();
        Clock::policy(tab, Emulation::VirtualTimePolicy::Pause, None);
        Clock { expired }
    }

    fn policy(tab: &Tab, policy: Emulation::VirtualTimePolicy, budget: Option<f64>) {
        tab.call_method(Emulation::SetVirtualTimePolicy {
            policy,
            budget,
            max_virtual_time_task_starvation_count: None,
            initial_virtual_time: None,
        })
        .expect("set the virtual time policy");
    }

    /// Lets the clock run on its own again.
    fn resume(&self, tab: &Tab) {
        Clock::policy(tab, Emulation::VirtualTimePolicy::Advance, None);
    }

    /// Lets `ms` of page time pass (timers fire as they would), then pauses again.
    fn advance(&self, tab: &Tab, ms: f64) {
        Clock::policy(tab, Emulation::VirtualTimePolicy::Advance, Some(ms));
        self.expired
            .recv_timeout(Duration::from_secs(120))
            .expect("the page clock ran its budget");
    }
}

fn the_reveal_dialog_in_a_real_browser() {
    let Some(path) = chromium_or_say_why() else {
        return;
    };
    let server = Server::start();
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    // Sign up, by keyboard and mouse like a person.
    tab.navigate_to(&format!("{}/signup", server.url))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    assert_fits(&tab, "sign-up page on a phone");
    type_into(&tab, "#callsign", "w1aw");
    type_into(&tab, "#password", super::PASSWORD);
    type_into(&tab, "#confirm", super::PASSWORD);
    click_and_wait(&tab, "form[action='/signup'] button[type='submit']");
    assert_eq!(
        path_of(&tab),
        "/keys",
        "{}",
        js_string(&tab, "document.body.innerText")
    );
    assert!(js_bool(
        &tab,
        "document.body.innerText.includes('Sign out W1AW')"
    ));

    // Generate an elevated key.
    type_into(&tab, "#name", "laptop");
    tab.wait_for_element("#tier-elevated")
        .unwrap()
        .click()
        .unwrap();
    click_and_wait(&tab, "form[action='/keys'] button[type='submit']");
    tab.wait_for_element("#reveal[open]")
        .expect("the reveal dialog opens");
    assert!(
        js_bool(&tab, "document.querySelector('#reveal').matches(':modal')"),
        "the dialog is modal: the page behind it is inert"
    );
    let key = js_string(&tab, "document.getElementById('reveal-key').value");
    assert!(svc::model::ApiKey::parse(&key).is_some(), "{key:?}");
    // This history entry is now a plain GET of the list.
    assert_eq!(path_of(&tab), "/keys");
    assert_fits(&tab, "the reveal dialog on a phone");

    // The close control stays disabled until the acknowledgement; Escape and clicks do nothing.
    let close_disabled = "document.getElementById('reveal-close').disabled";
    let open = "document.getElementById('reveal').open";
    assert!(js_bool(&tab, close_disabled));
    tab.press_key("Escape").unwrap();
    assert!(
        js_bool(&tab, open),
        "Escape closed the dialog before the acknowledgement"
    );
    tab.wait_for_element("#reveal-close")
        .unwrap()
        .click()
        .unwrap();
    assert!(
        js_bool(&tab, open),
        "a click on the disabled close control closed the dialog"
    );
    assert!(js_bool(&tab, close_disabled));

    // The copy button puts the key on the clipboard.
    tab.call_method(Cdp::GrantPermissions {
        permissions: vec![
            Cdp::PermissionType::ClipboardReadWrite,
            Cdp::PermissionType::ClipboardSanitizedWrite,
        ],
        origin: Some(server.url.clone()),
        browser_context_id: None,
    })
    .unwrap();
    tab.wait_for_element("#reveal-copy")
        .unwrap()
        .click()
        .unwrap();
    tab.wait_for_xpath("//p[@id='reveal-status'][contains(., 'Copied')]")
        .expect("the copy button says it copied");
    assert_eq!(js_string(&tab, "navigator.clipboard.readText()"), key);

    // By keyboard: from the copy button, Tab reaches the acknowledgement, Space ticks it.
    let focused = "document.activeElement.id";
    assert_eq!(js_string(&tab, focused), "reveal-copy");
    tab.press_key("Tab").unwrap();
    assert_eq!(js_string(&tab, focused), "reveal-ack");
    tab.press_key(" ").unwrap();
    assert!(js_bool(
        &tab,
        "document.getElementById('reveal-ack').checked"
    ));
    assert!(
        !js_bool(&tab, close_disabled),
        "the acknowledgement enables close"
    );
    // Focus stays in the dialog however far one tabs, forwards or back.
    for shift in [
        false, false, false, false, false, true, true, true, true, true,
    ] {
        let modifiers: &[ModifierKey] = if shift { &[ModifierKey::Shift] } else { &[] };
        tab.press_key_with_modifiers("Tab", Some(modifiers))
            .unwrap();
        assert!(
            js_bool(
                &tab,
                "document.getElementById('reveal').contains(document.activeElement)"
            ),
            "focus left the dialog for {}",
            js_string(&tab, "document.activeElement.outerHTML")
        );
    }

    // The key disappears 90 s after the dialog opened, on the page's own clock. The countdown
    // tells how much of the 90 s is left; run the clock to just before that, then past it.
    let clock = Clock::pause(&tab);
    let timer = js_string(&tab, "document.getElementById('reveal-timer').textContent");
    let left: f64 = timer
        .trim_start_matches("Disappears in ")
        .trim_end_matches(" s.")
        .parse()
        .unwrap_or_else(|_| panic!("countdown {timer:?}"));
    assert!((80.0..=90.0).contains(&left), "{timer}");
    clock.advance(&tab, (left - 1.0) * 1000.0 - 500.0);
    assert_eq!(
        js_string(&tab, "document.getElementById('reveal-key').value"),
        key,
        "the key went before its 90 s were up"
    );
    let timer = js_string(&tab, "document.getElementById('reveal-timer').textContent");
    assert!(
        timer == "Disappears in 1 s." || timer == "Disappears in 2 s.",
        "{timer}"
    );
    clock.advance(&tab, 1750.0);
    assert!(
        js_bool(&tab, "document.getElementById('reveal-key') === null"),
        "the key is still in the page after 90 s"
    );
    assert!(!js_bool(
        &tab,
        &format!("document.documentElement.outerHTML.includes('{key}')")
    ));
    assert!(
        js_string(&tab, "document.getElementById('reveal-status').textContent")
            .contains("removed from this page 90 seconds")
    );
    assert!(js_bool(&tab, open), "blanking does not close the dialog");
    // Input waits on the page's clock: let it run again to click.
    clock.resume(&tab);
    tab.wait_for_element("#reveal-close")
        .unwrap()
        .click()
        .unwrap();
    assert!(!js_bool(&tab, open), "the acknowledged dialog closes");

    // A fresh tab (real time again), same session: the list has the key, never its plaintext.
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));
    tab.navigate_to(&format!("{}/keys", server.url))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let content = tab.get_content().unwrap();
    assert!(!content.contains(&key));
    assert!(
        content.contains(&key[..12]),
        "the list shows the key's prefix"
    );
    assert!(
        tab.find_element("#reveal").is_err(),
        "no dialog on the list"
    );
    assert_fits(&tab, "the keys list on a phone");

    // Reloading the page that revealed a key shows the list, makes no key and shows none.
    type_into(&tab, "#name", "phone");
    click_and_wait(&tab, "form[action='/keys'] button[type='submit']");
    tab.wait_for_element("#reveal[open]").unwrap();
    let second = js_string(&tab, "document.getElementById('reveal-key').value");
    js(&tab, "window.svcTestOldPage = true");
    tab.reload(false, None).unwrap();
    wait_for_new_page(&tab, "the reload");
    let content = tab.get_content().unwrap();
    assert!(!content.contains(&second), "a reload showed the key again");
    assert!(tab.find_element("#reveal").is_err());
    assert_eq!(
        content.matches("<tr id=\"key_").count(),
        2,
        "a reload made a key"
    );

    // On a desktop window the pages fit as well.
    tab.set_bounds(Bounds::Normal {
        left: None,
        top: None,
        width: Some(1280.0),
        height: Some(800.0),
    })
    .unwrap();
    assert_fits(&tab, "the keys list on a desktop");

    // The real client with the key.
    let cli = Cli::new(&server.url);
    cli.set_env("SVC_API_KEY", &key);
    cli.secret(&key);
    let run = cli.run(&["whoami", "--json"]);
    run.ok();
    assert_eq!(run.json()["callsign"], "W1AW");
    assert_eq!(run.json()["tier"], "elevated");

    // Revoke it in the page, through the confirmation.
    let id = js_string(
        &tab,
        &format!(
            "[...document.querySelectorAll('tbody tr')].find(r => r.textContent.includes('{}')).id",
            &key[..12]
        ),
    );
    click_and_wait(&tab, &format!("a[href='/keys/{id}/revoke']"));
    assert_eq!(path_of(&tab), format!("/keys/{id}/revoke"));
    click_and_wait(&tab, "button.danger");
    assert_eq!(path_of(&tab), format!("/keys?revoked={id}"));
    assert!(js_bool(
        &tab,
        "document.body.innerText.includes('is revoked')"
    ));

    // The client's next request is refused: exit 3, key_revoked.
    let run = cli.run(&["whoami"]);
    let message = run.fails(3, "whoami", "key_revoked");
    assert!(message.contains("revoked"), "{message}");
    // The other key still works.
    cli.set_env("SVC_API_KEY", &second);
    cli.secret(&second);
    cli.run(&["whoami"]).ok();
}

/// Signs in on the sign-in page, connects a QRZ book through the form, sees it working, and
/// keeps a screenshot of the page.
fn a_logbook_is_connected_in_a_real_browser() {
    let Some(path) = chromium_or_say_why() else {
        return;
    };
    let qrz = FakeQrz::start();
    qrz.add_book(QRZ_KEY, "W1AW");
    let (server, _secret) = crate::common::qrz::server(&qrz, &[]);
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(super::PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    tab.navigate_to(&format!("{}/logbooks", server.url))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    assert_eq!(path_of(&tab), "/signin?next=/logbooks");
    type_into(&tab, "#callsign", "w1aw");
    type_into(&tab, "#password", super::PASSWORD);
    click_and_wait(&tab, "form[action='/signin'] button[type='submit']");
    assert_eq!(path_of(&tab), "/logbooks");

    type_into(&tab, "#apiKey", QRZ_KEY);
    click_and_wait(&tab, "form[action='/logbooks'] button[type='submit']");
    assert!(path_of(&tab).starts_with("/logbooks?connected=lbk_"));
    let text = js_string(&tab, "document.querySelector('section.logbook').innerText");
    for says in ["QRZ.com logbook of W1AW", "Working", "…7788"] {
        assert!(text.contains(says), "{says}: {text}");
    }
    assert!(!tab.get_content().unwrap().contains(QRZ_KEY));
    assert_fits(&tab, "the logbooks page on a phone");

    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("a screenshot");
    let shot = tempfile::Builder::new().suffix(".png").tempfile().unwrap();
    std::fs::write(shot.path(), &png).unwrap();
    let saved = std::fs::read(shot.path()).unwrap();
    assert!(saved.len() > 8, "an empty screenshot");
    assert_eq!(&saved[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
}

/// Signs in from the activations page, sees a two-fer's parks named after a reload, on a phone.
fn the_activations_page_in_a_real_browser() {
    let Some(path) = chromium_or_say_why() else {
        return;
    };
    let pota = FakePota::start();
    let server = Server::start_with(&["--pota-api-url", &pota.url()]);
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(super::PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let api = server.new_key("W1AW", "basic");
    let r = api.post(
        "/v1/activations",
        serde_json::json!({"locationReference": "US-0001,VE-0123", "callsign": "W1AW",
            "startTime": "2025-06-14T12:00:00Z"}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let folder = r.id();
    for n in 0..10 {
        let r = api.post(
            "/v1/contacts",
            serde_json::json!({"folderId": folder, "callsign": format!("K{n}ABC"),
                "frequency": 14.074, "mode": "FT8", "timeOn": format!("2025-06-14T12:{n:02}:30Z")}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    let page = format!("{}/activations", server.url);
    tab.navigate_to(&page)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    assert_eq!(path_of(&tab), "/signin?next=/activations");
    type_into(&tab, "#callsign", "w1aw");
    type_into(&tab, "#password", super::PASSWORD);
    click_and_wait(&tab, "form[action='/signin'] button[type='submit']");
    assert_eq!(path_of(&tab), "/activations");

    // Empty while the page reloads (the row not there yet), and read again.
    let parks = "(document.querySelector('table.activations tbody th') || {}).innerText || ''";
    let mut named = String::new();
    for _ in 0..100 {
        named = js_string(&tab, parks);
        if named.contains("Algonquin") && named.contains("Acadia") {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        tab.navigate_to(&page)
            .unwrap()
            .wait_until_navigated()
            .unwrap();
    }
    for says in [
        "US-0001 Acadia National Park, US-ME",
        "VE-0123 Algonquin Provincial Park, CA-ON",
    ] {
        assert!(named.contains(says), "{says}: {named}");
    }
    let row = js_string(
        &tab,
        "document.querySelector('table.activations tbody tr').innerText",
    );
    assert!(row.contains("10 of 10, reached"), "{row}");
    assert_fits(&tab, "the activations page on a phone");

    // A park opens the activation: its contacts and each park's POTA file.
    click_and_wait(&tab, "table.activations tbody a.ref");
    assert_eq!(path_of(&tab), format!("/activations/{folder}"));
    let links = js_string(
        &tab,
        "[...document.querySelectorAll('p.downloads a')].map(a => a.getAttribute('download')).join(' ')",
    );
    assert_eq!(links, "W1AW@US-0001-20250614.adi W1AW@VE-0123-20250614.adi");
    let rows = js(
        &tab,
        "document.querySelectorAll('table.log tbody tr').length",
    );
    assert_eq!(rows, serde_json::json!(10));
    assert_fits(&tab, "an activation's page on a phone");
    screenshot(&tab, "activation-phone.png");

    // The account page's station profile form, filled in and saved.
    tab.navigate_to(&format!("{}/account", server.url))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    type_into(&tab, "#myGridsquare", "FN31pr");
    type_into(&tab, "#myState", "CT");
    type_into(&tab, "#txPwr", "100");
    click_and_wait(&tab, "#station-form button[type='submit']");
    assert_eq!(path_of(&tab), "/account?notice=station-saved");
    let saved = js_string(
        &tab,
        "document.querySelector('table.stations tbody tr').innerText",
    );
    assert!(saved.contains("FN31pr") && saved.contains("CT"), "{saved}");
    assert_fits(&tab, "the account page on a phone");
    screenshot(&tab, "account-phone.png");
}

/// Saves a screenshot of the tab as `name` in the tests' directory under target/, for a person
/// to look at, and checks that it is a PNG.
pub(super) fn screenshot(tab: &Tab, name: &str) {
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("a screenshot");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, &png).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
}

/// Signs in and lands on the log; its table of contacts, long names and all, fits a phone and
/// a desktop, with screenshots of both.
fn the_log_in_a_real_browser() {
    let Some(path) = chromium_or_say_why() else {
        return;
    };
    let server = Server::start();
    let out = crate::common::admin_on(
        &server.db.url,
        &["user", "add", "W1AW", "--password-stdin"],
        Some(super::PASSWORD),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let api = server.new_key("W1AW", "basic");
    let folder = api.monthly("2025-06", Some("pota"));
    for n in 0..12 {
        let r = api.post(
            "/v1/contacts",
            serde_json::json!({"folderId": folder, "callsign": format!("K{n}ABC/P"),
                "frequency": 14.0745, "mode": "SSB", "timeOn": format!("2025-06-14T12:{n:02}:30Z"),
                "rstSent": "59", "rstReceived": "57", "sig": "POTA", "sigInfo": "US-0001",
                "name": "Bartholomew Alexander Fitzgerald-Montgomery the Third"}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(path, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(Duration::from_secs(30));

    tab.navigate_to(&format!("{}/signin", server.url))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    type_into(&tab, "#callsign", "w1aw");
    type_into(&tab, "#password", super::PASSWORD);
    click_and_wait(&tab, "form[action='/signin'] button[type='submit']");
    assert_eq!(path_of(&tab), "/log");
    let rows = js(
        &tab,
        "document.querySelectorAll('table.log tbody tr').length",
    );
    assert_eq!(rows.as_u64(), Some(12));
    let row = js_string(
        &tab,
        "document.querySelector('table.log tbody tr').innerText",
    );
    for says in ["K11ABC/P", "20m", "SSB", "14.0745", "59/57", "US-0001"] {
        assert!(row.contains(says), "{says}: {row}");
    }
    assert_fits(&tab, "the log on a phone");
    screenshot(&tab, "log-phone.png");

    tab.set_bounds(Bounds::Normal {
        left: None,
        top: None,
        width: Some(1280.0),
        height: Some(800.0),
    })
    .unwrap();
    assert_fits(&tab, "the log on a desktop");
    screenshot(&tab, "log-desktop.png");

    // A row's call opens the contact, whose form fits a phone too.
    click_and_wait(&tab, "table.log tbody tr a");
    assert!(path_of(&tab).starts_with("/log/qso_"), "{}", path_of(&tab));
    tab.set_bounds(Bounds::Normal {
        left: None,
        top: None,
        width: Some(390.0),
        height: Some(844.0),
    })
    .unwrap();
    assert_fits(&tab, "a contact on a phone");
    screenshot(&tab, "contact-phone.png");
}

crate::both_backends!(
    the_log_in_a_real_browser,
    the_reveal_dialog_in_a_real_browser,
    a_logbook_is_connected_in_a_real_browser,
    the_activations_page_in_a_real_browser,
);
