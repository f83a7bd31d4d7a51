//! The callbook in the real `svc` in a pseudo-terminal, against the callbooks' stand-in: a
//! complete call fills the name and grid the operator did not type, never over what was
//! typed, and a callbook that stalls holds up nothing.

use super::terminal::Tui;
use crate::cli::{monthly, setup};
use crate::common::callbook::FakeCallbook;

const PASSWORD: &str = "s3cret pw&;!";

#[test]
fn a_looked_up_call_fills_the_form_but_never_what_was_typed() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let book = FakeCallbook::start();
    book.add_user("W1AW", PASSWORD, true);
    cli.set_env("SVC_NO_KEYRING", "1");
    cli.set_env("SVC_QRZ_XML_URL", &book.qrz_url());
    cli.secret(PASSWORD);
    cli.run_stdin(
        &[
            "lookup",
            "connect",
            "qrz",
            "--user",
            "W1AW",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
    )
    .ok();
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.wait_for(&format!("  {}  ", crate::common::this_month().0));
    tui.keys("\x1b[F\r");
    tui.wait_for("No contacts yet");
    // Typing pauses on a complete call: the callbook fills what was not typed.
    tui.keys("w1aw");
    let screen = tui.wait_for("Name      Hiram Percy Maxim");
    assert!(screen.contains("Grid      FN31pr"), "{screen}");
    assert!(screen.contains("Newington, CT (QRZ)"), "{screen}");
    tui.keys("\t14.074\tft8\r");
    tui.wait_for("logged W1AW");
    tui.wait_for("0 waiting");
    let stored = api.all_contacts(&folder);
    let c = &stored[0];
    assert_eq!(
        serde_json::json!([
            c["name"],
            c["gridsquare"],
            c["qth"],
            c["state"],
            c["country"]
        ]),
        serde_json::json!([
            "Hiram Percy Maxim",
            "FN31pr",
            "Newington",
            "CT",
            "United States"
        ])
    );
    // A name typed while the lookup is under way stays the operator's.
    tui.keys("ok1vbr\t\t\t\t\tJoe");
    tui.wait_for("Neratovice (QRZ)");
    let screen = tui.wait_for("Name      Joe");
    assert!(!screen.contains("Petr"), "{screen}");
    assert!(
        screen.contains("Grid      jo70gg") || screen.contains("Grid      JO70gg"),
        "{screen}"
    );
    tui.keys("\r");
    tui.wait_for("logged OK1VBR");
    // A callbook that never answers holds up nothing: the next contact logs at once.
    book.stall();
    tui.keys("k1abc\t");
    tui.keys("\r");
    tui.wait_for("logged K1ABC");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}
