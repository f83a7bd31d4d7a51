//! Datagrams real programs sent, byte for byte, from the public repositories named above each
//! group (no WSJT-X 2.6 capture was found; 2.4.0's and 3.x's, below, carry the same fields in
//! the same layout as 2.6, whose messages NetworkMessage.hpp's tables describe unchanged).

use svc_wsjtx::{Message, QDateTime, QsoLogged, Status, TimeSpec, decode};

use super::qds::{Qds, Spec};

/// The bytes a hex fixture stands for.
pub fn bytes(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "an odd number of hex digits");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Every fixture, named.
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    [
        ("HEARTBEAT_2_4", HEARTBEAT_2_4),
        ("STATUS_2_4", STATUS_2_4),
        ("DECODE_2_4", DECODE_2_4),
        ("QSO_LOGGED_2_4", QSO_LOGGED_2_4),
        ("LOGGED_ADIF_2_4", LOGGED_ADIF_2_4),
        ("STATUS_2_2", STATUS_2_2),
        ("QSO_LOGGED_2_3", QSO_LOGGED_2_3),
        ("HEARTBEAT_3_0", HEARTBEAT_3_0),
        ("STATUS_3_0", STATUS_3_0),
        ("QSO_LOGGED_IMPROVED", QSO_LOGGED_IMPROVED),
        ("LOGGED_ADIF_IMPROVED", LOGGED_ADIF_IMPROVED),
        ("QSO_LOGGED_JTDX", QSO_LOGGED_JTDX),
        ("LOGGED_ADIF_JTDX", LOGGED_ADIF_JTDX),
        ("HEARTBEAT_MSHV", HEARTBEAT_MSHV),
        ("QSO_LOGGED_MSHV", QSO_LOGGED_MSHV),
        ("LOGGED_ADIF_MSHV", LOGGED_ADIF_MSHV),
    ]
    .into_iter()
    .map(|(name, hex)| (name, bytes(hex)))
    .collect()
}

pub fn qso(hex: &str) -> QsoLogged {
    match decode(&bytes(hex)) {
        Ok(Message::QsoLogged(m)) => m,
        other => panic!("not a QSO Logged: {other:?}"),
    }
}

/// The ADIF text of a Logged ADIF fixture.
pub fn adif(hex: &str) -> String {
    match decode(&bytes(hex)) {
        Ok(Message::LoggedAdif { adif, .. }) => adif,
        other => panic!("not a Logged ADIF: {other:?}"),
    }
}

fn status(hex: &str) -> Status {
    match decode(&bytes(hex)) {
        Ok(Message::Status(m)) => m,
        other => panic!("not a Status: {other:?}"),
    }
}

// From logocomune/wsjtx, message/parse_test.go (commit
// 1abad5e5824ec47e0b4b9395d6bab48630b5369e): its test data, WSJT-X 2.4.0 by the Heartbeat,
// callsigns replaced by XXXXX and YYYYY by its author.

/// WSJT-X 2.4.0's Heartbeat.
pub const HEARTBEAT_2_4: &str = concat!(
    "adbccbda00000002000000000000000657534a542d580000000300000005322e342e30000000066331396436",
    "32",
);

/// WSJT-X 2.4.0's Status, every field of the table (the current layout, as in 2.6).
pub const STATUS_2_4: &str = concat!(
    "adbccbda00000002000000010000000657534a542d580000000001142f200000000346543800000005585858",
    "5858000000022d3600000003465438000001000003750000037500000006495535504d50000000064a4e3533",
    "455200000004494f393100ffffffff0000ffffffffffffffff0000000744656661756c740000002558585858",
    "5820495535504d50204a4e35332020202020202020202020202020202020202020",
);

/// A Decode of "XXXXX YYYYY LO11", FT8.
pub const DECODE_2_4: &str = concat!(
    "adbccbda00000002000000020000000657534a542d5801021b3ee0fffffff1bfb99999a00000000000058100",
    "0000017e000000105858585858205959595959204c4f31310000",
);

/// A QSO Logged, every field of the table (the current layout, as in 2.6).
pub const QSO_LOGGED_2_4: &str = concat!(
    "adbccbda00000002000000050000000657534a542d5800000000002587df024adb8f01000000055959595959",
    "000000044a4e383600000000006bf37c00000003465438000000032b3132000000032d323400000002323000",
    "000019465438202053656e743a202b31322020526376643a202d32340000000000000000002587df0249f275",
    "010000000000000006495535504d50000000064a4e353345520000000000000000ffffffff",
);

