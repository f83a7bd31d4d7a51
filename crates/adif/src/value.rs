//! What both writers do to names and values: ADIF's field names checked, values made ASCII
//! with CRLF line breaks, and the plain field an `_INTL` field stands beside.

use std::borrow::Cow;
use std::io;

/// The plain field an `_INTL` field is the exact text of: `NAME` for `NAME_INTL`.
pub(super) fn intl_base(name: &str) -> Option<&str> {
    let cut = name.len().checked_sub("_INTL".len())?;
    (name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case("_INTL"))
        .then(|| &name[..cut])
        .filter(|base| !base.is_empty())
}

pub(super) fn check_names<'a>(mut names: impl Iterator<Item = &'a str>) -> io::Result<()> {
    match names.find(|name| !valid_name(name)) {
        Some(name) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{name:?} is not an ADIF field name: names are ASCII letters, digits and underscores"
            ),
        )),
        None => Ok(()),
    }
}

/// A value as ADIF's String and MultilineString types have it: ASCII, line breaks as CRLF;
/// borrowed when it is so already, as nearly every value is.
pub(super) fn ascii(value: &str) -> Cow<'_, str> {
    if value.is_ascii() {
        crlf(value)
    } else {
        Cow::Owned(crlf(&deunicode::deunicode(value)).into_owned())
    }
}

/// Every line break (CRLF, CR or LF) as CRLF.
pub(super) fn crlf(value: &str) -> Cow<'_, str> {
    if !value.contains(['\r', '\n']) {
        return Cow::Borrowed(value);
    }
    Cow::Owned(
        value
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\n', "\r\n"),
    )
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
