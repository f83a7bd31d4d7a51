//! How results look: aligned text tables for people, one JSON object (`--json`) or one object
//! per line (`--ndjson`) for programs.

use serde::Serialize;

use super::{CliError, Ctx};
use svc_model::text::{json_for_terminal, printable};
use svc_model::{Page, Timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Ndjson,
}

const BOLD: &str = "\x1b[1m";
const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

/// A table cell, optionally coloured when colour is on.
pub struct Cell {
    text: String,
    green: bool,
}

impl From<String> for Cell {
    /// Cells hold what the service sent (names, notes): never a sequence the terminal obeys.
    fn from(text: String) -> Cell {
        Cell {
            text: printable(&text),
            green: false,
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_owned())
    }
}

impl Cell {
    pub fn green(text: impl Into<String>) -> Cell {
        Cell {
            text: printable(&text.into()),
            green: true,
        }
    }
}

/// Columns padded to their widest cell; the last column is not padded.
pub fn table(headers: &[&str], rows: Vec<Vec<Cell>>, color: bool) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.text.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<(String, Option<&str>)>, out: &mut String| {
        let last = cells.len() - 1;
        for (i, (text, style)) in cells.into_iter().enumerate() {
            let pad = if i == last {
                0
            } else {
                widths[i] - text.chars().count()
            };
            match style {
                Some(code) if color => {
                    out.push_str(code);
                    out.push_str(&text);
                    out.push_str(RESET);
                }
                _ => out.push_str(&text),
            }
            if i != last {
                out.push_str(&" ".repeat(pad + 2));
            }
        }
        out.push('\n');
    };
    line(
        headers
            .iter()
            .map(|h| (h.to_string(), Some(BOLD)))
            .collect(),
        &mut out,
    );
    for row in rows {
        line(
            row.into_iter()
                .map(|c| {
                    let style = c.green.then_some(GREEN);
                    (c.text, style)
                })
                .collect(),
            &mut out,
        );
    }
    out
}

/// `Label: value` lines.
pub fn fields(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(label, value)| format!("{label}: {}\n", printable(value)))
        .collect()
}

/// A time for people: `2026-11-22 14:05 UTC`.
pub fn time(t: Timestamp) -> String {
    chrono::DateTime::from_timestamp_millis(t.millis()).map_or_else(
        || t.to_string(),
        |d| d.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

pub fn or_dash(value: &Option<String>) -> String {
    value.clone().unwrap_or_else(|| "-".into())
}

/// One value as JSON for stdout: what a terminal would obey in its strings is escaped.
fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, CliError> {
    serde_json::to_string(value)
        .map(|text| json_for_terminal(&text))
        .map_err(|e| CliError::local(format!("cannot encode JSON: {e}")))
}

impl Ctx {
    /// Prints one JSON object on one line.
    pub fn print_json<T: Serialize + ?Sized>(&self, value: &T) -> Result<(), CliError> {
        let mut text = to_json(value)?;
        text.push('\n');
        self.out(&text)
    }

    /// Prints a list in the chosen format; `text` renders it for people.
    pub fn print_list<T: Serialize>(
        &self,
        page: &Page<T>,
        text: impl FnOnce(&[T]) -> String,
    ) -> Result<(), CliError> {
        match self.format {
            Format::Json => self.print_json(page),
            Format::Ndjson => {
                let mut out = String::new();
                for item in &page.items {
                    out.push_str(&to_json(item)?);
                    out.push('\n');
                }
                self.out(&out)
            }
            Format::Text => self.out(&text(&page.items)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns_and_colour_only_when_asked() {
        let rows = vec![
            vec![
                Cell::from("fld_1"),
                Cell::from("monthly"),
                Cell::from("2026-11"),
            ],
            vec![Cell::from("fld_22"), Cell::green("x"), Cell::from("POTA")],
        ];
        let plain = table(&["ID", "TYPE", "NAME"], rows, false);
        assert_eq!(
            plain,
            "ID      TYPE     NAME\nfld_1   monthly  2026-11\nfld_22  x        POTA\n"
        );
        let rows = vec![vec![Cell::green("x"), Cell::from("y")]];
        let coloured = table(&["A", "B"], rows, true);
        assert!(coloured.contains("\x1b[1mA\x1b[0m"), "{coloured:?}");
        assert!(coloured.contains("\x1b[32mx\x1b[0m"), "{coloured:?}");
    }

    #[test]
    fn times_are_shown_in_utc() {
        let t = Timestamp::parse("t", "2026-11-22T16:05:30+02:00").unwrap();
        assert_eq!(time(t), "2026-11-22 14:05 UTC");
    }
}