/// The Logged ADIF of the same QSO.
pub const LOGGED_ADIF_2_4: &str = concat!(
    "adbccbda000000020000000c0000000657534a542d58000001550a3c616469665f7665723a353e332e312e30",
    "0a3c70726f6772616d69643a363e57534a542d580a3c454f483e0a3c63616c6c3a353e5959595959203c6772",
    "69647371756172653a343e4a4e3836203c6d6f64653a333e465438203c7273745f73656e743a333e2b313220",
    "3c7273745f726376643a333e2d3234203c71736f5f646174653a383e3230323230323034203c74696d655f6f",
    "6e3a363e313034303030203c71736f5f646174655f6f66663a383e3230323230323034203c74696d655f6f66",
    "663a363e313034313030203c62616e643a333e34306d203c667265713a383e372e303734363834203c737461",
    "74696f6e5f63616c6c7369676e3a363e495535504d50203c6d795f677269647371756172653a363e4a4e3533",
    "4552203c74785f7077723a323e3230203c636f6d6d656e743a32353e465438202053656e743a202b31322020",
    "526376643a202d3234203c454f523e",
);

// From k0swe/wsjtx-go, parser_test.go (commit 26c72b830fc5a765058b2c22752a6af53fccb491).

/// WSJT-X 2.2.2's Status, which ends before Tx Message.
pub const STATUS_2_2: &str = concat!(
    "adbccbda00000002000000010000000657534a542d5800000000006bf0d000000003465438ffffffff000000",
    "032d313500000003465438000000000003730000079e000000054b3053574500000006444d37394c56ffffff",
    "ff00ffffffff0000ffffffffffffffff0000000744656661756c74",
);

/// A QSO Logged with an operator, exchanges and a propagation mode.
pub const QSO_LOGGED_2_3: &str = concat!(
    "adbccbda00000002000000050000000657534a542d5800000000002586110277ac4801000000045433535400",
    "0000044a4b373300000000006bf86e00000003465438000000022d33000000022d3700000001350000000743",
    "6f6d6d656e74000000034a6f6500000000002586110276c1e801000000055433535452000000054b30535745",
    "00000006444d37394c5600000002314200000002314400000003494f4e",
);

// From wa1hco/WIMS, tests/unit/test_messages.py (commit
// 0bf91ed7b1099ddddffcaeda807ac6d0b19ff672), "taken verbatim from a live multicast capture".

/// WSJT-X 3.0.0's Heartbeat.
pub const HEARTBEAT_3_0: &str = concat!(
    "adbccbda00000002000000000000000657534a542d580000000300000005332e302e30000000066162393736",
    "62",
);

/// WSJT-X 3.0.0's Status on 6 m, its Tx Message null.
pub const STATUS_3_0: &str = concat!(
    "adbccbda00000002000000010000000657534a542d580000000002ffb72800000003465438000000054b3447",
    "444a000000032d313500000003465438000001000005dc000003600000000657413148434f00000006464e34",
    "32455600000004454c393800ffffffff0000ffffffffffffffff0000000744656661756c74ffffffff",
);

// From sq8bwm/radiodyplom-bridge, test/wsjtx-logged-adif.test.js (commit
// 35b7d73a7b249260ee1f27828eb51ec50074fca6): captured from one "Log QSO" click each.

/// WSJT-X improved 3.1.0's QSO Logged: 12 bytes after the table's fields, and no radio
/// (its Tx frequency is 2458 Hz).
pub const QSO_LOGGED_IMPROVED: &str = concat!(
    "adbccbda00000002000000050000000f57534a542d58202d2053513842574d0000000000258e88020143e401",
    "0000000753503354455354000000044b4f3131000000000000099a0000000346543800000000000000000000",
    "000000000000000000000000000000258e88020078c4010000000653513842574d0000000653513842574d00",
    "0000064b4f313145470000000000000000ffffffff000000000000000000000000",
);

/// The Logged ADIF of the same QSO.
pub const LOGGED_ADIF_IMPROVED: &str = concat!(
    "adbccbda000000020000000c0000000f57534a542d58202d2053513842574d0000012e0a3c616469665f7665",
    "723a353e332e312e300a3c70726f6772616d69643a363e57534a542d580a3c454f483e0a3c63616c6c3a373e",
    "53503354455354203c677269647371756172653a343e4b4f3131203c6d6f64653a333e465438203c7273745f",
    "73656e743a303e203c7273745f726376643a303e203c71736f5f646174653a383e3230323631303036203c74",
    "696d655f6f6e3a363e303931393435203c71736f5f646174655f6f66663a383e3230323631303036203c7469",
    "6d655f6f66663a363e303932303337203c62616e643a303e203c667265713a383e302e303032343538203c73",
    "746174696f6e5f63616c6c7369676e3a363e53513842574d203c6d795f677269647371756172653a363e4b4f",
    "31314547203c6f70657261746f723a363e53513842574d203c454f523e",
);

