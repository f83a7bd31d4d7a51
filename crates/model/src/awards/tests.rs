use super::*;
use crate::confirm::QRZ_STATUS_FIELD;
use crate::fields::Fields;
use crate::time::Timestamp;

fn contact(call: &str, band: &str, mode: &str, at: &str) -> Contact {
    Contact {
        id: "qso_aaaaaaaaaaaaaaaa".into(),
        folder_id: "fld_aaaaaaaaaaaaaaaa".into(),
        callsign: call.into(),
        frequency: band_lower_edge(band).unwrap(),
        band: band.into(),
        mode: mode.into(),
        time_on: Timestamp::parse("t", at).unwrap(),
        rst_sent: None,
        rst_received: None,
        name: None,
        notes: None,
        sig: None,
        sig_info: None,
        my_sig: None,
        my_sig_info: None,
        activation_id: None,
        station_callsign: None,
        fields: Fields::default(),
        created_at: Timestamp(0),
        duplicate_of: None,
        external: Vec::new(),
    }
}

fn with(mut c: Contact, field: Field, value: &str) -> Contact {
    c.fields.set(field, Some(value.into()));
    c
}

const DAY: &str = "2026-11-01T10:00:00Z";

/// A log with the cases other loggers get wrong.
fn log() -> Vec<Contact> {
    let mut qrz = contact("JA1ZZZ", "15m", "SSB", DAY);
    qrz.fields.adif.insert(QRZ_STATUS_FIELD.into(), "C".into());
    vec![
        // The USA on 20 m CW, confirmed on LoTW, in Massachusetts, zone 5.
        with(
            with(
                with(contact("K1ABC", "20m", "CW", DAY), Field::LotwQslRcvd, "Y"),
                Field::State,
                "MA",
            ),
            Field::Cqz,
            "5",
        ),
        // Portable in call area 4: the USA still, no dxcc field (the call says it), NC.
        with(contact("W1AW/4", "40m", "SSB", DAY), Field::State, "NC"),
        // Maritime mobile: no entity, so no DXCC and no WAS, whatever its state says.
        with(contact("W1AW/MM", "20m", "CW", DAY), Field::State, "ME"),
        with(
            with(contact("K9XX", "20m", "CW", DAY), Field::Dxcc, "0"),
            Field::State,
            "ME",
        ),
        // Germany on 60 m, confirmed on eQSL only.
        with(
            contact("DL1XYZ", "60m", "FT8", DAY),
            Field::EqslQslRcvd,
            "Y",
        ),
        // A deleted entity (Abu Ail), confirmed by card: apart, never in the totals.
        with(
            with(contact("4W1A", "20m", "CW", DAY), Field::Dxcc, "2"),
            Field::QslRcvd,
            "Y",
        ),
        // Japan by satellite on 70 cm, by card, from PM95: the SAT column, not 70 cm.
        with(
            with(
                with(contact("JA1SAT", "70cm", "FM", DAY), Field::PropMode, "SAT"),
                Field::QslRcvd,
                "Y",
            ),
            Field::Gridsquare,
            "PM95ab",
        ),
        // Japan on 15 m confirmed on QRZ.com's logbook only.
        qrz,
        // 2 m terrestrial from FN31 (a 6-character grid counts by its first 4); an HF grid
        // counts nothing for VUCC.
        with(
            contact("K2VHF", "2m", "FM", DAY),
            Field::Gridsquare,
            "FN31pr",
        ),
        with(
            contact("K3HF", "20m", "SSB", DAY),
            Field::Gridsquare,
            "FN20",
        ),
        // Alaska and the District of Columbia (Maryland for WAS).
        with(
            with(contact("KL7AA", "20m", "SSB", DAY), Field::Dxcc, "6"),
            Field::State,
            "AK",
        ),
        with(contact("W3DC", "20m", "SSB", DAY), Field::State, "DC"),
    ]
}

fn report(award: Award, query: Query) -> Report {
    reckon(award, query, &Dxcc::shipped(), &log())
}

fn row<'r>(report: &'r Report, key: &str) -> &'r Row {
    report
        .rows
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no row {key} in {:?}", report.rows))
}

#[test]
fn the_entity_list_is_read_whole() {
    assert_eq!(entities().len(), 402);
    assert_eq!(entities().iter().filter(|e| e.deleted).count(), 62);
    assert_eq!(current_entities(), 340);
    assert_eq!(entity(291).unwrap().name, "UNITED STATES OF AMERICA");
    assert_eq!(entity(42).unwrap().name, "DAMAO, DIU");
    assert!(entity(2).unwrap().deleted && !entity(1).unwrap().deleted);
    assert_eq!(entity(0), None);
    assert!(STATES.windows(2).all(|w| w[0].0 < w[1].0), "sorted by code");
    assert_eq!(state("dc"), Some(("MD", "Maryland")));
    assert_eq!(state("ON"), None);
}

