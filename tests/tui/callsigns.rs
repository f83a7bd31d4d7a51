//! Who the call being typed is, in the real `svc` in a pseudo-terminal: the entity and zones
//! from the country file, the known calls holding what is typed (the log's own first), and a
//! newer list read from the data directory.

use super::terminal::Tui;
use crate::cli::{monthly, setup};

#[test]
fn the_form_shows_the_entity_and_partial_matches_while_typing() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    // A list of the operator's own, in the data directory, as contesters keep theirs fresh.
    let dir = cli.data_dir().join("svc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("MASTER.SCP"), "# test list\nK1ABC\nK1ABD\nW1AW\n").unwrap();
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    tui.wait_for("QSOs 0/200");
    tui.wait_for(&format!("  {}  ", crate::common::this_month().0));
    tui.keys("\x1b[F\r");
    tui.wait_for("No contacts yet");
    tui.keys("k1ab");
    tui.wait_for("United States · NA · CQ 5 · ITU 8");
    tui.wait_for("SCP 1 K1ABC 2 K1ABD");
    // Logged here, a call comes before the list's.
    tui.keys("x\t14.074\tft8\r");
    tui.wait_for("logged K1ABX");
    tui.keys("1ab");
    let screen = tui.wait_for("SCP 1 K1ABX 2 K1ABC 3 K1ABD");
    assert!(!screen.contains("K1ABX 2 K1ABX"), "{screen}");
    // Alt-1 picks the log's own call, which the day's duplicate check then finds.
    tui.keys("\x1b1");
    tui.wait_for("duplicate: K1ABX 20m FT8 logged today");
    // Alt-5 names a call the line does not have: the form stays as it was.
    tui.keys("\x1b5");
    tui.wait_for("the partial list has no call 5");
    // A portable call elsewhere: the entity of where the station is.
    tui.keys("\x1bwkh6/w1aw");
    tui.wait_for("Hawaii · OC · CQ 31 · ITU 61");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}

#[test]
fn a_logged_call_shows_its_country_at_once() {
    let (_server, api, cli) = setup("elevated");
    let folder = monthly(&api);
    let mut tui = Tui::start(&cli, &["tui"], &[]);
    // Wide enough for the Country column.
    tui.resize(30, 120);
    tui.wait_for(&format!("  {}  ", crate::common::this_month().0));
    tui.keys("\x1b[F\r");
    tui.wait_for("No contacts yet");
    tui.keys("ja1abc");
    tui.wait_for("Japan · AS · CQ 25 · ITU 45");
    tui.keys("\t14.074\tft8\r");
    tui.wait_for("logged JA1ABC");
    // The form is clear (no entity line): the country is the row's, not read again.
    let screen = tui.wait_until("the row's country", |s| {
        s.contains("Japan") && !s.contains("· AS ·")
    });
    assert!(screen.contains("JA1ABC"), "{screen}");
    tui.wait_for("0 waiting");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
    let stored = api.contacts(&folder);
    assert_eq!(stored[0]["country"], "Japan", "{stored:?}");
}

#[test]
fn a_country_file_that_cannot_be_read_is_said_and_the_shipped_one_used() {
    let (_server, api, cli) = setup("elevated");
    monthly(&api);
    let bad = cli.home.path().join("cty.csv");
    std::fs::write(&bad, "W,Testland,abc,NA,4,7,0,0,0,W;\n").unwrap();
    let mut tui = Tui::start(&cli, &["tui", "--cty", bad.to_str().unwrap()], &[]);
    tui.wait_for("line 1");
    tui.wait_for("the shipped copy is used");
    tui.wait_for(&format!("  {}  ", crate::common::this_month().0));
    tui.keys("\x1b[F\r");
    tui.keys("dl1abc");
    tui.wait_for("Fed. Rep. of Germany · EU · CQ 14 · ITU 28");
    tui.quit();
    assert_eq!(tui.exit_code(), 0);
}