/// MSHV 2.76.3's Heartbeat, its revision empty.
pub const HEARTBEAT_MSHV: &str =
    "adbccbda0000000200000000000000044d5348560000000300000006322e37362e3300000000";

/// MSHV 2.76.3's QSO Logged of an FT4 QSO, 12 bytes after the table's fields.
pub const QSO_LOGGED_MSHV: &str = concat!(
    "adbccbda0000000200000005000000044d5348560000000000258e8802330ca00100000006535138415a5400",
    "0000000000000000d6d80000000003465434000000032b3032000000032b3035000000000000000000000000",
    "0000000000258e8802322240010000000000000006535138425741000000064b4f3131454700000000000000",
    "0000000000000000000000000000000000",
);

/// The Logged ADIF of the same QSO: MODE MFSK, SUBMODE FT4.
pub const LOGGED_ADIF_MSHV: &str = concat!(
    "adbccbda000000020000000c000000044d5348560000012c0a3c414449465f5645523a353e332e312e300a3c",
    "50524f4752414d49443a343e4d5348560a3c454f483e0a3c53544154494f4e5f43414c4c5349474e3a363e53",
    "51384257413c4d595f475249445351554152453a363e4b4f313145473c43414c4c3a363e535138415a543c47",
    "5249445351554152453a303e3c44495354414e43453a303e3c4d4f44453a343e4d46534b3c5355424d4f4445",
    "3a333e4654343c5253545f53454e543a333e2b30323c5253545f524356443a333e2b30353c51534f5f444154",
    "453a383e32303236313030363c54494d455f4f4e3a363e3130313430303c51534f5f444154455f4f46463a38",
    "3e32303236313030363c54494d455f4f46463a363e3130313530303c42414e443a333e32304d3c465245513a",
    "393e31342e3038303030303c454f523e",
);

// From sq8bwm/radiodyplom-bridge, test/jtdx.test.js (commit
// 0ab7972740d6bd5257b274f4933316d8a1d8d87c): captured from one "Log QSO" click.

/// JTDX 2.2.159's QSO Logged: times marked local, nothing after My grid.
pub const QSO_LOGGED_JTDX: &str = concat!(
    "adbccbda0000000200000005000000044a5444580000000000258e8902968caf000000000653503958595a00",
    "0000044a4f39310000000000d6c66c00000003465438000000032d3135000000032d31350000000000000000",
    "000000000000000000258e8902968caf000000000653513842574d0000000653513842574d000000064b4f30",
    "326c6a",
);

/// The Logged ADIF of the same QSO.
pub const LOGGED_ADIF_JTDX: &str = concat!(
    "adbccbda000000020000000c000000044a544458000001220a3c616469665f7665723a353e332e312e300a3c",
    "70726f6772616d69643a343e4a5444580a3c454f483e0a3c42414e443a333e32306d203c53544154494f4e5f",
    "43414c4c5349474e3a363e53513842574d203c4d595f475249445351554152453a363e4b4f30326c6a203c43",
    "414c4c3a363e53503958595a203c465245513a393e31342e303735353030203c4d4f44453a333e465438203c",
    "51534f5f444154453a383e3230323631303037203c54494d455f4f4e3a363e313230333430203c51534f5f44",
    "4154455f4f46463a383e3230323631303037203c54494d455f4f46463a363e313230333430203c5253545f53",
    "454e543a333e2d3135203c5253545f524356443a333e2d3135203c475249445351554152453a343e4a4f3931",
    "203c454f523e",
);

#[test]
fn every_fixture_decodes() {
    for (name, datagram) in all() {
        let message = decode(&datagram).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !matches!(message, Message::Other { .. }),
            "{name}: {message:?}"
        );
    }
}

#[test]
fn heartbeats() {
    for (hex, id, version, revision) in [
        (HEARTBEAT_2_4, "WSJT-X", "2.4.0", "c19d62"),
        (HEARTBEAT_3_0, "WSJT-X", "3.0.0", "ab976b"),
        (HEARTBEAT_MSHV, "MSHV", "2.76.3", ""),
    ] {
        let Ok(Message::Heartbeat(h)) = decode(&bytes(hex)) else {
            panic!("{id} {version}")
        };
        assert_eq!(h.id, id);
        assert_eq!(h.max_schema, Some(3));
        assert_eq!(h.version.as_deref(), Some(version));
        assert_eq!(h.revision.as_deref(), Some(revision));
    }
}

