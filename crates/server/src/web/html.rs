//! What the askama templates in `assets/` need from Rust: the escaping of every value they put
//! into a page, and how a page shows a time.

use std::fmt::{self, Write};

use svc_model::Timestamp;

/// Escapes every value a page template puts out (askama.toml names it for `.html`), for element
/// content and quoted attribute values alike. It writes named entities where askama's own
/// escaper writes numeric ones (`&lt;`, not `&#60;`), so the pages' source stays readable and
/// shows what the user typed the way it always has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Escape;

impl askama::filters::Escaper for Escape {
    fn write_escaped_str<W: Write>(&self, mut dest: W, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            dest.write_str(&rest[..at])?;
            dest.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        dest.write_str(rest)
    }
}

/// A time as pages show it (the `time` macro of `time.html`): exact and machine-readable in
/// `datetime`, `YYYY-MM-DD HH:MM UTC` on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct When {
    pub iso: String,
    pub shown: String,
}

impl From<Timestamp> for When {
    fn from(t: Timestamp) -> When {
        let mut when = When::minute(t);
        when.shown.push_str(" UTC");
        when
    }
}

impl When {
    /// `YYYY-MM-DD HH:MM`, for a table whose heading says UTC.
    pub fn minute(t: Timestamp) -> When {
        let iso = t.to_string();
        let shown = iso.get(..16).unwrap_or(&iso).replacen('T', " ", 1);
        When { iso, shown }
    }

    /// `HH:MM` alone, for a time on a day shown beside it.
    pub fn clock(t: Timestamp) -> When {
        let mut when = When::minute(t);
        when.shown = when.shown.get(11..).unwrap_or_default().to_owned();
        when
    }
}

#[cfg(test)]
mod tests {
    use askama::Template;

    use super::*;

    #[derive(Template)]
    #[template(source = "<p title=\"{{ a }}\">{{ b }}</p>", ext = "html")]
    struct Escaped<'a> {
        a: &'a str,
        b: &'a str,
    }

    #[test]
    fn every_value_is_escaped() {
        let page = Escaped {
            a: "\"><script>",
            b: "O'Brien & <co>",
        };
        assert_eq!(
            page.render().unwrap(),
            "<p title=\"&quot;&gt;&lt;script&gt;\">O&#39;Brien &amp; &lt;co&gt;</p>"
        );
    }

    #[derive(Template)]
    #[template(
        source = "{% import \"time.html\" as time %}{% call time::time(at) %}{% endcall %} {% call time::time_or(never, \"never\") %}{% endcall %}",
        ext = "html"
    )]
    struct Times {
        at: When,
        never: Option<When>,
    }

    #[test]
    fn times_are_shown_in_utc_to_the_minute() {
        let page = Times {
            at: When::from(Timestamp(1_763_820_300_123)),
            never: None,
        };
        assert_eq!(
            page.render().unwrap(),
            "<time datetime=\"2025-11-22T14:05:00.123Z\">2025-11-22 14:05 UTC</time> never"
        );
        let at = Timestamp(1_763_820_300_123);
        assert_eq!(When::minute(at).shown, "2025-11-22 14:05");
        assert_eq!(When::clock(at).shown, "14:05");
        assert_eq!(When::clock(at).iso, "2025-11-22T14:05:00.123Z");
    }
}
