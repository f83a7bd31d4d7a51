//! The map, in place of the panes (Alt-V): ratatui's world map with the open log's grids as
//! points, the own grid, the call on the form with its entity, bearing and distance, and an
//! activation's POTA count as a bar toward its 10. Pure drawing of what the app gathered.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Map, MapResolution, Points};
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph, Widget};

use crate::components::activations::Meter;
use crate::widgets::{Theme, Tone};
use svc_model::activation::POTA_NEEDED;
use svc_model::locator::Place;

/// The own station's grid, placed, and where it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Own {
    pub grid: String,
    pub place: Place,
    pub whence: &'static str,
}

/// The call on the form: its entity, its place, and from the own grid its bearing (degrees),
/// distance (km) and what the place is (`grid FN42`, `entity`).
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub call: String,
    pub entity: Option<String>,
    pub place: Option<Place>,
    pub heading: Option<(f64, f64, String)>,
}

/// What the map draws.
pub struct MapView {
    /// The open log's name.
    pub log: Option<String>,
    /// The places of the log's contacts that have a grid, as (longitude, latitude).
    pub points: Vec<(f64, f64)>,
    /// How many contacts of the log are loaded, grid or not.
    pub contacts: usize,
    /// How many contacts the log holds, as its folder last said: more than are loaded when
    /// Contacts has not read its later pages, which the map then says.
    pub in_log: usize,
    pub own: Option<Own>,
    pub target: Option<Target>,
    /// The open activation's valid contacts.
    pub pota: Option<Meter>,
    pub theme: Theme,
}

impl MapView {
    /// Where the map goes: the panes' place, below the entry form when it is open
    /// (`below`).
    pub fn area(panes: Rect, below: Option<Rect>) -> Rect {
        match below {
            Some(form) => {
                let top = form.bottom().clamp(panes.y, panes.bottom());
                Rect::new(panes.x, top, panes.width, panes.bottom() - top)
            }
            None => panes,
        }
    }

    /// The lines under the map: the own grid, the log's grids, then the call.
    fn lines(&self) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        let grids = if self.in_log > self.contacts {
            format!(
                "{} of {} with a grid, {} of {} loaded",
                self.points.len(),
                self.contacts,
                self.contacts,
                self.in_log
            )
        } else {
            format!(
                "{} of {} contacts with a grid",
                self.points.len(),
                self.contacts
            )
        };
        // The own grid and the log's grids on lines of their own: together they passed 80
        // columns.
        lines.push(match &self.own {
            Some(own) => Line::from(vec![
                Span::styled("◆", self.own_style()),
                Span::raw(format!(" {} ({})", own.grid, own.whence)),
            ]),
            None => Line::from("no own grid: svc station set --grid FN42 gives one"),
        });
        lines.push(Line::from(grids));
        if let Some(target) = &self.target {
            let mut spans = vec![
                Span::styled("✕", self.target_style()),
                Span::raw(format!(" {}", target.call)),
            ];
            if let Some(entity) = &target.entity {
                spans.push(Span::raw(format!(" {entity}")));
            }
            match &target.heading {
                Some((degrees, km, whence)) => spans.push(Span::styled(
                    format!(" · {degrees:03.0}° {km:.0} km ({whence})"),
                    Style::new().add_modifier(Modifier::BOLD),
                )),
                None if self.own.is_none() => {}
                None => spans.push(Span::raw(" · not placed")),
            }
            lines.push(Line::from(spans));
        }
        lines
    }

    fn own_style(&self) -> Style {
        self.colour(Color::Cyan)
    }

    fn target_style(&self) -> Style {
        self.colour(Color::Red)
    }

    fn colour(&self, color: Color) -> Style {
        let style = Style::new().add_modifier(Modifier::BOLD);
        if self.theme.color {
            style.fg(color)
        } else {
            style
        }
    }
}