#[test]
fn dxcc_counts_current_entities_and_lists_deleted_ones_apart() {
    let dxcc = report(Award::Dxcc, Query::default());
    // USA, Germany, Japan, Alaska: not the /MM, not entity 0, not Abu Ail.
    let keys: Vec<&str> = dxcc.rows.iter().map(|r| r.key.as_str()).collect();
    // By name: Alaska, (Federal Republic of) Germany, Japan, the USA.
    assert_eq!(keys, ["6", "230", "339", "291"]);
    assert_eq!(
        dxcc.totals.mixed,
        Count {
            worked: 4,
            confirmed: 2
        }
    );
    assert_eq!(dxcc.available, Some(340));
    let deleted = dxcc.deleted.as_ref().unwrap();
    assert_eq!(deleted.rows.len(), 1);
    assert_eq!(deleted.rows[0].name.as_deref(), Some("ABU AIL IS."));
    assert_eq!(
        deleted.totals.mixed,
        Count {
            worked: 1,
            confirmed: 1
        }
    );
    let usa = row(&dxcc, "291");
    assert_eq!(usa.mixed, Mark::C);
    assert_eq!(usa.bands["20m"], Mark::C);
    assert_eq!(usa.bands["40m"], Mark::W, "W1AW/4 is the USA");
    assert_eq!(usa.modes["cw"], Mark::C);
    assert_eq!(usa.modes["phone"], Mark::W);
    // 60 m is a column and counts for mixed; eQSL does not confirm by default.
    let germany = row(&dxcc, "230");
    assert_eq!((germany.mixed, germany.bands["60m"]), (Mark::W, Mark::W));
    assert_eq!(germany.modes["data"], Mark::W);
    // Satellite: SAT, never 70 cm.
    let japan = row(&dxcc, "339");
    assert_eq!(japan.bands.get(SAT), Some(&Mark::C));
    assert!(!japan.bands.contains_key("70cm"));
    assert_eq!(japan.bands["15m"], Mark::W, "QRZ does not count by default");
    assert_eq!(dxcc.columns, ["60m", "40m", "20m", "15m", "2m", SAT]);
    assert_eq!(
        dxcc.totals.bands["20m"],
        Count {
            worked: 2,
            confirmed: 1
        }
    );
    assert_eq!(
        dxcc.totals.bands[SAT],
        Count {
            worked: 1,
            confirmed: 1
        }
    );
}

#[test]
fn confirmed_is_by_the_services_asked_for() {
    let only = |services: &str| {
        let query = Query::parse(None, None, Some(services)).unwrap();
        report(Award::Dxcc, query)
    };
    let eqsl = only("eqsl");
    assert_eq!(row(&eqsl, "230").mixed, Mark::C);
    assert_eq!(row(&eqsl, "291").mixed, Mark::W, "LoTW is not asked for");
    let qrz = only("qrz");
    assert_eq!(row(&qrz, "339").bands["15m"], Mark::C);
    assert_eq!(row(&qrz, "339").bands[SAT], Mark::W);
    let all = only("lotw, eqsl,card,qrz,LOTW");
    assert_eq!(all.confirmed_by, Service::ALL);
    assert_eq!(
        all.totals.mixed,
        Count {
            worked: 4,
            confirmed: 3
        }
    );
}

#[test]
fn a_band_or_mode_asked_for_narrows_the_contacts() {
    let sat = report(Award::Dxcc, Query::parse(Some("sat"), None, None).unwrap());
    assert_eq!(sat.rows.len(), 1);
    assert_eq!(sat.band.as_deref(), Some(SAT));
    let twenty = report(Award::Dxcc, Query::parse(Some("20M"), None, None).unwrap());
    assert_eq!(twenty.columns, ["20m"]);
    assert_eq!(
        twenty.totals.mixed,
        Count {
            worked: 2,
            confirmed: 1
        }
    );
    let cw = report(Award::Dxcc, Query::parse(None, Some("CW"), None).unwrap());
    assert_eq!(cw.totals.mixed.worked, 1);
    // A mode takes its submodes: FT8 is itself a mode, MFSK takes FT4.
    let ft8 = report(Award::Dxcc, Query::parse(None, Some("ft8"), None).unwrap());
    assert_eq!(ft8.rows.len(), 1);
    assert!(ModeFilter::parse("mode", "MFSK").unwrap().takes("FT4"));
    assert!(!ModeFilter::parse("mode", "MFSK").unwrap().takes("CW"));
}

