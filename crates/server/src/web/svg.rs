//! What the pictures of a log (`map`, `charts`) share: each band's colour, numbers as SVG
//! coordinates, and the bar chart. The SVG is written by the askama templates, which escape
//! every value as they do on every page; this module only does the arithmetic.

use svc_model::band::band_lower_edge;

/// Colours of the bands, low to high, each far enough from its neighbours to tell apart on
/// the map and in its legend; a band beyond them (or one the band plan lacks) is grey.
const BAND_COLOURS: [(&str, &str); 16] = [
    ("160m", "#6a3d9a"),
    ("80m", "#1f78b4"),
    ("60m", "#a6cee3"),
    ("40m", "#33a02c"),
    ("30m", "#b2df8a"),
    ("20m", "#e31a1c"),
    ("17m", "#fb9a99"),
    ("15m", "#ff7f00"),
    ("12m", "#fdbf6f"),
    ("10m", "#b15928"),
    ("6m", "#cab2d6"),
    ("4m", "#8dd3c7"),
    ("2m", "#1b9e77"),
    ("1.25m", "#d95f02"),
    ("70cm", "#7570b3"),
    ("23cm", "#e7298a"),
];

/// For bands without a colour of their own.
const OTHER_COLOUR: &str = "#6e7781";

/// The colour of a band on the map and in its legend.
pub fn band_colour(band: &str) -> &'static str {
    BAND_COLOURS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(band))
        .map_or(OTHER_COLOUR, |(_, colour)| colour)
}

/// Bands low to high (by the band plan's lower edge; unknown names last, by name).
pub fn band_order(a: &str, b: &str) -> std::cmp::Ordering {
    let edge = |band: &str| band_lower_edge(band).unwrap_or(f64::MAX);
    edge(a).total_cmp(&edge(b)).then_with(|| a.cmp(b))
}

/// A coordinate as SVG takes it, to `decimals` places without trailing zeros: short, so that
/// a map of thousands of points stays small.
pub fn coordinate(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// Width of a bar chart's drawing, in its own units; the page scales it to the screen.
pub const CHART_WIDTH: u32 = 320;
/// Where the bars start: the labels are right-aligned before it.
const BARS_FROM: f64 = 62.0;
/// Room after the longest bar for its number.
const NUMBER_ROOM: f64 = 44.0;
/// Height of one bar's row.
const ROW: f64 = 16.0;

/// One bar of a chart, with its geometry worked out for the template.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: i64,
    /// The row's top, the bar's length, the text's baseline, the number's start.
    pub y: String,
    pub length: String,
    pub baseline: String,
    pub number_x: String,
}

/// A horizontal bar chart: a row per label, bars scaled to the largest value.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// What it shows, for its heading and the screen reader's name of the drawing.
    pub title: String,
    pub bars: Vec<Bar>,
    pub height: String,
    pub total: i64,
}

impl Chart {
    /// A chart of `rows` (label, value) in the order given.
    pub fn new(title: impl Into<String>, rows: Vec<(String, i64)>) -> Chart {
        let max = rows.iter().map(|(_, v)| *v).max().unwrap_or(0).max(1) as f64;
        let span = f64::from(CHART_WIDTH) - BARS_FROM - NUMBER_ROOM;
        let total = rows.iter().map(|(_, v)| *v).sum();
        let bars = rows
            .into_iter()
            .enumerate()
            .map(|(i, (label, value))| {
                let top = i as f64 * ROW;
                let length = (value as f64 / max * span).max(0.5);
                Bar {
                    label,
                    value,
                    y: coordinate(top + 2.0, 1),
                    length: coordinate(length, 1),
                    baseline: coordinate(top + ROW - 4.5, 1),
                    number_x: coordinate(BARS_FROM + length + 3.0, 1),
                }
            })
            .collect::<Vec<_>>();
        Chart {
            title: title.into(),
            height: coordinate(bars.len().max(1) as f64 * ROW, 1),
            bars,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_short() {
        assert_eq!(coordinate(12.5, 2), "12.5");
        assert_eq!(coordinate(12.0, 2), "12");
        assert_eq!(coordinate(-0.001, 2), "0");
        assert_eq!(coordinate(107.2917, 2), "107.29");
    }

    #[test]
    fn bars_are_scaled_to_the_largest() {
        let chart = Chart::new("t", vec![("20m".into(), 10), ("40m".into(), 5)]);
        assert_eq!(chart.total, 15);
        assert_eq!(chart.bars[0].length, "214");
        assert_eq!(chart.bars[1].length, "107");
        assert_eq!(chart.height, "32");
    }

    #[test]
    fn bands_have_colours_and_an_order() {
        assert_eq!(band_colour("20M"), "#e31a1c");
        assert_eq!(band_colour("13cm"), OTHER_COLOUR);
        let mut bands = vec!["2m", "20m", "160m", "weird", "40m"];
        bands.sort_by(|a, b| band_order(a, b));
        assert_eq!(bands, ["160m", "40m", "20m", "2m", "weird"]);
    }
}
