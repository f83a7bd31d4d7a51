use super::*;

#[test]
fn every_shipped_contest_is_read() {
    for (name, text) in SHIPPED {
        if let Err(e) = Contest::from_file(name, text) {
            panic!("{e}");
        }
    }
    assert_eq!(Contest::shipped().len(), SHIPPED.len());
    // Every file of the folder is shipped: one added there and not to SHIPPED is not lost.
    let mut files: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/data/contests"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
    files.sort();
    let mut listed: Vec<&str> = SHIPPED.iter().map(|(name, _)| *name).collect();
    listed.sort();
    assert_eq!(files, listed);
    // The file is named after its id, as a ham copying one would look for it.
    for ((name, _), contest) in SHIPPED.iter().zip(Contest::shipped()) {
        assert_eq!(
            name.trim_end_matches(".toml"),
            contest.id.to_ascii_lowercase(),
            "{name}"
        );
    }
    let mut ids: Vec<&str> = Contest::shipped().iter().map(|c| c.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), SHIPPED.len(), "ids are unique");
}

#[test]
fn a_contest_is_found_by_its_id_or_its_adif_contest_id() {
    assert_eq!(Contest::find("arrl-fd").unwrap().name, "ARRL Field Day");
    assert_eq!(Contest::find(" ARRL-FIELD-DAY ").unwrap().id, "ARRL-FD");
    assert_eq!(Contest::find("cq-ww-cw").unwrap().dupes, Dupes::Band);
    assert!(Contest::find("CQ-WW").is_none());
}

#[test]
fn field_days_exchange_is_read_into_its_adif_fields() {
    let fd = Contest::find("ARRL-FD").unwrap();
    assert_eq!(
        fd.read_exchange(" 2a  ct ").unwrap(),
        vec![("CLASS", "2A".to_owned()), ("ARRL_SECT", "CT".to_owned())]
    );
    assert_eq!(fd.read_exchange("1D DX").unwrap()[1].1, "DX");
    // A section of before RAC's change is still read: other stations' software sends it.
    assert_eq!(fd.read_exchange("3A GTA").unwrap()[1].1, "GTA");
    let wrong = fd.read_exchange("2G CT").unwrap_err().to_string();
    assert!(
        wrong.contains("class \"2G\"") && wrong.contains("A to F"),
        "{wrong}"
    );
    let wrong = fd.read_exchange("2A XX").unwrap_err().to_string();
    assert!(wrong.contains("section \"XX\""), "{wrong}");
    let short = fd.read_exchange("2A").unwrap_err().to_string();
    assert!(
        short.contains("class, section") && short.contains("2A CT"),
        "{short}"
    );
    assert_eq!(
        fd.points,
        Points::ByMode(
            [
                (CabrilloMode::CW, 2),
                (CabrilloMode::DG, 2),
                (CabrilloMode::PH, 1),
                (CabrilloMode::FM, 1)
            ]
            .into()
        )
    );
}

#[test]
fn an_optional_last_field_may_be_left_out() {
    let rtty = Contest::find("CQ-WW-RTTY").unwrap();
    assert_eq!(rtty.read_exchange("599 5 MA").unwrap().len(), 3);
    assert_eq!(
        rtty.read_exchange("599 14").unwrap(),
        vec![("RST_RCVD", "599".to_owned()), ("CQZ", "14".to_owned())]
    );
    assert!(rtty.read_exchange("599").is_err());
    assert!(rtty.read_exchange("599 14 MA X").is_err());
}

#[test]
fn each_check_reads_what_its_contests_send_and_nothing_else() {
    /// A check, what it reads and keeps, and what it refuses.
    type Case = (
        Check,
        &'static [(&'static str, &'static str)],
        &'static [&'static str],
    );
    let cases: &[Case] = &[
        (
            Check::Rst,
            &[("599", "599"), ("59", "59")],
            &["5", "5999", "699", "5NN", "50"],
        ),
        (
            Check::Serial,
            &[("001", "1"), ("1234", "1234")],
            &["0", "100000", "12a", ""],
        ),
        (
            Check::Section,
            &[("ema", "EMA"), ("ONE", "ONE"), ("MAR", "MAR")],
            &["DX", "MA", "X"],
        ),
        (Check::SectionOrDx, &[("dx", "DX"), ("WWA", "WWA")], &["D"]),
        (
            Check::FieldDayClass,
            &[("2a", "2A"), ("12F", "12F"), ("02A", "2A")],
            &["0A", "A", "2G", "100A", "2"],
        ),
        (
            Check::WinterFieldDayClass,
            &[("1o", "1O"), ("3M", "3M")],
            &["1A", "O"],
        ),
        (
            Check::CqZone,
            &[("05", "5"), ("40", "40")],
            &["0", "41", "E"],
        ),
        (Check::Precedence, &[("a", "A"), ("S", "S")], &["C", "AB"]),
        (
            Check::Check,
            &[("72", "72"), ("05", "05")],
            &["5", "1972", "7a"],
        ),
        (
            Check::StateProvince,
            &[("ma", "MA"), ("DC", "DC"), ("ON", "ON")],
            &["XX", "ONE"],
        ),
        (
            Check::Power,
            &[("100", "100"), ("KW", "1000"), ("5w", "5")],
            &["0", "K2", "lots"],
        ),
        (
            Check::Name,
            &[("bob", "BOB")],
            &["B0B", "", "ABCDEFGHIJKLM"],
        ),
        (
            Check::Prefix,
            &[("kp4", "KP4"), ("XE", "XE")],
            &["123", "ABCDE"],
        ),
    ];
    for (check, good, bad) in cases {
        for (raw, kept) in *good {
            assert_eq!(check.read(raw).as_deref(), Some(*kept), "{check:?} {raw}");
        }
        for raw in *bad {
            assert_eq!(check.read(raw), None, "{check:?} {raw}");
        }
    }
}

