//! Datagrams to broadcasts: the real ones, and hand-written ones for each case N1MM's
//! documentation describes and each way a datagram can be wrong.

use svc_n1mm::{Broadcast, ContactInfo, DecodeError, decode};

use super::fixtures;

fn contact_of(datagram: &str) -> ContactInfo {
    match decode(datagram.as_bytes()) {
        Ok(Broadcast::Contact(info)) => info,
        other => panic!("not a contact: {other:?}"),
    }
}

fn error_of(datagram: &[u8]) -> DecodeError {
    match decode(datagram) {
        Err(e) => e,
        Ok(b) => panic!("decoded: {b:?}"),
    }
}

#[test]
fn n1mm_plus_keeps_every_element() {
    let info = contact_of(fixtures::N1MM_PLUS);
    assert_eq!(info.app.as_deref(), Some("N1MM"));
    assert_eq!(info.contestname.as_deref(), Some("DX"));
    assert_eq!(info.timestamp.as_deref(), Some("2026-10-07 08:48:27"));
    assert_eq!(info.mycall.as_deref(), Some("SQ8BWM"));
    assert_eq!(info.band.as_deref(), Some("14"));
    assert_eq!(info.txfreq.as_deref(), Some("1420000"));
    assert_eq!(info.rxfreq.as_deref(), Some("1420000"));
    assert_eq!(info.mode.as_deref(), Some("USB"));
    assert_eq!(info.call.as_deref(), Some("SP9XYZ"));
    assert_eq!(info.snt.as_deref(), Some("59"));
    assert_eq!(info.sntnr.as_deref(), Some("2"));
    assert_eq!(info.zone.as_deref(), Some("15"));
    assert_eq!(info.is_original.as_deref(), Some("True"));
    assert_eq!(info.station_name.as_deref(), Some("DESKTOP-P35FDV1"));
    assert_eq!(info.id.as_deref(), Some("65ba385c74de4adf904276960075534c"));
    assert_eq!(info.oldcall.as_deref(), Some("SP9XYZ"));
    // Empty elements are absent values, the self-closing one included.
    for empty in [
        &info.gridsquare,
        &info.exchange1,
        &info.section,
        &info.comment,
        &info.name,
        &info.power,
        &info.rover_location,
    ] {
        assert_eq!(*empty, None);
    }
    assert_eq!(info.get("SentExchange"), None);
    // Elements without a field are kept, in order, under their names as written.
    let names: Vec<&str> = info.other.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["dbname", "CabrilloString"]);
    assert_eq!(info.get("DBNAME"), Some("N1MM DXLog.s3db"));
    assert!(info.get("cabrillostring").is_some_and(|c| {
        c.starts_with("QSO:   14200 PH 2026-10-07 0848 SQ8BWM") && c.ends_with("59")
    }));
    assert_eq!(info.get("networkedcompnr"), Some("0"));
}

#[test]
fn every_real_datagram_is_a_contact() {
    let ft8 = contact_of(fixtures::N1MM_FT8);
    assert_eq!(ft8.comment.as_deref(), Some("Balcony Outback 2000"));
    assert_eq!(ft8.gridsquare.as_deref(), Some("IM99"));
    assert_eq!(ft8.snt.as_deref(), Some("-08"));

    let log4om = contact_of(fixtures::LOG4OM);
    assert_eq!(log4om.app.as_deref(), Some("LOG4OM2"));
    assert_eq!(log4om.operator, None);
    assert_eq!(log4om.id, None);
    assert_eq!(log4om.power.as_deref(), Some("100.0"));

    let qartest = contact_of(fixtures::QARTEST);
    assert_eq!(
        qartest.id.as_deref(),
        Some("72E032A6"),
        "<id> in lower case"
    );
    assert_eq!(qartest.station_name, None);
    assert_eq!(qartest.get("logger"), Some("QARTest 16.9.1"));
    assert_eq!(qartest.get("EXCH2"), Some("59"));
    assert_eq!(qartest.get("exch1"), None);
}