#[test]
fn statuses() {
    let s = status(STATUS_2_4);
    assert_eq!(s.dial_frequency, 18_100_000);
    assert_eq!((s.mode.as_str(), s.dx_call.as_str()), ("FT8", "XXXXX"));
    assert_eq!((s.report.as_str(), s.tx_mode.as_str()), ("-6", "FT8"));
    assert!(!s.tx_enabled && !s.transmitting && s.decoding);
    assert_eq!((s.rx_df, s.tx_df), (885, 885));
    assert_eq!(
        (s.de_call.as_str(), s.de_grid.as_str(), s.dx_grid.as_str()),
        ("IU5PMP", "JN53ER", "IO91")
    );
    assert_eq!(s.tx_watchdog, Some(false));
    assert_eq!(s.sub_mode.as_deref(), Some(""), "null");
    assert_eq!(s.fast_mode, Some(false));
    assert_eq!(s.special_operation_mode, Some(0));
    assert_eq!(s.frequency_tolerance, Some(u32::MAX));
    assert_eq!(s.tr_period, Some(u32::MAX));
    assert_eq!(s.configuration_name.as_deref(), Some("Default"));
    assert_eq!(
        s.tx_message.as_deref(),
        Some(format!("XXXXX IU5PMP JN53{}", " ".repeat(20)).as_str())
    );

    let s = status(STATUS_3_0);
    assert_eq!(s.dial_frequency, 50_313_000);
    assert_eq!((s.dx_call.as_str(), s.report.as_str()), ("K4GDJ", "-15"));
    assert_eq!((s.rx_df, s.tx_df), (1500, 864));
    assert_eq!(
        (s.de_call.as_str(), s.de_grid.as_str()),
        ("WA1HCO", "FN42EV")
    );
    assert_eq!(s.tx_message.as_deref(), Some(""), "null");

    let s = status(STATUS_2_2);
    assert_eq!(s.dial_frequency, 7_074_000);
    assert_eq!(s.dx_call, "", "null");
    assert_eq!((s.rx_df, s.tx_df), (883, 1950));
    assert_eq!(s.de_call, "K0SWE");
    assert_eq!(s.configuration_name.as_deref(), Some("Default"));
    assert_eq!(s.tx_message, None, "2.2.2 had no Tx Message");
}

#[test]
fn a_decode() {
    let Ok(Message::Decode(d)) = decode(&bytes(DECODE_2_4)) else {
        panic!()
    };
    assert!(d.new);
    assert_eq!(d.time, Some(35_340_000));
    assert_eq!(d.snr, -15);
    assert!((d.delta_time + 0.1).abs() < 1e-6);
    assert_eq!(d.delta_frequency, 1409);
    assert_eq!(
        (d.mode.as_str(), d.message.as_str()),
        ("~", "XXXXX YYYYY LO11")
    );
    assert_eq!((d.low_confidence, d.off_air), (Some(false), Some(false)));
}

fn utc(julian_day: i64, ms: u32) -> Option<QDateTime> {
    Some(QDateTime {
        julian_day,
        ms,
        spec: TimeSpec::Utc,
    })
}