impl Widget for MapView {
    fn render(self, area: Rect, buf: &mut Buffer) {
        Clear.render(area, buf);
        let title = match &self.log {
            Some(log) => format!(" Map · {log} · Alt-V back "),
            None => " Map · Alt-V back ".to_owned(),
        };
        let block = Block::new().borders(Borders::ALL).title(title);
        let inner = block.inner(area);
        block.render(area, buf);
        let lines = self.lines();
        let bar = u16::from(self.pota.is_some());
        let [canvas, text, gauge] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(lines.len() as u16),
            Constraint::Length(bar),
        ])
        .areas(inner);
        let (map, points) = if self.theme.color {
            (Color::DarkGray, Color::Yellow)
        } else {
            (Color::Reset, Color::Reset)
        };
        let (own, target) = (self.own_style(), self.target_style());
        Canvas::default()
            .marker(Marker::Braille)
            .x_bounds([-180.0, 180.0])
            .y_bounds([-90.0, 90.0])
            .paint(|ctx| {
                ctx.draw(&Map {
                    resolution: MapResolution::High,
                    color: map,
                });
                ctx.layer();
                ctx.draw(&Points {
                    coords: &self.points,
                    color: points,
                });
                if let Some(o) = &self.own {
                    ctx.print(o.place.lon, o.place.lat, Span::styled("◆", own));
                }
                if let Some(p) = self.target.as_ref().and_then(|t| t.place) {
                    ctx.print(p.lon, p.lat, Span::styled("✕", target));
                }
            })
            .render(canvas, buf);
        Paragraph::new(lines).render(text, buf);
        if let Some(meter) = self.pota {
            let label = format!("POTA {}/{POTA_NEEDED} valid today", meter.today);
            let tone = if meter.today >= POTA_NEEDED {
                Tone::Success
            } else {
                Tone::Warning
            };
            Gauge::default()
                .gauge_style(self.theme.tone(tone).add_modifier(Modifier::REVERSED))
                .ratio((meter.today.min(POTA_NEEDED) as f64) / POTA_NEEDED as f64)
                .label(label)
                .render(gauge, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn drawn(view: MapView, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|f| f.render_widget(view, f.area())).unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| buffer[(x, y)].symbol().to_owned())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A view of an activation's log, the call typed from Japan.
    fn sample() -> MapView {
        let own = Place {
            lat: 41.5,
            lon: -73.0,
        };
        MapView {
            log: Some("W1AW@US-0001-20261128".into()),
            points: vec![(139.0, 35.0), (13.0, 52.0)],
            contacts: 3,
            in_log: 3,
            own: Some(Own {
                grid: "FN31".into(),
                place: own,
                whence: "station profile",
            }),
            target: Some(Target {
                call: "JA1ABC".into(),
                entity: Some("Japan".into()),
                place: Some(Place {
                    lat: 35.5,
                    lon: 139.0,
                }),
                heading: Some((334.6, 10_800.2, "entity".into())),
            }),
            pota: Some(Meter { today: 7, total: 7 }),
            theme: Theme { color: false },
        }
    }

    #[test]
    fn the_map_says_where_the_call_is_from_the_own_grid_and_the_pota_count() {
        let view = sample();
        let screen = drawn(view, 80, 20);
        assert!(screen.contains("Map · W1AW@US-0001-20261128"), "{screen}");
        assert!(screen.contains("◆ FN31 (station profile)"), "{screen}");
        assert!(screen.contains("│2 of 3 contacts with a grid"), "{screen}");
        assert!(
            screen.contains("✕ JA1ABC Japan · 335° 10800 km (entity)"),
            "{screen}"
        );
        assert!(screen.contains("POTA 7/10 valid today"), "{screen}");
        // A log read only in part says so.
        let partial = MapView {
            in_log: 1234,
            ..sample()
        };
        let screen = drawn(partial, 80, 20);
        assert!(
            screen.contains("│2 of 3 with a grid, 3 of 1234 loaded"),
            "{screen}"
        );
        // The world is drawn: braille dots above the lines.
        assert!(
            screen
                .chars()
                .any(|c| ('\u{2801}'..='\u{28ff}').contains(&c))
        );
    }
}