#[test]
fn a_replace_and_a_delete() {
    // From the documentation's field list: the contact as edited, with what it was.
    let replace = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<contactreplace>
  <app>N1MM</app>
  <contestname>CWOPS</contestname>
  <timestamp>2020-01-17 16:45:02</timestamp>
  <mycall>W2XYZ</mycall>
  <band>3.5</band>
  <txfreq>352519</txfreq>
  <mode>CW</mode>
  <call>W1AW</call>
  <ID>a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6</ID>
  <oldcall>W1AX</oldcall>
  <oldtimestamp>2020-01-17 16:43:38</oldtimestamp>
</contactreplace>";
    let Ok(Broadcast::Replace(info)) = decode(replace.as_bytes()) else {
        panic!("not a replace");
    };
    assert_eq!(info.call.as_deref(), Some("W1AW"));
    assert_eq!(info.oldcall.as_deref(), Some("W1AX"));
    assert_eq!(info.oldtimestamp.as_deref(), Some("2020-01-17 16:43:38"));

    // The documentation's delete: the ID, the call and the time, no mode or frequency.
    let delete = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<contactdelete>
\t<app>N1MM</app>
\t<timestamp>2020-01-17 16:43:38</timestamp>
\t<mycall>W2XYZ</mycall>
\t<band>3.5</band>
\t<call>W1AW</call>
\t<contestnr>73</contestnr>
\t<StationName>CONTEST-PC</StationName>
\t<ID>a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6</ID>
</contactdelete>";
    let Ok(Broadcast::Delete { id, info }) = decode(delete.as_bytes()) else {
        panic!("not a delete");
    };
    assert_eq!(id.as_deref(), Some("a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"));
    assert_eq!(info.call.as_deref(), Some("W1AW"));
    assert_eq!(info.station_name.as_deref(), Some("CONTEST-PC"));

    // Older versions: no ID, the call and time name the contact.
    let old = b"<contactdelete><app>N1MM</app><timestamp>2016-04-10 16:17:41</timestamp>\
<call>W2BBB</call><contestnr>10</contestnr><StationName>PHONE-15M</StationName></contactdelete>";
    let Ok(Broadcast::Delete { id: None, info }) = decode(old) else {
        panic!("not a delete without an ID");
    };
    assert_eq!(info.call.as_deref(), Some("W2BBB"));

    let nameless = b"<contactdelete><app>N1MM</app><StationName>X</StationName></contactdelete>";
    assert_eq!(error_of(nameless), DecodeError::NoContact);
}

#[test]
fn other_broadcasts_are_named_by_their_root() {
    let radio = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>
<RadioInfo>
\t<app>N1MM</app>
\t<StationName>CONTEST-PC</StationName>
\t<RadioNr>1</RadioNr>
\t<Freq>352211</Freq>
\t<TXFreq>352211</TXFreq>
\t<Mode>CW</Mode>
\t<OpCall>W2XYZ</OpCall>
\t<IsRunning>False</IsRunning>
\t<FocusEntry>00000</FocusEntry>
\t<Antenna>4</Antenna>
\t<Rotors>tribander</Rotors>
\t<FocusRadioNr>1</FocusRadioNr>
\t<IsStereo>False</IsStereo>
\t<ActiveRadioNr>1</ActiveRadioNr>
</RadioInfo>";
    assert_eq!(
        decode(radio),
        Ok(Broadcast::Other {
            root: "RadioInfo".into()
        })
    );
    let app = b"<?xml version=\"1.0\"?><AppInfo><app>N1MM</app><dbname>x.s3db</dbname><contestnr>1</contestnr></AppInfo>";
    assert_eq!(
        decode(app),
        Ok(Broadcast::Other {
            root: "AppInfo".into()
        })
    );
    // A spot or score needs no call or timestamp of ours; an empty root is still a root.
    assert_eq!(
        decode(b"<spot/>"),
        Ok(Broadcast::Other {
            root: "spot".into()
        })
    );
}

