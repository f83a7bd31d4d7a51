//! The contact a logged QSO makes, and its key, the same for QSO Logged and Logged ADIF.

use svc_model::band::band_lower_edge;
use svc_model::{ContactInput, Field, Timestamp};
use svc_wsjtx::{ContactError, QsoLogged, TimeError, contact, once_key, once_key_for};

use super::fixtures::{self, adif, qso};
use super::qds::{self, DAY, Qds, Spec};

fn made(q: &QsoLogged) -> ContactInput {
    contact(q, "fld_01").unwrap_or_else(|e| panic!("{e}"))
}

fn built(q: &Qds) -> QsoLogged {
    match svc_wsjtx::decode(&q.bytes) {
        Ok(svc_wsjtx::Message::QsoLogged(m)) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_qso_of_wsjtx_2_4() {
    let c = made(&qso(fixtures::QSO_LOGGED_2_4));
    assert_eq!(c.folder_id, "fld_01");
    assert_eq!(c.callsign, "YYYYY");
    assert_eq!(c.frequency, 7.074684);
    assert_eq!(c.mode, "FT8");
    assert_eq!(c.time_on, "2022-02-04T10:40:00Z", "to the second, as ADIF");
    assert_eq!(c.rst_sent.as_deref(), Some("+12"));
    assert_eq!(c.rst_received.as_deref(), Some("-24"));
    assert_eq!(c.name, None, "empty is absent");
    assert_eq!(c.notes, None, "comments are the comment field");
    assert_eq!(c.station_callsign.as_deref(), Some("IU5PMP"));
    let f = &c.fields;
    assert_eq!(f.get(Field::TimeOff), Some("2022-02-04T10:41:00Z"));
    assert_eq!(f.get(Field::Gridsquare), Some("JN86"));
    assert_eq!(f.get(Field::MyGridsquare), Some("JN53er"));
    assert_eq!(f.get(Field::TxPwr), Some("20"));
    assert_eq!(f.get(Field::Comment), Some("FT8  Sent: +12  Rcvd: -24"));
    assert_eq!(f.get(Field::Operator), None);
    assert_eq!(f.get(Field::PropMode), None);
    assert!(f.adif.is_empty() && !f.band_only);
    assert_eq!(c.sig, None);
    assert_eq!(c.activation_id, None);
    assert!(!c.from_file);
}

#[test]
fn every_field_of_the_table() {
    let c = made(&built(&qds::qso_logged()));
    assert_eq!(c.callsign, "K1ABC");
    assert_eq!(c.frequency, 14.08125);
    assert_eq!(c.mode, "FT4", "the model's name, not ADIF's MFSK");
    assert_eq!(c.time_on, "2026-11-07T15:10:05Z");
    assert_eq!(c.name.as_deref(), Some("Jürgen"));
    assert_eq!(c.station_callsign.as_deref(), Some("W1AW/P"));
    let expected = [
        (Field::Gridsquare, "FN42"),
        (Field::MyGridsquare, "FN31pr"),
        (Field::TxPwr, "100"),
        (Field::TimeOff, "2026-11-07T15:11:30Z"),
        (Field::Operator, "W1AW"),
        (Field::Comment, "tnx fer QSO"),
        (Field::PropMode, "ES"),
        (Field::StxString, "1A EMA"),
        (Field::SrxString, "2B NH"),
    ];
    let got: Vec<(Field, &str)> = c.fields.iter().map(|(d, v)| (d.field, v)).collect();
    assert_eq!(got, expected);

    let c = made(&qso(fixtures::QSO_LOGGED_2_3));
    assert_eq!(c.name.as_deref(), Some("Joe"));
    assert_eq!(c.fields.get(Field::Operator), Some("T3STR"));
    assert_eq!(c.fields.get(Field::StxString), Some("1B"));
    assert_eq!(c.fields.get(Field::SrxString), Some("1D"));
    assert_eq!(c.fields.get(Field::PropMode), Some("ION"));
    assert_eq!(c.fields.get(Field::TxPwr), Some("5"));
    assert_eq!(c.station_callsign.as_deref(), Some("K0SWE"));
}

#[test]
fn jtdx_and_mshv() {
    let c = made(&qso(fixtures::QSO_LOGGED_JTDX));
    assert_eq!(
        c.time_on, "2026-10-07T12:03:40Z",
        "JTDX's local time is UTC"
    );
    assert_eq!(c.frequency, 14.0755);
    assert_eq!(c.fields.get(Field::MyGridsquare), Some("KO02lj"));
    assert_eq!(c.fields.get(Field::Comment), None);
    assert_eq!(c.fields.get(Field::TxPwr), None);

    let c = made(&qso(fixtures::QSO_LOGGED_MSHV));
    assert_eq!(c.mode, "FT4");
    assert_eq!(c.fields.get(Field::Gridsquare), None, "empty is absent");
    assert_eq!(c.station_callsign.as_deref(), Some("SQ8BWA"));
}

#[test]
fn values_a_field_refuses_are_kept_as_read_under_their_adif_name() {
    let mut q = built(&qds::qso_logged());
    q.dx_grid = "FN42ab12cd".into();
    q.tx_power = "a lot".into();
    q.propagation_mode = Some("WHISPER".into());
    let c = made(&q);
    assert_eq!(c.fields.get(Field::Gridsquare), None);
    assert_eq!(
        c.fields.adif.get("GRIDSQUARE").map(String::as_str),
        Some("FN42ab12cd")
    );
    assert_eq!(
        c.fields.adif.get("TX_PWR").map(String::as_str),
        Some("a lot")
    );
    assert_eq!(
        c.fields.adif.get("PROP_MODE").map(String::as_str),
        Some("WHISPER")
    );
    assert_eq!(c.fields.check_adif_clash(), Ok(()));
}

#[test]
fn the_station_is_my_call_else_the_operator() {
    let mut q = built(&qds::qso_logged());
    q.my_call = Some(" ".into());
    q.operator_call = Some("w1aw".into());
    assert_eq!(made(&q).station_callsign.as_deref(), Some("W1AW"));
    q.my_call = None;
    q.operator_call = None;
    let c = made(&q);
    assert_eq!(c.station_callsign, None);
    assert_eq!(c.fields.get(Field::Operator), None);
}

#[test]
fn modes_as_the_models_table_names_them() {
    let mut q = built(&qds::qso_logged());
    for (sent, stored) in [
        ("FT8", "FT8"),
        ("FT4", "FT4"),
        ("ft4", "FT4"),
        ("Q65", "Q65"),
        ("MSK144", "MSK144"),
        ("JT65", "JT65"),
        ("JT9", "JT9"),
        ("FST4", "FST4"),
        ("FT2", "FT2"),
        (" newmode ", "NEWMODE"),
    ] {
        q.mode = sent.into();
        assert_eq!(made(&q).mode, stored, "{sent}");
    }
}

#[test]
fn a_time_svc_cannot_read_makes_no_contact() {
    let mut q = built(&qds::qso_logged());
    q.time_on = None;
    assert_eq!(contact(&q, "fld_01"), Err(ContactError::NoTimeOn));

    let mut q = built(&qds::qso_logged());
    q.time_on.as_mut().unwrap().spec = svc_wsjtx::TimeSpec::Zone("Europe/Rome".into());
    let err = contact(&q, "fld_01").unwrap_err();
    assert_eq!(
        err,
        ContactError::TimeOn(TimeError::Zone("Europe/Rome".into()))
    );
    assert!(err.to_string().contains("Date & Time On"), "{err}");

    let mut q = built(&qds::qso_logged());
    q.time_off.as_mut().unwrap().spec = svc_wsjtx::TimeSpec::Zone("Europe/Rome".into());
    assert!(matches!(
        contact(&q, "fld_01"),
        Err(ContactError::TimeOff(TimeError::Zone(_)))
    ));

    let mut q = built(&qds::qso_logged());
    q.time_off = None;
    assert_eq!(made(&q).fields.get(Field::TimeOff), None, "a null time off");

    // An offset moves both times to UTC.
    let mut with_offset = Qds::header(2, 5, "WSJT-X");
    with_offset
        .put_qdatetime(DAY, qds::TIME_OFF_MS + 3_600_000, Spec::Offset(3600))
        .put_utf8("K1ABC")
        .put_utf8("")
        .put_u64(7_074_000)
        .put_utf8("FT8");
    for _ in 0..5 {
        with_offset.put_utf8("");
    }
    with_offset.put_qdatetime(DAY, qds::TIME_ON_MS + 3_600_000, Spec::Offset(3600));
    let c = made(&built(&with_offset));
    assert_eq!(c.time_on, "2026-11-07T15:10:05Z");
    assert_eq!(c.fields.get(Field::TimeOff), Some("2026-11-07T15:11:30Z"));
}

/// The fields of the one record of a Logged ADIF's text (names upper-cased), by a reader of
/// the tests' own: this crate may not use svc-adif.
fn record(text: &str) -> Vec<(String, String)> {
    let upper = text.to_ascii_uppercase();
    let start = upper.find("<EOH>").map_or(0, |at| at + 5);
    let mut fields = Vec::new();
    let mut rest = &text[start..];
    while let Some(open) = rest.find('<') {
        let close = rest[open..].find('>').unwrap() + open;
        let tag = &rest[open + 1..close];
        let mut parts = tag.split(':');
        let name = parts.next().unwrap().to_ascii_uppercase();
        if name == "EOR" {
            break;
        }
        let length: usize = parts.next().unwrap().parse().unwrap();
        let value = &rest[close + 1..close + 1 + length];
        fields.push((name, value.to_owned()));
        rest = &rest[close + 1 + length..];
    }
    fields
}

/// The key a Logged ADIF's record makes by [`once_key_for`]'s rule, as a mapping through
/// svc-adif would: CALL, QSO_DATE and TIME_ON, FREQ (else BAND's lower edge), SUBMODE else
/// MODE.
fn adif_key(text: &str) -> String {
    let fields = record(text);
    let get = |name: &str| {
        fields
            .iter()
            .find(|(n, v)| n == name && !v.trim().is_empty())
            .map(|(_, v)| v.trim().to_owned())
    };
    let (date, time) = (get("QSO_DATE").unwrap(), get("TIME_ON").unwrap());
    let at = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &date[..4],
        &date[4..6],
        &date[6..],
        &time[..2],
        &time[2..4],
        &time[4..6]
    );
    let time_on = Timestamp::parse("timeOn", &at).unwrap();
    let mhz = get("FREQ")
        .and_then(|f| f.parse::<f64>().ok())
        .filter(|f| *f > 0.0)
        .or_else(|| get("BAND").and_then(|b| band_lower_edge(&b)))
        .unwrap_or(0.0);
    let mode = get("SUBMODE").or_else(|| get("MODE")).unwrap();
    once_key_for(&get("CALL").unwrap(), Some(time_on), mhz, &mode)
}

#[test]
fn qso_logged_and_logged_adif_of_one_qso_have_one_key() {
    for (logged, logged_adif) in [
        (fixtures::QSO_LOGGED_2_4, fixtures::LOGGED_ADIF_2_4),
        (
            fixtures::QSO_LOGGED_IMPROVED,
            fixtures::LOGGED_ADIF_IMPROVED,
        ),
        (fixtures::QSO_LOGGED_JTDX, fixtures::LOGGED_ADIF_JTDX),
        (fixtures::QSO_LOGGED_MSHV, fixtures::LOGGED_ADIF_MSHV),
    ] {
        let key = once_key(&qso(logged));
        assert_eq!(key, adif_key(&adif(logged_adif)));
        assert!(key.starts_with("wsjtx-") && key.len() == 70, "{key}");
        assert!(
            key[6..]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
    }
    assert_ne!(
        once_key(&qso(fixtures::QSO_LOGGED_2_4)),
        once_key(&qso(fixtures::QSO_LOGGED_2_3))
    );
}

#[test]
fn the_key_follows_its_rule() {
    let at = |iso: &str| Some(Timestamp::parse("t", iso).unwrap());
    let key = once_key_for("K1ABC", at("2026-11-07T15:10:05Z"), 14.074, "FT8");
    // Pinned, so that a change of the rule, which would log again every QSO a user's
    // WSJT-X sends after an upgrade, cannot pass unnoticed: SHA-256 of "svc-wsjtx-key-1",
    // then for each part 1, its length as 8 bytes big-endian and its text: "K1ABC",
    // "1794064205", "20m", "FT8".
    assert_eq!(
        key,
        "wsjtx-3b173a448e303a6f2bf08929a5cc15cde87184be998bfafa449de35b345ba4bf"
    );
    let same = [
        once_key_for(" k1abc ", at("2026-11-07T15:10:05.999Z"), 14.0755, "ft8"),
        once_key_for("K1ABC", at("2026-11-07T16:10:05+01:00"), 14.3, "FT8"),
    ];
    for other in same {
        assert_eq!(other, key);
    }
    let different = [
        once_key_for("K1ABD", at("2026-11-07T15:10:05Z"), 14.074, "FT8"),
        once_key_for("K1ABC", at("2026-11-07T15:10:06Z"), 14.074, "FT8"),
        once_key_for("K1ABC", at("2026-11-07T15:10:05Z"), 7.074, "FT8"),
        once_key_for("K1ABC", at("2026-11-07T15:10:05Z"), 14.074, "FT4"),
        once_key_for("K1ABC", None, 14.074, "FT8"),
        once_key_for("K1ABC", at("2026-11-07T15:10:05Z"), 27.185, "FT8"),
    ];
    for (i, other) in different.iter().enumerate() {
        assert_ne!(*other, key, "{i}");
    }

    // The QSO Logged's milliseconds do not enter it.
    let mut q = built(&qds::qso_logged());
    let key = once_key(&q);
    q.time_on.as_mut().unwrap().ms -= 250;
    assert_eq!(once_key(&q), key);
    q.time_on.as_mut().unwrap().ms -= 1;
    assert_ne!(once_key(&q), key);
}