#[test]
fn qsos_logged() {
    let q = qso(QSO_LOGGED_2_4);
    assert_eq!(q.id, "WSJT-X");
    // 2022-02-04, 10:41:00.303 and 10:40:00.629 UTC.
    assert_eq!(q.time_off, utc(2_459_615, 38_460_303));
    assert_eq!(q.time_on, utc(2_459_615, 38_400_629));
    assert_eq!((q.dx_call.as_str(), q.dx_grid.as_str()), ("YYYYY", "JN86"));
    assert_eq!(q.tx_frequency, 7_074_684);
    assert_eq!(q.mode, "FT8");
    assert_eq!(
        (q.report_sent.as_str(), q.report_received.as_str()),
        ("+12", "-24")
    );
    assert_eq!(q.tx_power, "20");
    assert_eq!(q.comments, "FT8  Sent: +12  Rcvd: -24");
    assert_eq!(q.name, "");
    assert_eq!(q.operator_call.as_deref(), Some(""));
    assert_eq!(q.my_call.as_deref(), Some("IU5PMP"));
    assert_eq!(q.my_grid.as_deref(), Some("JN53ER"));
    assert_eq!(q.exchange_sent.as_deref(), Some(""));
    assert_eq!(q.propagation_mode.as_deref(), Some(""), "null");

    let q = qso(QSO_LOGGED_2_3);
    assert_eq!(q.time_on, utc(2_459_153, 41_337_320));
    assert_eq!((q.dx_call.as_str(), q.tx_frequency), ("T3ST", 7_075_950));
    assert_eq!((q.comments.as_str(), q.name.as_str()), ("Comment", "Joe"));
    assert_eq!(q.operator_call.as_deref(), Some("T3STR"));
    assert_eq!(q.my_call.as_deref(), Some("K0SWE"));
    assert_eq!(q.exchange_sent.as_deref(), Some("1B"));
    assert_eq!(q.exchange_received.as_deref(), Some("1D"));
    assert_eq!(q.propagation_mode.as_deref(), Some("ION"));

    // The 12 bytes after the table's fields are ignored.
    let q = qso(QSO_LOGGED_IMPROVED);
    assert_eq!(q.id, "WSJT-X - SQ8BWM");
    assert_eq!((q.dx_call.as_str(), q.tx_frequency), ("SP3TEST", 2458));
    assert_eq!(q.time_on, utc(2_461_320, 33_585_348));
    assert_eq!(q.operator_call.as_deref(), Some("SQ8BWM"));
    assert_eq!(q.my_grid.as_deref(), Some("KO11EG"));
    assert_eq!(q.propagation_mode.as_deref(), Some(""));

    let q = qso(QSO_LOGGED_JTDX);
    let local = QDateTime {
        julian_day: 2_461_321,
        ms: 43_420_847,
        spec: TimeSpec::Local,
    };
    assert_eq!(q.time_on, Some(local.clone()));
    assert_eq!(q.time_off, Some(local));
    assert_eq!((q.dx_call.as_str(), q.tx_frequency), ("SP9XYZ", 14_075_500));
    assert_eq!(q.my_grid.as_deref(), Some("KO02lj"));
    assert_eq!(q.exchange_sent, None, "JTDX stops after My grid");
    assert_eq!(q.propagation_mode, None);

    let q = qso(QSO_LOGGED_MSHV);
    assert_eq!((q.dx_call.as_str(), q.mode.as_str()), ("SQ8AZT", "FT4"));
    assert_eq!(q.tx_frequency, 14_080_000);
    assert_eq!(q.time_on, utc(2_461_320, 36_840_000));
    assert_eq!(q.my_call.as_deref(), Some("SQ8BWA"));
}

#[test]
fn logged_adif_carries_an_adif_file() {
    for hex in [
        LOGGED_ADIF_2_4,
        LOGGED_ADIF_IMPROVED,
        LOGGED_ADIF_JTDX,
        LOGGED_ADIF_MSHV,
    ] {
        let text = adif(hex);
        assert!(text.to_ascii_uppercase().contains("<EOH>"), "{text}");
        assert!(
            text.trim_end().to_ascii_uppercase().ends_with("<EOR>"),
            "{text}"
        );
    }
    assert!(adif(LOGGED_ADIF_2_4).contains("<call:5>YYYYY <gridsquare:4>JN86"));
}

#[test]
fn the_tests_writer_writes_what_wsjtx_sent() {
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(2_459_615, 38_460_303, Spec::Utc)
        .put_utf8("YYYYY")
        .put_utf8("JN86")
        .put_u64(7_074_684)
        .put_utf8("FT8")
        .put_utf8("+12")
        .put_utf8("-24")
        .put_utf8("20")
        .put_utf8("FT8  Sent: +12  Rcvd: -24")
        .put_utf8("")
        .put_qdatetime(2_459_615, 38_400_629, Spec::Utc)
        .put_utf8("")
        .put_utf8("IU5PMP")
        .put_utf8("JN53ER")
        .put_utf8("")
        .put_utf8("")
        .put_null();
    assert_eq!(q.bytes, bytes(QSO_LOGGED_2_4));

    let mut s = Qds::header(2, 1, "WSJT-X");
    s.put_u64(18_100_000)
        .put_utf8("FT8")
        .put_utf8("XXXXX")
        .put_utf8("-6")
        .put_utf8("FT8")
        .put_bool(false)
        .put_bool(false)
        .put_bool(true)
        .put_u32(885)
        .put_u32(885)
        .put_utf8("IU5PMP")
        .put_utf8("JN53ER")
        .put_utf8("IO91")
        .put_bool(false)
        .put_null()
        .put_bool(false)
        .put_u8(0)
        .put_u32(u32::MAX)
        .put_u32(u32::MAX)
        .put_utf8("Default")
        .put_utf8(&format!("XXXXX IU5PMP JN53{}", " ".repeat(20)));
    assert_eq!(s.bytes, bytes(STATUS_2_4));
}
