//! ADIF 3.1, the interchange format every amateur-radio logger reads and writes, so that a log
//! can move into svc from WSJT-X, N1MM+, QRZ and the like, and out to POTA, LoTW or another
//! logger.
//!
//! Both encodings are read and written: ADI (tagged text, `<CALL:5>K1ABC`) and ADX (XML).
//! ADI is the default output, because every consumer svc exports to takes ADI and not all of
//! them take ADX; ADX is the one that keeps non-ASCII text exactly (in `_INTL` fields).
//!
//! Records are kept as plain name/value text ([`Record`]) rather than typed fields: loggers
//! add fields of their own (`APP_N1MM_...`) and bend the types of standard ones, and an import
//! must be able to say which fields it did not keep. The typed mapping to svc's contacts lives
//! in [`contact`]; the mode names in [`modes`].

mod adx;
pub mod contact;
mod decode;
pub mod modes;
pub mod pota;
mod read;
mod value;
mod write;

pub use read::{Format, ReadError, Reader};
// The QRZ logbook client reads entity-encoded replies by the same rules as an escaped file.
pub use read::unescape;
pub use write::{Writer, logged_record_text, record_text};

/// One ADIF record: fields in file order, names upper-case ASCII, values as text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub fields: Vec<(String, String)>,
    /// Fields the reader could not read and left out, so that a file with one bad length
    /// count still imports the rest of its record and the import can say what was lost.
    pub problems: Vec<FieldProblem>,
}

/// A field of a record that was read but could not be kept.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldProblem {
    /// The field's name as written, upper-cased.
    pub field: String,
    /// What was wrong and what was done, beginning with the field's name: "ADDRESS: length
    /// 40 runs into the next tag; the field was dropped".
    pub message: String,
}

impl std::fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Record {
    /// The first field of that name, compared without case, its value trimmed; `None` when
    /// absent or blank, because loggers write `<NAME:0>` for "unknown" and an empty value
    /// carries nothing a caller could use.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// Appends a field, its name upper-cased so that lookups and comparisons between files
    /// do not depend on the case a logger wrote. Empty values are skipped: ADIF gives them no
    /// meaning, and keeping them would only make two equal records differ.
    pub fn push(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        if !value.is_empty() {
            self.fields.push((name.to_ascii_uppercase(), value));
        }
    }

    /// Gives a field this one value: the first field of that name takes it and later ones go,
    /// or it is appended. An empty value removes the field.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        let mut kept = false;
        self.fields.retain_mut(|(n, v)| {
            if !n.eq_ignore_ascii_case(name) {
                return true;
            }
            if kept || value.is_empty() {
                return false;
            }
            kept = true;
            v.clone_from(&value);
            true
        });
        if !kept {
            self.push(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_ignores_case_takes_the_first_and_trims() {
        let mut r = Record::default();
        r.push("call", "K1ABC");
        r.push("NAME", "  Jo ");
        r.push("Name", "Second");
        r.push("COMMENT", "   ");
        r.push("NOTES", "");
        assert_eq!(r.fields[0].0, "CALL");
        assert_eq!(r.get("CaLl"), Some("K1ABC"));
        assert_eq!(r.get("name"), Some("Jo"));
        assert_eq!(r.get("COMMENT"), None);
        assert_eq!(r.get("NOTES"), None);
        assert_eq!(r.fields.len(), 4, "the empty NOTES is not stored");
        r.set("name", "Set");
        assert_eq!(r.get("NAME"), Some("Set"));
        assert_eq!(r.fields.len(), 3, "the second NAME went");
        r.set("MY_SIG", "POTA");
        assert_eq!(r.fields.last().unwrap(), &("MY_SIG".into(), "POTA".into()));
        r.set("MY_SIG", "");
        assert_eq!(r.get("MY_SIG"), None);
    }
}