#[test]
fn unknown_elements_are_kept_and_nested_ones_skipped() {
    let info = contact_of(
        "<contactinfo><timestamp>2024-02-17 00:01:02</timestamp><call>K1ABC</call>\
<mode>CW</mode><NewThing a=\"1\">  value  </NewThing><nested><call>WRONG</call>kept text</nested>\
<call>K1ABD</call><empty/></contactinfo>",
    );
    assert_eq!(info.call.as_deref(), Some("K1ABC"), "the first call wins");
    assert_eq!(
        info.other,
        [
            ("NewThing".to_owned(), "value".to_owned()),
            ("nested".to_owned(), "kept text".to_owned()),
            ("call".to_owned(), "K1ABD".to_owned()),
        ]
    );
}

#[test]
fn element_names_in_any_case() {
    let info = contact_of(
        "<CONTACTINFO><APP>N1MM</APP><TIMESTAMP>2024-02-17 00:01:02</TIMESTAMP>\
<Call>k1abc</Call><MODE>cw</MODE><TxFreq>702500</TxFreq><ISORIGINAL>true</ISORIGINAL>\
<id>ABC</id></CONTACTINFO>",
    );
    assert_eq!(info.call.as_deref(), Some("k1abc"), "values as read");
    assert_eq!(info.mode.as_deref(), Some("cw"));
    assert_eq!(info.txfreq.as_deref(), Some("702500"));
    assert_eq!(info.is_original.as_deref(), Some("true"));
    assert_eq!(info.id.as_deref(), Some("ABC"));
    assert!(info.other.is_empty());
    let Ok(Broadcast::Replace(_)) = decode(
        b"<ContactReplace><call>K1ABC</call><timestamp>2024-02-17 00:01:02</timestamp></ContactReplace>",
    ) else {
        panic!("not a replace");
    };
}

#[test]
fn a_bom_whitespace_entities_and_cdata() {
    let mut datagram = b"\xEF\xBB\xBF \r\n\t".to_vec();
    datagram.extend_from_slice(
        b"<?xml version=\"1.0\"?><!-- a comment --><contactinfo>\
<timestamp>2024-02-17 00:01:02</timestamp><call>K1ABC</call>\
<comment>Tom &amp; Jerry &#x263A; &lt;3 &unknown;</comment>\
<name><![CDATA[<Zo\xC3\xAB>]]></name></contactinfo>",
    );
    let Ok(Broadcast::Contact(info)) = decode(&datagram) else {
        panic!("not a contact");
    };
    assert_eq!(
        info.comment.as_deref(),
        Some("Tom & Jerry \u{263A} <3 &unknown;")
    );
    assert_eq!(info.name.as_deref(), Some("<Zo\u{eb}>"));
}

#[test]
fn what_is_wrong_is_said_shortly() {
    assert_eq!(error_of(b""), DecodeError::Empty);
    assert_eq!(error_of(b" \r\n"), DecodeError::Empty);
    assert!(
        matches!(error_of(b"hello world, this is not xml"), DecodeError::NotXml(s) if s == "hello world, thi\u{2026}")
    );
    assert!(matches!(error_of(b"\x00\x01\x02"), DecodeError::NotXml(_)));
    assert_eq!(error_of(b"<?xml version=\"1.0\"?>"), DecodeError::NoRoot);
    assert_eq!(
        error_of(b"<contactinfo><call>W1AW</call>"),
        DecodeError::Truncated {
            root: "contactinfo".into()
        }
    );
    let malformed = error_of(b"<contactinfo><call>W1AW</contactinfo>");
    assert!(
        matches!(malformed, DecodeError::Malformed { .. }),
        "{malformed:?}"
    );
    assert!(malformed.to_string().len() < 160, "{malformed}");
    assert_eq!(
        error_of(
            b"<contactinfo><timestamp>2024-02-17 00:01:02</timestamp><call> </call></contactinfo>"
        ),
        DecodeError::NoCall {
            root: "contactinfo".into()
        }
    );
    assert_eq!(
        error_of(b"<ContactReplace><call>W1AW</call><timestamp/></ContactReplace>"),
        DecodeError::NoTimestamp {
            root: "contactreplace".into()
        }
    );
    assert_eq!(
        DecodeError::NoCall {
            root: "contactinfo".into()
        }
        .to_string(),
        "<contactinfo> has no call"
    );
    assert_eq!(
        DecodeError::Truncated {
            root: "contactinfo".into()
        }
        .to_string(),
        "truncated: <contactinfo> is not closed"
    );
}
