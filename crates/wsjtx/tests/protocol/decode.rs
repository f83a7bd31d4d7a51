//! Every message kind svc decodes, written by the tests' own writer: whole, cut where older
//! senders stop, with fields newer senders append, with null strings, and damaged.

use svc_wsjtx::{
    DecodeError, Fault, Message, QDateTime, QsoLogged, Status, TimeError, TimeSpec, decode,
};

use super::qds::{self, DAY, Qds, Spec, TIME_OFF_MS, TIME_ON_MS};

fn decoded(q: &Qds) -> Message {
    decode(&q.bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn qso(q: &Qds) -> QsoLogged {
    match decoded(q) {
        Message::QsoLogged(m) => m,
        other => panic!("not a QSO Logged: {other:?}"),
    }
}

fn status(q: &Qds) -> Status {
    match decoded(q) {
        Message::Status(m) => m,
        other => panic!("not a Status: {other:?}"),
    }
}

fn field_error(bytes: &[u8]) -> (String, &'static str, usize, Fault) {
    match decode(bytes) {
        Err(DecodeError::Field {
            message,
            field,
            at,
            fault,
        }) => (message, field, at, fault),
        other => panic!("expected a field's error, got {other:?}"),
    }
}

#[test]
fn every_kind_decodes_with_all_its_fields() {
    let Message::Heartbeat(h) = decoded(&qds::heartbeat()) else {
        panic!("heartbeat")
    };
    assert_eq!(h.id, "WSJT-X");
    assert_eq!(h.max_schema, Some(3));
    assert_eq!(h.version.as_deref(), Some("2.6.1"));
    assert_eq!(h.revision.as_deref(), Some("3a5bc9"));

    let s = status(&qds::status());
    assert_eq!(s.dial_frequency, 14_074_000);
    assert_eq!(
        (s.mode.as_str(), s.dx_call.as_str(), s.report.as_str()),
        ("FT8", "K1ABC", "-12")
    );
    assert_eq!(s.tx_mode, "FT8");
    assert!(s.tx_enabled && !s.transmitting && s.decoding);
    assert_eq!((s.rx_df, s.tx_df), (1200, 1450));
    assert_eq!(
        (s.de_call.as_str(), s.de_grid.as_str(), s.dx_grid.as_str()),
        ("W1AW", "FN31pr", "FN42")
    );
    assert_eq!(s.tx_watchdog, Some(false));
    assert_eq!(s.sub_mode.as_deref(), Some(""));
    assert_eq!(s.fast_mode, Some(false));
    assert_eq!(s.special_operation_mode, Some(0));
    assert_eq!(s.frequency_tolerance, Some(u32::MAX));
    assert_eq!(s.tr_period, Some(15));
    assert_eq!(s.configuration_name.as_deref(), Some("Default"));
    assert_eq!(s.tx_message.as_deref(), Some("K1ABC W1AW FN31"));

    let Message::Decode(d) = decoded(&qds::decode()) else {
        panic!("decode")
    };
    assert!(d.new);
    assert_eq!(d.time, Some(54_600_000));
    assert_eq!(d.snr, -7);
    assert_eq!(d.delta_time, 0.2);
    assert_eq!(d.delta_frequency, 1234);
    assert_eq!(
        (d.mode.as_str(), d.message.as_str()),
        ("~", "CQ K1ABC FN42")
    );
    assert_eq!((d.low_confidence, d.off_air), (Some(false), Some(true)));

    let q = qso(&qds::qso_logged());
    let utc = |ms| {
        Some(QDateTime {
            julian_day: DAY,
            ms,
            spec: TimeSpec::Utc,
        })
    };
    assert_eq!(q.time_off, utc(TIME_OFF_MS));
    assert_eq!(q.time_on, utc(TIME_ON_MS));
    assert_eq!((q.dx_call.as_str(), q.dx_grid.as_str()), ("k1abc", "FN42"));
    assert_eq!(q.tx_frequency, 14_081_250);
    assert_eq!(q.mode, "FT4");
    assert_eq!(
        (q.report_sent.as_str(), q.report_received.as_str()),
        ("-10", "-12")
    );
    assert_eq!(q.tx_power, "100W");
    assert_eq!(q.comments, "tnx fer QSO");
    assert_eq!(q.name, "Jürgen");
    assert_eq!(q.operator_call.as_deref(), Some("W1AW"));
    assert_eq!(q.my_call.as_deref(), Some("W1AW/P"));
    assert_eq!(q.my_grid.as_deref(), Some("FN31pr"));
    assert_eq!(q.exchange_sent.as_deref(), Some("1A EMA"));
    assert_eq!(q.exchange_received.as_deref(), Some("2B NH"));
    assert_eq!(q.propagation_mode.as_deref(), Some("ES"));

    let mut clear = Qds::header(2, 3, "WSJT-X");
    assert_eq!(
        decoded(&clear),
        Message::Clear {
            id: "WSJT-X".into(),
            window: None
        }
    );
    clear.put_u8(2);
    assert_eq!(
        decoded(&clear),
        Message::Clear {
            id: "WSJT-X".into(),
            window: Some(2)
        }
    );
    assert_eq!(
        decoded(&Qds::header(2, 6, "JTDX")),
        Message::Close { id: "JTDX".into() }
    );
    let adif = "\n<adif_ver:5>3.1.0\n<programid:6>WSJT-X\n<EOH>\n<call:5>K1ABC <EOR>";
    let mut logged = Qds::header(2, 12, "WSJT-X");
    logged.put_utf8(adif);
    assert_eq!(
        decoded(&logged),
        Message::LoggedAdif {
            id: "WSJT-X".into(),
            adif: adif.into()
        }
    );
}

#[test]
fn other_kinds_are_named_not_refused() {
    // Reply (4), WSPRDecode (10), one from a later version, and one from svc's own encoders.
    let mut wspr = Qds::header(2, 10, "WSJT-X");
    wspr.put_bool(true).put_qtime(0).put_i32(-20);
    for (q, kind) in [
        (Qds::header(2, 4, "WSJT-X"), 4),
        (wspr, 10),
        (Qds::header(3, 99, "WSJT-X"), 99),
    ] {
        let message = decoded(&q);
        assert_eq!(
            message,
            Message::Other {
                kind,
                id: "WSJT-X".into()
            }
        );
        assert_eq!(message.id(), "WSJT-X");
    }
}

/// Decodes the message cut at each of its marks and hands each to `check` with how many
/// optional fields it keeps.
fn at_each_mark(q: &Qds, mut check: impl FnMut(usize, Message)) {
    for (kept, &end) in q.marks.iter().enumerate() {
        check(
            kept,
            decode(&q.bytes[..end]).unwrap_or_else(|e| panic!("{e}")),
        );
    }
    check(q.marks.len(), decoded(q));
}

#[test]
fn optional_fields_may_be_left_out_from_the_end() {
    at_each_mark(&qds::heartbeat(), |kept, m| {
        let Message::Heartbeat(h) = m else { panic!() };
        assert_eq!(h.max_schema.is_some(), kept >= 1);
        assert_eq!(h.version.is_some(), kept >= 2);
        assert_eq!(h.revision.is_some(), kept >= 3);
    });
    at_each_mark(&qds::status(), |kept, m| {
        let Message::Status(s) = m else { panic!() };
        assert_eq!(s.dx_grid, "FN42", "the required fields stay");
        let present = [
            s.tx_watchdog.is_some(),
            s.sub_mode.is_some(),
            s.fast_mode.is_some(),
            s.special_operation_mode.is_some(),
            s.frequency_tolerance.is_some(),
            s.tr_period.is_some(),
            s.configuration_name.is_some(),
            s.tx_message.is_some(),
        ];
        let expected: Vec<bool> = (0..present.len()).map(|i| i < kept).collect();
        assert_eq!(present.to_vec(), expected, "{kept} kept");
    });
    at_each_mark(&qds::decode(), |kept, m| {
        let Message::Decode(d) = m else { panic!() };
        assert_eq!(d.message, "CQ K1ABC FN42");
        assert_eq!(d.low_confidence.is_some(), kept >= 1);
        assert_eq!(d.off_air.is_some(), kept >= 2);
    });
    at_each_mark(&qds::qso_logged(), |kept, m| {
        let Message::QsoLogged(q) = m else { panic!() };
        assert!(q.time_on.is_some(), "the required fields stay");
        let present = [
            q.operator_call.is_some(),
            q.my_call.is_some(),
            q.my_grid.is_some(),
            q.exchange_sent.is_some(),
            q.exchange_received.is_some(),
            q.propagation_mode.is_some(),
        ];
        let expected: Vec<bool> = (0..present.len()).map(|i| i < kept).collect();
        assert_eq!(present.to_vec(), expected, "{kept} kept");
    });
}

#[test]
fn a_required_field_left_out_or_an_optional_one_cut_short_is_an_error() {
    let full = qds::qso_logged();
    let time_on_at = full.marks[0] - 13;
    let (message, field, at, fault) = field_error(&full.bytes[..time_on_at]);
    assert_eq!(
        (message.as_str(), field, at, fault),
        ("QSO Logged", "Date & Time On", time_on_at, Fault::Truncated)
    );
    // Two bytes into My call's length.
    let my_call_at = full.marks[1];
    let (_, field, at, fault) = field_error(&full.bytes[..my_call_at + 2]);
    assert_eq!(
        (field, at, fault),
        ("My call", my_call_at, Fault::Truncated)
    );
    // The status's required fields end with DX grid.
    let status = qds::status();
    let (message, field, ..) = field_error(&status.bytes[..status.marks[0] - 1]);
    assert_eq!((message.as_str(), field), ("Status", "DX grid"));
}

#[test]
fn the_error_reads_as_a_log_line() {
    let full = qds::qso_logged();
    // Header 4 + 4 + 4 + (4 + 6), time off 13, DX call 4 + 5, DX grid 4 + 4, frequency 8,
    // mode 4 + 3: Report sent starts at byte 67.
    let err = decode(&full.bytes[..69]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "QSO Logged: truncated in field 'Report sent' at byte 67"
    );
    assert_eq!(
        decode(&[0xAD, 0xBC]).unwrap_err().to_string(),
        "header: truncated in field 'Magic number' at byte 0"
    );
    assert_eq!(
        decode(&[]).unwrap_err().to_string(),
        "header: truncated in field 'Magic number' at byte 0"
    );
}

#[test]
fn fields_appended_by_newer_senders_and_jtdx_are_ignored() {
    let mut q = qds::qso_logged();
    let plain = qso(&q);
    qds::jtdx_tail(&mut q);
    assert_eq!(qso(&q), plain);

    let mut s = qds::status();
    let plain = status(&s);
    qds::jtdx_tail(&mut s);
    assert_eq!(status(&s), plain);

    let mut h = qds::heartbeat();
    let plain = decoded(&h);
    h.put_utf8("a field of 2030");
    assert_eq!(decoded(&h), plain);
}

#[test]
fn null_strings_read_as_empty() {
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(DAY, TIME_OFF_MS, Spec::Utc)
        .put_utf8("K1ABC")
        .put_null()
        .put_u64(7_074_000)
        .put_utf8("FT8")
        .put_null()
        .put_null()
        .put_null()
        .put_null()
        .put_null()
        .put_qdatetime(DAY, TIME_ON_MS, Spec::Utc)
        .put_null()
        .put_utf8("W1AW")
        .put_null()
        .put_null()
        .put_null()
        .put_null();
    let m = qso(&q);
    assert_eq!(m.dx_grid, "");
    assert_eq!(m.report_sent, "");
    assert_eq!(m.name, "");
    assert_eq!(m.operator_call.as_deref(), Some(""));
    assert_eq!(m.my_call.as_deref(), Some("W1AW"));
    assert_eq!(m.propagation_mode.as_deref(), Some(""));

    let mut nameless = Qds::default();
    nameless
        .put_u32(qds::MAGIC)
        .put_u32(2)
        .put_u32(6)
        .put_null();
    assert_eq!(decoded(&nameless), Message::Close { id: String::new() });

    let mut status = Qds::header(2, 1, "WSJT-X");
    status.put_u64(0);
    for _ in 0..4 {
        status.put_null();
    }
    status.put_bool(false).put_bool(false).put_bool(false);
    status.put_u32(0).put_u32(0);
    for _ in 0..3 {
        status.put_null();
    }
    assert_eq!(self::status(&status).dx_call, "");
}

#[test]
fn a_wrong_magic_or_schema_is_refused() {
    let mut q = qds::heartbeat();
    q.bytes[0] = 0xAE;
    let err = decode(&q.bytes).unwrap_err();
    assert_eq!(err, DecodeError::Magic { found: 0xAEBC_CBDA });
    assert_eq!(
        err.to_string(),
        "not a WSJT-X datagram: it starts 0xaebccbda, not the magic number 0xadbccbda"
    );
    for schema in [0, 4, u32::MAX] {
        let mut q = Qds::default();
        q.put_u32(qds::MAGIC)
            .put_u32(schema)
            .put_u32(0)
            .put_utf8("WSJT-X");
        let err = decode(&q.bytes).unwrap_err();
        assert_eq!(err, DecodeError::Schema { found: schema });
        assert!(err.to_string().contains("1 to 3"), "{err}");
    }
    for schema in 1..=3 {
        let mut q = Qds::header(schema, 6, "WSJT-X");
        q.put_u8(0);
        assert!(decode(&q.bytes).is_ok(), "schema {schema}");
    }
}

#[test]
fn text_that_is_not_utf8_or_runs_past_the_end_is_refused() {
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(DAY, 0, Spec::Utc);
    let dx_call_at = q.bytes.len();
    q.put_bytes(&[b'K', 0xFF, b'A']);
    let (message, field, at, fault) = field_error(&q.bytes);
    assert_eq!(
        (message.as_str(), field, at, fault),
        ("QSO Logged", "DX call", dx_call_at, Fault::NotUtf8)
    );

    let mut q = Qds::header(2, 12, "WSJT-X");
    let adif_at = q.bytes.len();
    q.put_u32(4000).bytes.extend_from_slice(b"<call:5>K1ABC");
    let err = decode(&q.bytes).unwrap_err();
    assert_eq!(
        err,
        DecodeError::Field {
            message: "Logged ADIF".into(),
            field: "ADIF text",
            at: adif_at,
            fault: Fault::PastEnd {
                length: 4000,
                left: 13
            },
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "Logged ADIF: a length of 4000 bytes that runs past the end (13 left) in field 'ADIF text' at byte {adif_at}"
        )
    );
    // A length just short of null, on a 32-bit or 64-bit machine alike.
    let mut q = Qds::header(2, 6, "");
    q.bytes.truncate(12);
    q.put_u32(u32::MAX - 1);
    assert!(matches!(
        field_error(&q.bytes).3,
        Fault::PastEnd {
            length: 0xFFFF_FFFE,
            left: 0
        }
    ));
}

/// A QSO Logged whose time on is `write`'s, with an Operator call after it.
fn with_time_on(write: impl FnOnce(&mut Qds)) -> Qds {
    let mut q = Qds::header(2, 5, "WSJT-X");
    q.put_qdatetime(DAY, TIME_OFF_MS, Spec::Utc)
        .put_utf8("K1ABC")
        .put_utf8("")
        .put_u64(7_074_000)
        .put_utf8("FT8");
    for _ in 0..5 {
        q.put_utf8("");
    }
    write(&mut q);
    q.put_utf8("W1AW");
    q
}

#[test]
fn impossible_date_times_are_refused() {
    let cases: Vec<(Qds, &str)> = vec![
        (
            with_time_on(|q| {
                q.put_qdatetime(DAY, 86_400_000, Spec::Utc);
            }),
            "86400000 ms after midnight",
        ),
        (
            with_time_on(|q| {
                q.put_qdatetime(0, 0, Spec::Utc);
            }),
            "Julian day 0",
        ),
        (
            with_time_on(|q| {
                q.put_qdatetime(i64::MAX, 0, Spec::Utc);
            }),
            "outside the years 1 to 9999",
        ),
        (
            with_time_on(|q| {
                q.put_i64(DAY).put_u32(0).put_u8(7);
            }),
            "time spec 7",
        ),
        (
            with_time_on(|q| {
                q.put_qdatetime(DAY, 0, Spec::Offset(20 * 3600));
            }),
            "72000 s from UTC",
        ),
    ];
    for (q, says) in cases {
        let err = decode(&q.bytes).unwrap_err();
        let DecodeError::Field { field, fault, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*field, "Date & Time On");
        assert!(matches!(fault, Fault::DateTime(_)), "{fault:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("QSO Logged: an impossible date-time (") && text.contains(says),
            "{text}"
        );
    }
    let mut d = Qds::header(2, 2, "WSJT-X");
    d.put_bool(true).put_qtime(90_000_000);
    assert_eq!(field_error(&d.bytes).3, Fault::TimeOfDay(90_000_000));
}

#[test]
fn null_times_decode_as_absent() {
    let q = with_time_on(|q| {
        q.put_null_qdatetime();
    });
    let m = qso(&q);
    assert_eq!(m.time_on, None);
    assert_eq!(
        m.operator_call.as_deref(),
        Some("W1AW"),
        "read on past the null"
    );
    let mut d = Qds::header(2, 2, "WSJT-X");
    d.put_bool(false)
        .put_qtime(u32::MAX)
        .put_i32(0)
        .put_f64(0.0)
        .put_u32(0)
        .put_utf8("`")
        .put_utf8("");
    let Message::Decode(d) = decoded(&d) else {
        panic!()
    };
    assert_eq!(d.time, None);
}

#[test]
fn offsets_and_zones_are_read_and_zones_refused_when_converted() {
    // 17:10:05.250 at UTC+02:00 is 15:10:05.250 UTC.
    let q = qso(&with_time_on(|q| {
        q.put_qdatetime(DAY, TIME_ON_MS + 2 * 3_600_000, Spec::Offset(7200));
    }));
    let on = q.time_on.unwrap();
    assert_eq!(on.spec, TimeSpec::Offset(7200));
    assert_eq!(
        on.timestamp().unwrap().to_string(),
        "2026-11-07T15:10:05.250Z"
    );

    let q = qso(&with_time_on(|q| {
        q.put_qdatetime(DAY, TIME_ON_MS, Spec::Zone("Europe/Warsaw"));
    }));
    assert_eq!(
        q.operator_call.as_deref(),
        Some("W1AW"),
        "read on past the zone"
    );
    let on = q.time_on.unwrap();
    assert_eq!(on.spec, TimeSpec::Zone("Europe/Warsaw".into()));
    assert_eq!(on.timestamp(), Err(TimeError::Zone("Europe/Warsaw".into())));

    // JTDX's local time is UTC.
    let q = qso(&with_time_on(|q| {
        q.put_qdatetime(DAY, TIME_ON_MS, Spec::Local);
    }));
    assert_eq!(
        q.time_on.unwrap().timestamp().unwrap().to_string(),
        "2026-11-07T15:10:05.250Z"
    );
}

#[test]
fn schema_1_wrote_utc_and_no_offset_after_the_spec() {
    // Qt 5.0's stream: the UTC day and time, the spec alone; My call follows at once.
    let mut q = Qds::header(1, 5, "WSJT-X");
    q.put_qdatetime(DAY, TIME_OFF_MS, Spec::Utc)
        .put_utf8("K1ABC")
        .put_utf8("")
        .put_u64(7_074_000)
        .put_utf8("FT8");
    for _ in 0..5 {
        q.put_utf8("");
    }
    q.put_qdatetime(DAY, TIME_ON_MS, Spec::Utc);
    // Spec 2 in schema 1: no offset follows.
    let spec_at = q.bytes.len() - 1;
    q.bytes[spec_at] = 2;
    q.put_utf8("W1AW");
    let m = qso(&q);
    assert_eq!(m.time_on.unwrap().spec, TimeSpec::Utc);
    assert_eq!(m.operator_call.as_deref(), Some("W1AW"));
}
