//! Pages are templates from `assets/` with `{{name}}` placeholders. Every value put into a page
//! is an [`Html`], which can only be made by escaping text or from our own templates and
//! literals, so text from a user or the database cannot reach a page unescaped.

/// Markup that is safe to send: escaped text, or our own templates filled with such values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html(String);

impl Html {
    /// Text, escaped for element content and quoted attribute values alike.
    pub fn text(text: &str) -> Html {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                c => out.push(c),
            }
        }
        Html(out)
    }

    /// Markup written in this program; never built from input.
    pub fn trusted(markup: &'static str) -> Html {
        Html(markup.to_owned())
    }

    pub fn push(&mut self, more: Html) {
        self.0.push_str(&more.0);
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Fills a template: each `{{name}}` becomes the value named so. A name without a value
/// becomes empty; the tests render every page and look for leftovers.
pub fn render(template: &str, values: &[(&str, Html)]) -> Html {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            rest = &rest[start..];
            break;
        };
        let name = after[..end].trim();
        if let Some((_, value)) = values.iter().find(|(n, _)| *n == name) {
            out.push_str(&value.0);
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Html(out)
}

/// Markup for a time: machine-readable in `datetime`, shown as `YYYY-MM-DD HH:MM UTC`.
pub fn time(t: crate::model::Timestamp) -> Html {
    let iso = t.to_string();
    let shown = format!(
        "{} UTC",
        iso.get(..16).unwrap_or(&iso).replacen('T', " ", 1)
    );
    render(
        "<time datetime=\"{{iso}}\">{{shown}}</time>",
        &[("iso", Html::text(&iso)), ("shown", Html::text(&shown))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_templates_filled() {
        let page = render(
            "<p title=\"{{a}}\">{{ b }}</p>{{missing}}",
            &[
                ("a", Html::text("\"><script>")),
                ("b", Html::text("O'Brien & <co>")),
            ],
        );
        assert_eq!(
            page.into_string(),
            "<p title=\"&quot;&gt;&lt;script&gt;\">O&#39;Brien &amp; &lt;co&gt;</p>"
        );
        assert_eq!(render("a {{ b", &[]).into_string(), "a {{ b");
    }

    #[test]
    fn times_are_shown_in_utc_to_the_minute() {
        let t = crate::model::Timestamp(1_763_820_300_123);
        assert_eq!(
            time(t).into_string(),
            "<time datetime=\"2025-11-22T14:05:00.123Z\">2025-11-22 14:05 UTC</time>"
        );
    }
}
