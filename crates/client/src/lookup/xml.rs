//! The little of XML the callbooks' answers need: a root element holding sections
//! (`<Session>`, `<Callsign>`; `<session>`, `<search>`), each holding fields with text. Both
//! answers are read this way, so neither format's reader walks XML itself.

use std::collections::HashMap;

use quick_xml::events::Event;

/// An answer: its root element's name and each section's fields, names in lower case
/// (QRZ writes `Callsign` and `Key`, HamQTH `search` and `session_id`; neither relies on case).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Doc {
    pub root: String,
    sections: HashMap<String, HashMap<String, String>>,
}

impl Doc {
    /// The field's text, trimmed; `None` when the section or field is missing or blank.
    pub fn get(&self, section: &str, field: &str) -> Option<&str> {
        self.sections
            .get(section)?
            .get(field)
            .map(|text| text.trim())
            .filter(|text| !text.is_empty())
    }
}

/// Reads an answer. Anything that is not well-formed XML (an HTML error page, a truncated
/// answer) is an error that says where it went wrong; deeper elements are skipped.
pub(super) fn read(text: &str) -> Result<Doc, String> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut doc = Doc::default();
    // The open elements, root first, in lower case.
    let mut open: Vec<String> = Vec::new();
    let mut value = String::new();
    loop {
        let at = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| format!("it is not well-formed XML (at byte {at}: {e})"))?;
        match event {
            Event::Start(tag) | Event::Empty(tag) if open.is_empty() && !doc.root.is_empty() => {
                let name = lower(tag.local_name().as_ref());
                return Err(format!(
                    "it has a second root element <{name}> after <{}>",
                    doc.root
                ));
            }
            Event::Start(tag) => {
                let name = lower(tag.local_name().as_ref());
                if open.is_empty() {
                    doc.root = name.clone();
                }
                open.push(name);
                value.clear();
            }
            // An empty field is as good as a missing one; only an empty root counts.
            Event::Empty(tag) if open.is_empty() => doc.root = lower(tag.local_name().as_ref()),
            Event::Empty(_) => {}
            Event::End(_) => {
                if open.len() == 3 {
                    doc.sections
                        .entry(open[1].clone())
                        .or_default()
                        .insert(open[2].clone(), std::mem::take(&mut value));
                }
                open.pop();
            }
            Event::Text(t) => value.push_str(&t.xml10_content()),
            Event::CData(t) => value.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let name = r.xml10_content();
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&name)
                        .ok_or_else(|| format!("it uses an unknown entity &{name};"))?
                        .to_owned(),
                    Err(e) => {
                        return Err(format!("it has a bad character reference &{name}; ({e})"));
                    }
                };
                value.push_str(&resolved);
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if let Some(inner) = open.last() {
        return Err(format!("it ends inside <{inner}>"));
    }
    if doc.root.is_empty() {
        return Err("it holds no XML element".into());
    }
    Ok(doc)
}

fn lower(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_fields_are_read_in_any_case_with_entities_resolved() {
        let doc = read(
            r#"<?xml version="1.0" encoding="utf-8" ?>
<QRZDatabase version="1.34" xmlns="http://xmldata.qrz.com">
  <Callsign>
    <call>G4ABC</call>
    <fname>Jo &amp; Sam</fname>
    <name><![CDATA[O'Brien]]></name>
    <addr2>Caf&#233; &#x4C;ane</addr2>
    <state/>
    <nested><deep>skipped</deep></nested>
  </Callsign>
  <Session><Key>abc</Key></Session>
</QRZDatabase>"#,
        )
        .unwrap();
        assert_eq!(doc.root, "qrzdatabase");
        assert_eq!(doc.get("callsign", "call"), Some("G4ABC"));
        assert_eq!(doc.get("callsign", "fname"), Some("Jo & Sam"));
        assert_eq!(doc.get("callsign", "name"), Some("O'Brien"));
        assert_eq!(doc.get("callsign", "addr2"), Some("Café Lane"));
        assert_eq!(doc.get("callsign", "state"), None);
        assert_eq!(doc.get("callsign", "deep"), None);
        assert_eq!(doc.get("session", "key"), Some("abc"));
        assert_eq!(doc.get("search", "callsign"), None);
    }

    #[test]
    fn anything_but_well_formed_xml_is_an_error() {
        for (bad, says) in [
            ("", "no XML element"),
            ("   ", "no XML element"),
            ("Internal Server Error", "no XML element"),
            ("<a><b>text</a>", "not well-formed"),
            ("<a><b>text</b>", "ends inside <a>"),
            ("<a/><b/>", "second root"),
            ("<a><b>&nbsp;</b></a>", "unknown entity"),
            ("<a><b>&#0;</b></a>", "bad character reference"),
        ] {
            let e = read(bad).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
