//! Checks for free-text fields given by clients.

use super::ApiError;

fn check(
    field: &str,
    raw: &str,
    max_chars: usize,
    allow_newlines: bool,
) -> Result<Option<String>, ApiError> {
    let value = raw.trim();
    if value.is_empty() {
        return Ok(None);
    }
    if value.chars().count() > max_chars {
        return Err(ApiError::field(
            field,
            format!("{field} is longer than {max_chars} characters; shorten it"),
        ));
    }
    if value
        .chars()
        .any(|c| c.is_control() && !(allow_newlines && matches!(c, '\n' | '\r' | '\t')))
    {
        return Err(ApiError::field(
            field,
            format!("{field} contains control characters; remove them"),
        ));
    }
    Ok(Some(value.to_owned()))
}

/// Trimmed single-line text of at most `max_chars`; empty is `None`.
/// Text from the network made safe for a terminal: control characters (an escape sequence
/// could set the window title, clear the screen or worse) and the characters that reorder
/// text on screen become `�`. A hostile or broken server's words are shown, never obeyed.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if obeyed(c) { '\u{fffd}' } else { c })
        .collect()
}

/// A character a terminal obeys rather than shows: C0 and C1 controls (U+009B starts an
/// escape sequence as ESC [ does) and the marks and overrides that reorder text (U+202E).
pub fn obeyed(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// JSON text as safe to print as to parse: each character a terminal would obey is written
/// as its `\uXXXX` escape, which every JSON reader reads back as the same character. (Outside
/// strings JSON is ASCII, so only string contents change.)
pub fn json_for_terminal(json: &str) -> String {
    if !json.chars().any(obeyed) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if obeyed(c) {
            // Every such character is in the Basic Multilingual Plane: one escape each.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// [`printable`] for text of several lines: line breaks and tabs are kept.
pub fn printable_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            line.split('\t')
                .map(printable)
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn single_line(field: &str, raw: &str, max_chars: usize) -> Result<Option<String>, ApiError> {
    check(field, raw, max_chars, false)
}

/// Trimmed text that may span lines (notes); empty is `None`. Line breaks are kept as given,
/// CRLF included, which ADIF's MultilineString fields use.
pub fn multi_line(field: &str, raw: &str, max_chars: usize) -> Result<Option<String>, ApiError> {
    check(field, raw, max_chars, true)
}

/// The most a spot's comment may hold: POTA shows it on one line beside the spot.
pub const SPOT_COMMENT_MAX_CHARS: usize = 256;

/// A spot's comment as POTA is sent it: one trimmed line of at most
/// [`SPOT_COMMENT_MAX_CHARS`], with none of the characters a hunter's terminal or page would
/// obey (controls, and the marks that reorder text: `US-\u{202e}EM` shows as `US-ME`); empty
/// is `None`. Every front end's spot goes through this one rule.
pub fn spot_comment(raw: &str) -> Result<Option<String>, ApiError> {
    let value = single_line("comment", raw, SPOT_COMMENT_MAX_CHARS)?;
    if value.as_deref().is_some_and(|v| v.chars().any(obeyed)) {
        return Err(ApiError::field(
            "comment",
            "comment contains characters that reorder text (bidi marks such as U+202E); remove them",
        ));
    }
    Ok(value)
}

/// Text another service sent, made fit to keep and show: the characters a terminal or page
/// would obey (controls, the marks and overrides that reorder text) are taken out, runs of
/// white space become one space, and it is cut to `max_chars` (with `…`), as svc's own fields
/// are bounded. `None` when nothing is left.
pub fn from_elsewhere(raw: &str, max_chars: usize) -> Option<String> {
    let shown: String = raw
        .chars()
        .filter(|&c| c.is_whitespace() || !obeyed(c))
        .collect();
    let kept = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    if kept.is_empty() {
        return None;
    }
    if kept.chars().count() <= max_chars {
        return Some(kept);
    }
    let mut cut: String = kept.chars().take(max_chars.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    Some(cut)
}

/// Trimmed, upper-cased token of letters, digits and `allowed` punctuation; empty is `None`.
pub fn token(
    field: &str,
    raw: &str,
    max_chars: usize,
    allowed: &str,
    example: &str,
) -> Result<Option<String>, ApiError> {
    let value = raw.trim().to_ascii_uppercase();
    if value.is_empty() {
        return Ok(None);
    }
    if value.len() > max_chars
        || !value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || allowed.contains(c))
    {
        return Err(ApiError::field(
            field,
            format!(
                "{field} {:?} is not valid: use at most {max_chars} letters, digits{}, e.g. {example}",
                super::ids::truncate(raw, 30),
                if allowed.is_empty() {
                    String::new()
                } else {
                    format!(" or {allowed}")
                }
            ),
        ));
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {

    #[test]
    fn json_for_a_terminal_reads_back_the_same() {
        let value = serde_json::json!({"name": "Ann\u{202e}kcab\u{9b}31m", "n": "a\u{1b}[2J"});
        let text = json_for_terminal(&value.to_string());
        assert!(!text.chars().any(obeyed), "{text}");
        assert!(
            text.contains("\\u202e") && text.contains("\\u009b"),
            "{text}"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }

    #[test]
    fn printable_text_obeys_no_terminal_sequence() {
        assert_eq!(printable("K1ABC Jürgen"), "K1ABC Jürgen");
        assert_eq!(
            printable("a\u{1b}[2Jb\u{7}c\u{202e}d\u{9b}e\n"),
            "a\u{fffd}[2Jb\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}"
        );
    }

    use super::*;

    #[test]
    fn spot_comments_are_one_bounded_line_without_reordering() {
        assert_eq!(
            spot_comment(" QRV, 10 W ").unwrap().as_deref(),
            Some("QRV, 10 W")
        );
        assert_eq!(spot_comment("  ").unwrap(), None);
        let long = "x".repeat(SPOT_COMMENT_MAX_CHARS);
        assert_eq!(spot_comment(&long).unwrap().as_deref(), Some(long.as_str()));
        let e = spot_comment(&format!("{long}x")).unwrap_err();
        assert!(e.message.contains("longer than 256"), "{}", e.message);
        for bad in [
            "a\u{1b}[2J",
            "2fer\nUS-0002",
            "US-\u{202e}EM",
            "a\u{2066}b",
            "a\u{200f}",
        ] {
            assert!(spot_comment(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn text_from_elsewhere_is_stripped_and_bounded() {
        assert_eq!(
            from_elsewhere("US-\u{202e}EM", 100).as_deref(),
            Some("US-EM")
        );
        assert_eq!(
            from_elsewhere(" Acadia\u{1b}[2J\u{9b}\u{2067} National\n\tPark ", 100).as_deref(),
            Some("Acadia[2J National Park")
        );
        assert_eq!(from_elsewhere("\u{202e}\u{7} ", 100), None);
        let cut = from_elsewhere(&"y".repeat(200_000), 200).unwrap();
        assert_eq!(cut.chars().count(), 200);
        assert!(cut.ends_with('…'));
        assert_eq!(from_elsewhere("Jürgen", 6).as_deref(), Some("Jürgen"));
    }

    #[test]
    fn text_checks() {
        assert_eq!(
            single_line("n", "  Hiram ", 10).unwrap().as_deref(),
            Some("Hiram")
        );
        assert_eq!(single_line("n", "   ", 10).unwrap(), None);
        assert!(single_line("n", "a\nb", 10).is_err());
        assert!(single_line("n", "abcdefghijk", 10).is_err());
        assert_eq!(
            multi_line("n", "a\nb", 10).unwrap().as_deref(),
            Some("a\nb")
        );
        assert!(multi_line("n", "a\u{7}b", 10).is_err());
        assert_eq!(
            token("mode", " ft8 ", 20, "-", "FT8").unwrap().as_deref(),
            Some("FT8")
        );
        assert!(token("mode", "F T8", 20, "-", "FT8").is_err());
        assert_eq!(
            token("rstSent", "-12", 10, "+-", "599").unwrap().as_deref(),
            Some("-12")
        );
    }
}