#[test]
fn a_contest_file_that_is_wrong_says_what_to_fix() {
    let base = include_str!("../../data/contests/serial.toml");
    let cases = [
        (
            base.replace("dupes = \"band-mode\"", "dupes = \"day\""),
            "unknown variant",
        ),
        (base.replace("\"6m\"", "\"6 m\""), "not a band"),
        (
            base.replace("check = [\"serial\"]", "check = [\"serials\"]"),
            "serials",
        ),
        (
            base.replace("example = \"1\"", "example = \"one\""),
            "not a serial number",
        ),
        (
            base.replace("field = \"SRX\"", "field = \"srx\""),
            "not an ADIF field name",
        ),
        (
            base.replace("[points]", "colour = \"red\"\n[points]"),
            "unknown field",
        ),
        (base.replace("DG = 1\n", ""), "no points for DG"),
        (
            base.replace("check = [\"rst\"]", "check = [\"rst\"]\noptional = true"),
            "last fields",
        ),
    ];
    for (text, says) in cases {
        let e = Contest::from_file("mine.toml", &text).unwrap_err();
        assert!(
            e.starts_with("mine.toml") && e.contains(says),
            "{says}: {e}"
        );
    }
}

#[test]
fn a_contacts_mode_is_cabrillos() {
    for (mode, cabrillo) in [
        ("CW", CabrilloMode::CW),
        ("ssb", CabrilloMode::PH),
        ("USB", CabrilloMode::PH),
        ("AM", CabrilloMode::PH),
        ("FM", CabrilloMode::FM),
        ("DIGITALVOICE", CabrilloMode::PH),
        ("RTTY", CabrilloMode::RY),
        ("FT8", CabrilloMode::DG),
        ("FT4", CabrilloMode::DG),
        ("PSK31", CabrilloMode::DG),
        ("SOMETHING", CabrilloMode::DG),
    ] {
        assert_eq!(CabrilloMode::of(mode), cabrillo, "{mode}");
    }
}

#[test]
fn a_frequency_is_whole_khz_on_hf_and_the_bands_designator_above() {
    assert_eq!(cabrillo_frequency(14.0255, "20m"), "14025");
    for (mhz, khz) in [
        (14.025, "14025"),
        (7.0, "7000"),
        (3.5, "3500"),
        (21.3, "21300"),
    ] {
        assert_eq!(cabrillo_frequency(mhz, "hf"), khz);
    }
    assert_eq!(cabrillo_frequency(1.8305, "160m"), "1830");
    assert_eq!(cabrillo_frequency(28.4, "10m"), "28400");
    assert_eq!(cabrillo_frequency(50.313, "6m"), "50");
    assert_eq!(cabrillo_frequency(146.52, "2M"), "144");
    assert_eq!(cabrillo_frequency(1296.1, "23cm"), "1.2G");
    assert_eq!(cabrillo_frequency(10368.1, "3cm"), "10G");
}

#[test]
fn duplicates_follow_the_contests_rule() {
    let fd = Contest::find("ARRL-FD").unwrap();
    let ss = Contest::find("ARRL-SS-CW").unwrap();
    let ww = Contest::find("CQ-WW-CW").unwrap();
    // Field Day: FM and SSB are both phone; CW and FT8 are not.
    assert_eq!(
        fd.dupe_key("w1aw", "20m", "SSB"),
        fd.dupe_key("W1AW ", "20M", "FM")
    );
    assert_ne!(
        fd.dupe_key("W1AW", "20m", "CW"),
        fd.dupe_key("W1AW", "20m", "FT8")
    );
    assert_ne!(
        fd.dupe_key("W1AW", "20m", "CW"),
        fd.dupe_key("W1AW", "40m", "CW")
    );
    // Sweepstakes: once in the contest.
    assert_eq!(
        ss.dupe_key("W1AW", "20m", "CW"),
        ss.dupe_key("W1AW", "40m", "CW")
    );
    // CQ WW: once a band.
    assert_ne!(
        ww.dupe_key("W1AW", "20m", "CW"),
        ww.dupe_key("W1AW", "40m", "CW")
    );
    assert_ne!(
        ww.dupe_key("W1AW", "20m", "CW"),
        ww.dupe_key("W1AW/P", "20m", "CW")
    );
}