#[test]
fn bad_questions_name_their_field() {
    let err = Query::parse(Some("21m"), None, None).unwrap_err();
    assert_eq!(err.details.unwrap()["field"], "band");
    let err = Query::parse(None, Some("morse"), None).unwrap_err();
    assert_eq!(err.details.unwrap()["field"], "mode");
    let err = Query::parse(None, None, Some("lotw,paper")).unwrap_err();
    assert!(err.message.contains("\"paper\""), "{}", err.message);
    assert_eq!(err.details.unwrap()["field"], "confirmedBy");
    let err = Query::parse(None, None, Some("clublog")).unwrap_err();
    assert!(err.message.contains("Club Log"), "{}", err.message);
    assert!(Query::parse(None, None, Some("")).is_err());
    assert_eq!(Award::parse("POTA-hunter"), Some(Award::PotaHunter));
    assert_eq!(Award::parse("wae"), None);
}

#[test]
fn was_counts_the_fifty_states_of_the_usa_alaska_and_hawaii() {
    let was = report(Award::Was, Query::default());
    let keys: Vec<&str> = was.rows.iter().map(|r| r.key.as_str()).collect();
    // Not ME: both of its contacts have no entity.
    assert_eq!(keys, ["AK", "MA", "MD", "NC"]);
    assert_eq!(row(&was, "MA").name.as_deref(), Some("Massachusetts"));
    assert_eq!(
        was.totals.mixed,
        Count {
            worked: 4,
            confirmed: 1
        }
    );
    assert_eq!(was.available, Some(50));
    assert!(was.deleted.is_none());
}

#[test]
fn waz_takes_the_logged_zone_else_the_calls() {
    let waz = report(Award::Waz, Query::default());
    assert_eq!(row(&waz, "5").mixed, Mark::C);
    assert_eq!(row(&waz, "25").bands[SAT], Mark::C, "Japan");
    assert_eq!(row(&waz, "14").bands["60m"], Mark::W, "Germany");
}

#[test]
fn vucc_counts_four_character_squares_from_six_metres_and_satellites_apart() {
    let vucc = report(Award::Vucc, Query::default());
    let keys: Vec<&str> = vucc.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["FN31", "PM95"]);
    assert_eq!(vucc.columns, ["2m", SAT]);
    assert_eq!(row(&vucc, "PM95").bands[SAT], Mark::C);
    assert_eq!(row(&vucc, "FN31").bands["2m"], Mark::W);
}

fn pota_contact(call: &str, at: &str, sig: (&str, &str), mine: bool) -> Contact {
    let mut c = contact(call, "20m", "SSB", at);
    if mine {
        c.my_sig = Some(sig.0.into());
        c.my_sig_info = Some(sig.1.into());
    } else {
        c.sig = Some(sig.0.into());
        c.sig_info = Some(sig.1.into());
    }
    c
}

#[test]
fn pota_hunter_counts_each_park_of_a_two_fer() {
    let log = [
        pota_contact("K1P", DAY, ("POTA", "US-0001,US-0002"), false),
        pota_contact("K2P", DAY, ("WWFF", "KFF-0001"), false),
    ];
    let hunter = reckon(Award::PotaHunter, Query::default(), &Dxcc::shipped(), &log);
    let keys: Vec<&str> = hunter.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["US-0001", "US-0002"]);
}

#[test]
fn a_park_is_activated_by_ten_valid_contacts_on_one_utc_day() {
    let mut log = Vec::new();
    for n in 0..10 {
        log.push(pota_contact(
            &format!("K{n}AA"),
            DAY,
            ("POTA", "US-1000,US-1001"),
            true,
        ));
    }
    // Nine on one day and one the next: no activation; a dupe counts once.
    for n in 0..9 {
        log.push(pota_contact(
            &format!("K{n}AA"),
            DAY,
            ("POTA", "US-2000"),
            true,
        ));
    }
    log.push(pota_contact("K0AA", DAY, ("POTA", "US-2000"), true));
    log.push(pota_contact(
        "K9AA",
        "2026-11-02T00:10:00Z",
        ("POTA", "US-2000"),
        true,
    ));
    let activator = reckon(
        Award::PotaActivator,
        Query::default(),
        &Dxcc::shipped(),
        &log,
    );
    let keys: Vec<&str> = activator.rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["US-1000", "US-1001"]);
    assert_eq!(
        activator.totals.mixed,
        Count {
            worked: 2,
            confirmed: 0
        }
    );
    assert_eq!(row(&activator, "US-1000").bands["20m"], Mark::W);
    assert_eq!(row(&activator, "US-1000").modes["phone"], Mark::W);
    // Asked for CW alone, no park reaches ten.
    let cw = reckon(
        Award::PotaActivator,
        Query::parse(None, Some("cw"), None).unwrap(),
        &Dxcc::shipped(),
        &log,
    );
    assert!(cw.rows.is_empty());
}

