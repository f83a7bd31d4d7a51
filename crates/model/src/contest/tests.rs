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
    // Every name a contest goes by (id, ADIF CONTEST_ID, aliases) names it alone.
    let mut names: Vec<String> = Contest::shipped()
        .iter()
        .flat_map(|c| {
            let mut own = vec![c.id.to_ascii_uppercase()];
            own.extend(
                std::iter::once(&c.adif)
                    .chain(&c.aliases)
                    .map(|n| n.to_ascii_uppercase())
                    .filter(|n| *n != c.id.to_ascii_uppercase()),
            );
            own
        })
        .collect();
    let all = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), all, "each name names one contest");
}

#[test]
fn a_contest_is_found_by_its_id_or_its_adif_contest_id() {
    assert_eq!(Contest::find("arrl-fd").unwrap().name, "ARRL Field Day");
    assert_eq!(Contest::find(" ARRL-FIELD-DAY ").unwrap().id, "ARRL-FD");
    assert_eq!(Contest::find("fd").unwrap().id, "ARRL-FD");
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

#[test]
fn wpx_prefixes_as_cq_counts_them() {
    for (call, prefix) in [
        ("w1aw", "W1"),
        ("WD8ABC", "WD8"),
        ("9A1A", "9A1"),
        ("LY1000ABC", "LY1000"),
        ("3DA0XYZ", "3DA0"),
        ("2E0ABC", "2E0"),
        ("N8BJQ/KH9", "KH9"),
        ("KH9/N8BJQ", "KH9"),
        ("OH2AAA/7", "OH7"),
        ("PA/N8BJQ", "PA0"),
        ("XEFTJW", "XE0"),
        ("W1AW/P", "W1"),
        ("K1ABC/MM", "K1"),
    ] {
        assert_eq!(wpx_prefix(call).as_deref(), Some(prefix), "{call}");
    }
    assert_eq!(wpx_prefix(""), None);
    assert_eq!(wpx_prefix("W1 AW"), None);
}

/// W1AW in the USA (North America, zone 5).
fn at_home() -> Whereabouts {
    Whereabouts {
        dxcc: 291,
        continent: crate::dxcc::Continent::NorthAmerica,
        cq_zone: 5,
    }
}

fn worked(dxcc: u16, continent: crate::dxcc::Continent, cq_zone: u8) -> Option<Whereabouts> {
    Some(Whereabouts {
        dxcc,
        continent,
        cq_zone,
    })
}

#[test]
fn field_day_counts_points_by_mode_and_each_call_once_a_band_and_mode() {
    let fd = Contest::find("ARRL-FD").unwrap();
    let mut log = Tally::new(fd, Some(at_home()));
    let received = fd.read_exchange("2A CT").unwrap();
    let qso = |call, band, mode| Scored {
        callsign: call,
        band,
        mode,
        received: &received,
        worked: None,
    };
    assert_eq!(log.add(&qso("K1ABC", "20m", "CW")).points, 2);
    assert_eq!(log.add(&qso("K1ABC", "20m", "USB")).points, 1);
    assert_eq!(log.add(&qso("K1ABC", "20m", "FT8")).points, 2);
    // Phone again, FM this time: a dupe.
    let again = log.add(&qso("k1abc", "20m", "FM"));
    assert!(again.dupe && again.points == 0, "{again:?}");
    assert!(log.judge(&qso("K1ABC", "20m", "CW")).dupe);
    assert!(!log.judge(&qso("K1ABC", "40m", "CW")).dupe);
    assert_eq!((log.qsos(), log.points(), log.multipliers()), (3, 5, 0));
    // No multipliers: the score is the points (the power multiplier and bonus are the station's).
    assert_eq!(log.score(), 5);
}

#[test]
fn cq_ww_counts_points_by_where_the_station_is_and_zones_and_entities_a_band() {
    use crate::dxcc::Continent::{Europe, NorthAmerica};
    let ww = Contest::find("CQ-WW-CW").unwrap();
    let mut log = Tally::new(ww, Some(at_home()));
    let zone = |z: &str| ww.read_exchange(&format!("599 {z}")).unwrap();
    let (z5, z4, z14) = (zone("5"), zone("04"), zone("14"));
    let home = log.add(&Scored {
        callsign: "K2ABC",
        band: "20m",
        mode: "CW",
        received: &z5,
        worked: worked(291, NorthAmerica, 5),
    });
    assert_eq!(home.points, 0, "own entity: no points, but its multipliers");
    assert_eq!(
        home.new_mults,
        ["zone 5 on 20m", "UNITED STATES OF AMERICA on 20m"]
    );
    let canada = Scored {
        callsign: "VE3ABC",
        band: "20m",
        mode: "CW",
        received: &z4,
        worked: worked(1, NorthAmerica, 4),
    };
    let judged = log.judge(&canada);
    assert_eq!(judged.points, 2, "between North Americans");
    assert_eq!(judged.new_mults, ["zone 4 on 20m", "CANADA on 20m"]);
    log.add(&canada);
    let germany = |band| Scored {
        callsign: "DL1ABC",
        band,
        mode: "CW",
        received: &z14,
        worked: worked(230, Europe, 14),
    };
    assert_eq!(log.add(&germany("20m")).points, 3);
    // The same call on another band counts again, with that band's multipliers.
    let forty = log.add(&germany("40m"));
    assert_eq!(forty.points, 3);
    assert_eq!(
        forty.new_mults,
        ["zone 14 on 40m", "FEDERAL REPUBLIC OF GERMANY on 40m"]
    );
    assert!(log.judge(&germany("40m")).dupe);
    // A zone already worked on the band is no new multiplier.
    let another_dl = Scored {
        callsign: "DL2ABC",
        ..germany("20m")
    };
    assert!(log.judge(&another_dl).new_mults.is_empty());
    assert_eq!((log.qsos(), log.points(), log.multipliers()), (4, 8, 8));
    assert_eq!(log.score(), 64);
}

#[test]
fn wpx_doubles_the_low_bands_and_counts_each_prefix_once() {
    use crate::dxcc::Continent::Europe;
    let wpx = Contest::find("CQ-WPX-CW").unwrap();
    let mut log = Tally::new(wpx, Some(at_home()));
    let exchange = wpx.read_exchange("599 1").unwrap();
    let dl = |call, band| Scored {
        callsign: call,
        band,
        mode: "CW",
        received: &exchange,
        worked: worked(230, Europe, 14),
    };
    let first = log.add(&dl("DL1ABC", "20m"));
    assert_eq!(
        (first.points, first.new_mults.as_slice()),
        (3, &["prefix DL1".to_owned()][..])
    );
    let low = log.add(&dl("DL1XYZ", "40m"));
    assert_eq!(low.points, 6);
    assert!(
        low.new_mults.is_empty(),
        "DL1 counted once, whatever the band"
    );
    assert_eq!(log.score(), 9);
}

#[test]
fn sweepstakes_counts_each_section_once() {
    let ss = Contest::find("ARRL-SS-CW").unwrap();
    let mut log = Tally::new(ss, Some(at_home()));
    let ct = ss.read_exchange("12 A 99 CT").unwrap();
    let qso = |call, band| Scored {
        callsign: call,
        band,
        mode: "CW",
        received: &ct,
        worked: None,
    };
    assert_eq!(log.add(&qso("K1ABC", "20m")).new_mults, ["section CT"]);
    assert!(log.add(&qso("K1ABC", "40m")).dupe, "once in the contest");
    assert!(log.add(&qso("W1XYZ", "40m")).new_mults.is_empty());
    assert_eq!((log.points(), log.multipliers(), log.score()), (4, 1, 4));
}

#[test]
fn arrl_dx_counts_the_dx_entities_and_the_states_a_band() {
    use crate::dxcc::Continent::{Europe, NorthAmerica};
    let dx = Contest::find("ARRL-DX-CW").unwrap();
    // W1AW's log: the DX it works, each entity a band.
    let mut w = Tally::new(dx, Some(at_home()));
    let power = dx.read_exchange("599 KW").unwrap();
    let dl = w.add(&Scored {
        callsign: "DL1ABC",
        band: "20m",
        mode: "CW",
        received: &power,
        worked: worked(230, Europe, 14),
    });
    assert_eq!(
        (dl.points, dl.new_mults.as_slice()),
        (3, &["FEDERAL REPUBLIC OF GERMANY on 20m".to_owned()][..])
    );
    // DL1ABC's log: the states it works, and no entity for the USA.
    let mut d = Tally::new(dx, worked(230, Europe, 14));
    let ct = dx.read_exchange("599 CT").unwrap();
    let w1 = d.add(&Scored {
        callsign: "W1AW",
        band: "20m",
        mode: "CW",
        received: &ct,
        worked: worked(291, NorthAmerica, 5),
    });
    assert_eq!(w1.new_mults, ["state CT on 20m"]);
    assert_eq!(d.score(), 3);
}

#[test]
fn every_exchange_field_is_one_a_contact_keeps_by_name() {
    // A received exchange is kept in the contact's own fields: a declared field, or the
    // report and name every contact has. One kept in the `adif` map instead would be lost to
    // the forms and to Cabrillo.
    for contest in Contest::shipped() {
        for field in &contest.exchange {
            assert!(
                crate::fields::Field::by_adif(&field.field).is_some()
                    || ["RST_RCVD", "NAME"].contains(&field.field.as_str()),
                "{}: {} is no field of a contact",
                contest.id,
                field.field
            );
        }
    }
}

#[test]
fn a_log_is_one_a_contest_weekend_whichever_day_it_is_started() {
    let ss = Contest::find("ARRL-SS-CW").unwrap();
    let at = |t: &str| crate::time::Timestamp::parse("t", t).unwrap();
    // Sweepstakes runs from Saturday 2100 UTC to Monday 0259 UTC.
    let saturday = identity(ss, "W1AW", at("2026-11-07T21:00:00Z"));
    assert_eq!(saturday, "v1:contest:ARRL-SS-CW:W1AW:20261104");
    for joined in [
        "2026-11-04T00:00:00Z",
        "2026-11-09T02:59:00Z",
        "2026-11-10T23:59:59Z",
    ] {
        assert_eq!(identity(ss, "W1AW", at(joined)), saturday, "{joined}");
    }
    for other in [
        "2026-11-03T23:59:59Z",
        "2026-11-11T00:00:00Z",
        "2027-11-06T21:00:00Z",
    ] {
        assert_ne!(identity(ss, "W1AW", at(other)), saturday, "{other}");
    }
    assert_ne!(identity(ss, "W1AW/4", at("2026-11-07T21:00:00Z")), saturday);
}

#[test]
fn a_typed_exchange_may_leave_out_the_report() {
    let ww = Contest::find("CQ-WW-CW").unwrap();
    let read = |typed: &str, mode: &str| {
        ww.read_typed(typed, mode).map(|r| {
            r.into_iter()
                .map(|(f, v)| format!("{f}={v}"))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(read("14", "CW").unwrap(), ["RST_RCVD=599", "CQZ=14"]);
    assert_eq!(read("579 14", "CW").unwrap(), ["RST_RCVD=579", "CQZ=14"]);
    let ssb = Contest::find("CQ-WW-SSB").unwrap();
    assert_eq!(
        ssb.read_typed("5", "SSB").unwrap()[0],
        ("RST_RCVD", "59".to_owned())
    );
    assert!(read("99", "CW").unwrap_err().message.contains("zone"));
    // A contest with no report reads the words as they are.
    let fd = Contest::find("ARRL-FD").unwrap();
    assert_eq!(fd.read_typed("3a ema", "CW").unwrap().len(), 2);
}
