//! Broadcasts to contacts, field by field, and their keys.

use svc_model::{ContactInput, Field};
use svc_n1mm::{Broadcast, ContactError, ContactInfo, contact, decode, once_key};

use super::fixtures;

fn info(datagram: &str) -> ContactInfo {
    match decode(datagram.as_bytes()) {
        Ok(Broadcast::Contact(info) | Broadcast::Replace(info)) => info,
        Ok(Broadcast::Delete { info, .. }) => info,
        other => panic!("not a contact: {other:?}"),
    }
}

fn made(datagram: &str) -> ContactInput {
    contact(&info(datagram), "fld_1").unwrap()
}

fn adif(c: &ContactInput) -> Vec<(&str, &str)> {
    c.fields
        .adif
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[test]
fn n1mm_plus_field_by_field() {
    let c = made(fixtures::N1MM_PLUS);
    assert_eq!(c.folder_id, "fld_1");
    assert_eq!(c.callsign, "SP9XYZ");
    assert_eq!(c.time_on, "2026-10-07T08:48:27Z");
    assert_eq!(c.frequency, 14.2);
    assert_eq!(
        c.mode, "USB",
        "USB is an ADIF submode of SSB, kept as the model keeps it"
    );
    assert_eq!(c.rst_sent.as_deref(), Some("59"));
    assert_eq!(c.rst_received.as_deref(), Some("59"));
    assert_eq!(c.name, None);
    assert_eq!(c.notes, None);
    assert_eq!(c.station_callsign.as_deref(), Some("SQ8BWM"));
    let f = &c.fields;
    assert!(!f.band_only);
    assert_eq!(f.get(Field::Operator), Some("SQ8BWM"));
    assert_eq!(f.get(Field::Cont), Some("EU"));
    assert_eq!(f.get(Field::Pfx), Some("SP9"));
    assert_eq!(f.get(Field::Stx), Some("2"));
    assert_eq!(f.get(Field::Srx), None, "rcvnr 0 is none");
    assert_eq!(f.get(Field::Cqz), Some("15"));
    assert_eq!(f.get(Field::FreqRx), Some("14.2"));
    assert_eq!(
        f.get(Field::ContestId),
        None,
        "DX is N1MM's general logging"
    );
    assert_eq!(f.get(Field::Comment), None);
    assert_eq!(f.get(Field::Gridsquare), None);
    assert_eq!(f.get(Field::TxPwr), None);
    assert_eq!(
        adif(&c),
        [
            ("APP_N1MM_CLAIMEDQSO", "1"),
            ("APP_N1MM_ID", "65ba385c74de4adf904276960075534c"),
            ("APP_N1MM_RADIO_NR", "1"),
        ],
        "ck 0 is none"
    );
}

#[test]
fn the_other_real_datagrams() {
    let ft8 = made(fixtures::N1MM_FT8);
    assert_eq!(ft8.callsign, "EA5EB");
    assert_eq!(ft8.time_on, "2023-06-30T18:00:30Z");
    assert_eq!(ft8.frequency, 28.07535);
    assert_eq!(ft8.mode, "FT8");
    assert_eq!(ft8.rst_sent.as_deref(), Some("-08"));
    assert_eq!(ft8.rst_received.as_deref(), Some("-11"));
    assert_eq!(ft8.fields.get(Field::Comment), Some("Balcony Outback 2000"));
    assert_eq!(
        ft8.notes, None,
        "COMMENT is the comment field, as the ADIF import has it"
    );
    assert_eq!(ft8.fields.get(Field::Gridsquare), Some("IM99"));
    assert_eq!(ft8.fields.get(Field::Cqz), None, "zone 0 is none");

    let log4om = made(fixtures::LOG4OM);
    assert_eq!(log4om.callsign, "SP5TEST");
    assert_eq!(log4om.frequency, 14.074);
    assert_eq!(log4om.mode, "FT8");
    assert_eq!(log4om.fields.get(Field::TxPwr), Some("100"));
    assert_eq!(log4om.fields.get(Field::Gridsquare), Some("KO02"));
    assert_eq!(log4om.fields.get(Field::Operator), None);
    assert_eq!(log4om.fields.get(Field::FreqRx), None);
    assert_eq!(log4om.station_callsign.as_deref(), Some("SQ8BWM"));

    let qartest = made(fixtures::QARTEST);
    assert_eq!(qartest.callsign, "SN0TEST");
    assert_eq!(qartest.frequency, 1.8);
    assert_eq!(qartest.mode, "LSB");
    assert_eq!(qartest.time_on, "2026-10-05T19:27:29Z");
    assert_eq!(qartest.fields.get(Field::ContestId), Some("XXXXXXXXXX"));
    assert_eq!(qartest.fields.get(Field::Pfx), Some("SN0"));
    assert_eq!(adif(&qartest), [("APP_N1MM_ID", "72E032A6")]);
}

/// A Sweepstakes contact written from the documentation's element list.
const SWEEPSTAKES: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>
<contactinfo>
\t<app>N1MM</app>
\t<contestname>ARRL-SS-CW</contestname>
\t<contestnr>12</contestnr>
\t<timestamp>2025-11-01 21:05:09</timestamp>
\t<mycall>w1aw</mycall>
\t<band>7</band>
\t<rxfreq>703600</rxfreq>
\t<txfreq>703512</txfreq>
\t<operator>k1op</operator>
\t<mode>cw</mode>
\t<call>k9xyz</call>
\t<snt>599</snt>
\t<sntnr>117</sntnr>
\t<rcv>599</rcv>
\t<rcvnr>42</rcvnr>
\t<gridsquare>en52</gridsquare>
\t<exchange1>A</exchange1>
\t<section>IL</section>
\t<comment>loud</comment>
\t<qth>Chicago</qth>
\t<name>Pat</name>
\t<power>100W</power>
\t<zone>4</zone>
\t<prec>A</prec>
\t<ck>72</ck>
\t<continent>NA</continent>
\t<wpxprefix>K9</wpxprefix>
\t<radionr>2</radionr>
\t<IsClaimedQso>1</IsClaimedQso>
\t<ID>0c6f2a9e41d84b3c9d7a5e1f2b3c4d5e</ID>
</contactinfo>";

#[test]
fn a_contest_contact_field_by_field() {
    let c = made(SWEEPSTAKES);
    assert_eq!(c.callsign, "K9XYZ");
    assert_eq!(c.time_on, "2025-11-01T21:05:09Z");
    assert_eq!(c.frequency, 7.03512, "txfreq, not rxfreq");
    assert_eq!(c.mode, "CW");
    assert_eq!(c.rst_sent.as_deref(), Some("599"));
    assert_eq!(c.rst_received.as_deref(), Some("599"));
    assert_eq!(c.name.as_deref(), Some("Pat"));
    assert_eq!(c.station_callsign.as_deref(), Some("W1AW"));
    let f = &c.fields;
    assert_eq!(f.get(Field::ContestId), Some("ARRL-SS-CW"));
    assert_eq!(f.get(Field::Stx), Some("117"));
    assert_eq!(f.get(Field::Srx), Some("42"));
    assert_eq!(f.get(Field::Cqz), Some("4"));
    assert_eq!(f.get(Field::Ituz), None);
    assert_eq!(f.get(Field::FreqRx), Some("7.036"));
    assert_eq!(f.get(Field::Comment), Some("loud"));
    assert_eq!(f.get(Field::Qth), Some("Chicago"));
    assert_eq!(f.get(Field::TxPwr), Some("100"));
    assert_eq!(f.get(Field::Operator), Some("K1OP"));
    assert_eq!(f.get(Field::Gridsquare), Some("EN52"));
    assert_eq!(f.get(Field::Cont), Some("NA"));
    assert_eq!(f.get(Field::Pfx), Some("K9"));
    assert!(!f.band_only);
    assert_eq!(
        adif(&c),
        [
            ("APP_N1MM_CLAIMEDQSO", "1"),
            ("APP_N1MM_EXCHANGE1", "A"),
            ("APP_N1MM_ID", "0c6f2a9e41d84b3c9d7a5e1f2b3c4d5e"),
            ("APP_N1MM_RADIO_NR", "2"),
            ("ARRL_SECT", "IL"),
            ("CHECK", "72"),
            ("PRECEDENCE", "A"),
        ]
    );
    // Nothing outside the model's table or ADIF's names.
    assert!(c.fields.check_adif_clash().is_ok());
}

#[test]
fn the_iaru_contest_zone_is_itu() {
    let c = made(
        "<contactinfo><contestname>IARU-HF</contestname><timestamp>2025-07-12 12:00:00</timestamp>\
<call>DL1AB</call><mode>CW</mode><txfreq>1402500</txfreq><zone>28</zone></contactinfo>",
    );
    assert_eq!(c.fields.get(Field::Ituz), Some("28"));
    assert_eq!(c.fields.get(Field::Cqz), None);
}

#[test]
fn a_check_of_00_is_a_year_and_0_is_none() {
    let check = |ck: &str| {
        made(&format!(
            "<contactinfo><timestamp>2025-11-01 21:05:09</timestamp><call>K9XYZ</call>\
<mode>CW</mode><txfreq>703512</txfreq><ck>{ck}</ck></contactinfo>"
        ))
        .fields
        .adif
        .get("CHECK")
        .cloned()
    };
    assert_eq!(check("00").as_deref(), Some("00"));
    assert_eq!(check("0"), None);
}

#[test]
fn a_value_a_field_refuses_is_kept_under_its_adif_name() {
    let c = made(
        "<contactinfo><timestamp>2025-07-12 12:00:00</timestamp><call>DL1AB</call><mode>CW</mode>\
<txfreq>1402500</txfreq><zone>99</zone><gridsquare>not a grid</gridsquare></contactinfo>",
    );
    assert_eq!(c.fields.get(Field::Cqz), None);
    assert_eq!(c.fields.adif.get("CQZ").map(String::as_str), Some("99"));
    assert_eq!(
        c.fields.adif.get("GRIDSQUARE").map(String::as_str),
        Some("not a grid")
    );
}

fn with(frequencies: &str) -> Result<ContactInput, ContactError> {
    contact(
        &info(&format!(
            "<contactinfo><timestamp>2025-07-12 12:00:00</timestamp><call>DL1AB</call>\
<mode>USB</mode>{frequencies}</contactinfo>"
        )),
        "fld_1",
    )
}

#[test]
fn frequency_from_tx_then_rx_then_the_band() {
    let tx = with("<band>14</band><txfreq>1420000</txfreq><rxfreq>1420500</rxfreq>").unwrap();
    assert_eq!((tx.frequency, tx.fields.band_only), (14.2, false));
    assert_eq!(tx.fields.get(Field::FreqRx), Some("14.205"));

    let rx = with("<band>14</band><txfreq>0</txfreq><rxfreq>1420500</rxfreq>").unwrap();
    assert_eq!((rx.frequency, rx.fields.band_only), (14.205, false));

    for (band, edge) in [
        ("3.5", 3.5),
        ("1.8", 1.8),
        ("10", 10.1),
        ("5", 5.06),
        ("24", 24.89),
        ("50", 50.0),
        ("144", 144.0),
        ("420", 420.0),
        ("1240", 1240.0),
        ("3,5", 3.5),
        ("20m", 14.0),
        ("160", 1.8),
    ] {
        let c = with(&format!("<band>{band}</band><txfreq></txfreq>")).unwrap();
        assert_eq!((c.frequency, c.fields.band_only), (edge, true), "{band}");
        assert_eq!(c.fields.get(Field::FreqRx), None);
    }

    assert_eq!(with(""), Err(ContactError::NoFrequency));
    assert_eq!(
        with("<band>99999999</band>"),
        Err(ContactError::NoFrequency)
    );
    assert_eq!(with("<txfreq>abc</txfreq>"), Err(ContactError::NoFrequency));
}

#[test]
fn modes_as_the_model_keeps_them() {
    for (sent, kept) in [
        ("USB", "USB"),
        ("lsb", "LSB"),
        ("CW", "CW"),
        ("RTTY", "RTTY"),
        ("FT8", "FT8"),
        ("ft4", "FT4"),
        ("PSK31", "PSK31"),
        ("SSB", "SSB"),
        ("FM", "FM"),
        ("AM", "AM"),
    ] {
        let c = contact(
            &info(&format!(
                "<contactinfo><timestamp>2025-07-12 12:00:00</timestamp><call>DL1AB</call>\
<mode>{sent}</mode><txfreq>1420000</txfreq></contactinfo>"
            )),
            "f",
        )
        .unwrap();
        assert_eq!(c.mode, kept, "{sent}");
    }
}

#[test]
fn what_makes_no_contact_is_said() {
    let base = |extra: &str, time: &str| {
        info(&format!(
            "<contactinfo><timestamp>{time}</timestamp><call>DL1AB</call><txfreq>1420000</txfreq>{extra}</contactinfo>"
        ))
    };
    assert_eq!(
        contact(&base("", "2025-07-12 12:00:00"), "f"),
        Err(ContactError::NoMode)
    );
    assert_eq!(
        contact(&base("<mode>&lt;b&gt;</mode>", "2025-07-12 12:00:00"), "f"),
        Err(ContactError::Mode("<b>".into()))
    );
    for bad in [
        "yesterday",
        "2025-13-12 12:00:00",
        "2025-07-12",
        "12:00:00 2025-07-12",
    ] {
        assert_eq!(
            contact(&base("<mode>CW</mode>", bad), "f"),
            Err(ContactError::Timestamp(bad.into())),
            "{bad}"
        );
    }
    for (fine, kept) in [
        ("2025-07-12T12:00:01Z", "2025-07-12T12:00:01Z"),
        ("2025-07-12 12:00:01.734", "2025-07-12T12:00:01Z"),
        ("2025-7-2 9:05", "2025-07-02T09:05:00Z"),
    ] {
        let c = contact(&base("<mode>CW</mode>", fine), "f").unwrap();
        assert_eq!(c.time_on, kept, "{fine}");
    }
    // A caller's own struct may lack what decode insists on.
    assert_eq!(
        contact(&ContactInfo::default(), "f"),
        Err(ContactError::NoCall)
    );
    let no_time = ContactInfo {
        call: Some("K1ABC".into()),
        ..ContactInfo::default()
    };
    assert_eq!(contact(&no_time, "f"), Err(ContactError::NoTimestamp));
}

#[test]
fn the_key_is_the_contact_id_when_there_is_one() {
    let logged = info(fixtures::N1MM_PLUS);
    let key = once_key(&logged);
    assert!(key.starts_with("n1mm-"), "{key}");
    assert_eq!(key.len(), 5 + 64);
    assert_eq!(
        once_key(&info(fixtures::N1MM_PLUS)),
        key,
        "heard twice, one key"
    );

    // Passed on by another computer of the network, or edited: the same contact.
    let mut relayed = logged.clone();
    relayed.is_original = Some("False".into());
    relayed.networked_comp_nr = Some("2".into());
    assert_eq!(once_key(&relayed), key);
    let mut edited = logged.clone();
    edited.call = Some("SP9XYW".into());
    edited.timestamp = Some("2026-10-07 08:49:00".into());
    assert_eq!(once_key(&edited), key);
    let mut upper = logged.clone();
    upper.id = Some(" 65BA385C74DE4ADF904276960075534C ".into());
    assert_eq!(once_key(&upper), key, "a GUID in any case");

    // The delete names it by its ID alone.
    let delete = "<contactdelete><app>N1MM</app><timestamp>2026-10-07 08:48:27</timestamp>\
<call>SP9XYZ</call><ID>65ba385c74de4adf904276960075534c</ID></contactdelete>";
    assert_eq!(once_key(&info(delete)), key);

    let mut other = logged.clone();
    other.id = Some("75ba385c74de4adf904276960075534c".into());
    assert_ne!(once_key(&other), key);
}

#[test]
fn without_an_id_the_key_is_what_the_contact_says() {
    let logged = info(fixtures::LOG4OM);
    let key = once_key(&logged);
    assert_eq!(once_key(&info(fixtures::LOG4OM)), key);

    let mut same = logged.clone();
    same.call = Some("sp5test".into());
    same.mode = Some("ft8".into());
    same.timestamp = Some("2026-10-07T08:05:40Z".into());
    same.snt = Some("-10".into());
    same.comment = Some("reports and comments are not the contact".into());
    assert_eq!(once_key(&same), key);

    for change in [
        |i: &mut ContactInfo| i.call = Some("SP5TESU".into()),
        |i: &mut ContactInfo| i.timestamp = Some("2026-10-07 08:05:41".into()),
        |i: &mut ContactInfo| i.band = Some("7".into()),
        |i: &mut ContactInfo| i.mode = Some("FT4".into()),
        |i: &mut ContactInfo| i.id = Some("x".into()),
    ] {
        let mut changed = logged.clone();
        change(&mut changed);
        assert_ne!(once_key(&changed), key, "{changed:?}");
    }
}