/// A contact without what an award needs counts for nothing in it, so a store that hands the
/// award only the contacts that have it gives the same report.
#[test]
fn an_award_counts_no_contact_without_what_it_needs() {
    let mut everything = pota_contact("K1ABC", DAY, ("POTA", "US-0001"), false);
    everything.my_sig = Some("POTA".into());
    everything.my_sig_info = Some("US-0002".into());
    everything.band = "6m".into();
    everything.frequency = 50.313;
    let everything = with(
        with(
            with(everything, Field::State, "MA"),
            Field::Gridsquare,
            "FN42",
        ),
        Field::Dxcc,
        "291",
    );
    for award in Award::ALL {
        let Some(needs) = award.needs() else { continue };
        let mut without = everything.clone();
        let mut withouts = Vec::new();
        match needs {
            Needs::State => without.fields.set(Field::State, None),
            Needs::VhfGrid => {
                // With its grid, but on HF and not by satellite.
                let mut hf = without.clone();
                (hf.band, hf.frequency) = ("10m".into(), 28.074);
                withouts.push(hf);
                without.fields.set(Field::Gridsquare, None);
            }
            Needs::Park => without.sig_info = None,
            Needs::OwnPark => without.my_sig_info = None,
        }
        withouts.push(without);
        // Ten of each: enough for an activation, were it counted.
        let log: Vec<Contact> = (0..10)
            .flat_map(|n| {
                withouts.iter().map(move |without| {
                    let mut c = without.clone();
                    c.callsign = format!("K{n}ABC");
                    c
                })
            })
            .collect();
        let with_it = reckon(award, Query::default(), &Dxcc::shipped(), [&everything]);
        let without_it = reckon(award, Query::default(), &Dxcc::shipped(), &log);
        assert!(
            !with_it.rows.is_empty() || award == Award::PotaActivator,
            "{award:?}"
        );
        assert!(
            without_it.rows.is_empty(),
            "{award:?}: {:?}",
            without_it.rows
        );
    }
}

/// An award reckoned from each contact as it stands for those alike in what the award reads
/// ([`Entry::read_by`]) is the award reckoned from the contacts: what a store that hands it one
/// entry for each such group gives, or more than one (here one for each of its contacts), as
/// a store that groups parts of the log apart does.
#[test]
fn an_award_reads_only_what_it_says_it_reads() {
    let mut log = log();
    let mut no_entity = contact("K1ABC", "20m", "CW", DAY);
    no_entity.fields.set(Field::State, Some("MA".into()));
    log.push(no_entity);
    log.push(with(
        contact("JA1XYZ", "6m", "FT8", DAY),
        Field::Gridsquare,
        "PM95vq",
    ));
    log.push(pota_contact(
        "K2DEF",
        DAY,
        ("POTA", "US-0001,US-0002"),
        false,
    ));
    for award in Award::ALL {
        let Some(reads) = award.reads() else { continue };
        let dxcc = Dxcc::shipped();
        let mut grouped = Tally::new(award, Query::default(), &dxcc);
        for contact in &log {
            grouped.add(&Entry::from(contact).read_by(&reads));
        }
        let grouped = grouped.finish();
        assert_eq!(
            grouped,
            reckon(award, Query::default(), &dxcc, &log),
            "{award:?}"
        );
        assert!(
            !grouped.rows.is_empty(),
            "{award:?} counts something of the log"
        );
    }
}

#[test]
fn the_report_is_camel_case_json() {
    let json = serde_json::to_value(report(Award::Dxcc, Query::default())).unwrap();
    assert_eq!(json["award"], "dxcc");
    assert_eq!(json["confirmedBy"], serde_json::json!(["lotw", "card"]));
    assert_eq!(json["totals"]["mixed"]["confirmed"], 2);
    assert_eq!(json["deleted"]["rows"][0]["mixed"], "C");
    let back: Report = serde_json::from_value(json).unwrap();
    assert_eq!(back.rows.len(), 4);
}
