//! The map of the account's log: drawn here as inline SVG over a world outline shipped with
//! svc (Natural Earth's 1:110m land, public domain: `assets/land/`), so that the page needs no
//! tiles or scripts from elsewhere and the log goes nowhere. An equirectangular projection in
//! degrees: `x = lon + 180`, `y = 90 − lat` in a 360 × 180 drawing.
//!
//! On it: the 4-character squares worked, shaded by how many contacts; a point per distinct
//! grid and band, coloured by band, placed at the centre of the grid as logged (an 8- or
//! 10-character grid within metres, by `svc_model::locator`); the station profiles' own grids;
//! and the parks hunted and activated whose place the park cache knows. What the database
//! counts (`Store::grid_counts`, `Store::park_counts`) is a few rows per grid, so a log of
//! 100,000 contacts draws as quickly as one of a hundred. Grids that are not locators are
//! listed under the map, never plotted.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use askama::Template;
use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

use super::session::Visitor;
use super::svg::{band_colour, band_order, coordinate};
use super::{Layout, Nav, Problem, respond, sign_in_first};
use crate::AppState;
use svc_model::awards::parks;
use svc_model::fields::Field;
use svc_model::locator::{Place, place, square};
use svc_store::GridCount;

/// The world's land, pre-projected and simplified (`assets/land/README.md` says how).
const LAND: &str = include_str!("../../assets/land/ne_110m_land.path");

/// Points drawn at most at the places their grids name; a log with more distinct grid and
/// band pairs than this draws them at their 4-character squares, which bounds the drawing
/// whatever the log (each square is 2° × 1°, so the world has 32,400).
const MAX_POINTS: usize = 12_000;

/// Parks looked up in the park cache at most for one view of the map.
const MAX_PARKS: usize = 1_000;

/// Decimal places of a point: 0.001° is about a hundred metres, far finer than the drawing
/// shows, and finer than an 8-character grid (30" by 15").
const POINT_DECIMALS: usize = 3;

/// The squares worked, in three shades by contacts: one path each.
struct Shade {
    class: &'static str,
    label: &'static str,
    path: String,
    squares: usize,
}

/// The points of one band: one path of zero-length strokes with round ends (`M x y h0` per
/// point), so that a point costs a dozen bytes; each band a size smaller than the one below
/// it, so that a grid worked on several bands shows each as a ring.
struct BandPoints {
    band: String,
    colour: &'static str,
    width: String,
    path: String,
    points: usize,
    contacts: i64,
}

/// A marked place: the station's grid, a park.
struct Marker {
    x: String,
    y: String,
    label: String,
}

#[derive(Template)]
#[template(path = "map.html")]
struct MapPage<'a> {
    layout: Layout<'a>,
    land: &'static str,
    shades: Vec<Shade>,
    bands: Vec<BandPoints>,
    stations: Vec<Marker>,
    hunted: Vec<Marker>,
    activated: Vec<Marker>,
    /// Parks whose place the park cache does not know (yet).
    unplaced_parks: usize,
    /// Grids that are not locators, as logged, with their contacts.
    bad_grids: Vec<(String, i64)>,
    squares: usize,
    /// The points are at their squares, the log having more than [`MAX_POINTS`].
    coarse: bool,
    contacts: i64,
}

fn x_of(place: Place) -> f64 {
    place.lon + 180.0
}

fn y_of(place: Place) -> f64 {
    90.0 - place.lat
}

fn marker(place: Place, label: String) -> Marker {
    Marker {
        x: coordinate(x_of(place), POINT_DECIMALS),
        y: coordinate(y_of(place), POINT_DECIMALS),
        label,
    }
}

/// What the map draws of the log's grids.
struct Drawn {
    shades: Vec<Shade>,
    bands: Vec<BandPoints>,
    bad_grids: Vec<(String, i64)>,
    squares: usize,
    coarse: bool,
    contacts: i64,
}

/// The squares, points and bad grids of the log's counts.
fn draw(counts: &[GridCount]) -> Drawn {
    let coarse = counts.len() > MAX_POINTS;
    let mut by_square: BTreeMap<String, i64> = BTreeMap::new();
    // band → grid (or square, when coarse) → its place and contacts.
    let mut by_band: BTreeMap<&str, BTreeMap<String, (Place, i64)>> = BTreeMap::new();
    let mut bad: BTreeMap<String, i64> = BTreeMap::new();
    let mut contacts = 0;
    for count in counts {
        let Some(at) = place(&count.grid) else {
            *bad.entry(count.grid.clone()).or_default() += count.contacts;
            continue;
        };
        contacts += count.contacts;
        let square = square(&count.grid);
        if let Some(square) = &square {
            *by_square.entry(square.clone()).or_default() += count.contacts;
        }
        let (key, at) = match (square, coarse) {
            (Some(square), true) => {
                let centre = place(&square).unwrap_or(at);
                (square, centre)
            }
            _ => (count.grid.clone(), at),
        };
        by_band
            .entry(count.band.as_str())
            .or_default()
            .entry(key)
            .or_insert((at, 0))
            .1 += count.contacts;
    }
    let mut shades = [
        ("one", "1 contact"),
        ("few", "2 to 9"),
        ("many", "10 or more"),
    ]
    .map(|(class, label)| Shade {
        class,
        label,
        path: String::new(),
        squares: 0,
    });
    for (name, n) in &by_square {
        // A square's south-west corner; the square is 2° wide and 1° high.
        let Some(centre) = place(name) else { continue };
        let shade = &mut shades[match n {
            1 => 0,
            2..=9 => 1,
            _ => 2,
        }];
        shade.path.push_str(&format!(
            "M{} {}h2v1h-2z",
            coordinate(x_of(centre) - 1.0, 0),
            coordinate(y_of(centre) - 0.5, 0)
        ));
        shade.squares += 1;
    }
    let mut bands: Vec<&str> = by_band.keys().copied().collect();
    bands.sort_by(|a, b| band_order(a, b));
    let layers = bands.len().max(1) as f64;
    let bands = bands
        .into_iter()
        .enumerate()
        .map(|(i, band)| {
            let points = &by_band[band];
            let mut path = String::with_capacity(points.len() * 16);
            for (at, _) in points.values() {
                path.push_str(&format!(
                    "M{} {}h0",
                    coordinate(x_of(*at), POINT_DECIMALS),
                    coordinate(y_of(*at), POINT_DECIMALS)
                ));
            }
            // From 3 units (a third of a degree) for the lowest band down to 1.2 for the
            // highest.
            let width = 3.0 - 1.8 * (i as f64 / (layers - 1.0).max(1.0));
            BandPoints {
                band: band.to_owned(),
                colour: band_colour(band),
                width: coordinate(width, 2),
                path,
                points: points.len(),
                contacts: points.values().map(|(_, n)| n).sum(),
            }
        })
        .collect();
    Drawn {
        shades: shades.into_iter().filter(|s| s.squares > 0).collect(),
        bands,
        bad_grids: bad.into_iter().collect(),
        squares: by_square.len(),
        coarse,
        contacts,
    }
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/map"));
    };
    let counts = state.store.grid_counts(&account.id).await?;
    let drawn = draw(&counts);
    let stations = state
        .store
        .stations(&account.id)
        .await?
        .into_iter()
        .filter_map(|profile| {
            let at = place(profile.get(Field::MyGridsquare)?)?;
            Some(marker(at, profile.callsign))
        })
        .collect();
    let mut hunted = BTreeSet::new();
    let mut activated = BTreeSet::new();
    for row in state.store.park_counts(&account.id).await? {
        let side = if row.own { &mut activated } else { &mut hunted };
        side.extend(parks(Some(&row.sig), Some(&row.references)));
    }
    let references: Vec<&str> = hunted
        .iter()
        .chain(activated.iter())
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .take(MAX_PARKS)
        .collect();
    let known = match &state.parks {
        Some(parks) => parks.known(&references).await,
        None => HashMap::new(),
    };
    let park_place = |reference: &String| {
        let park = known.get(reference)?;
        match (park.latitude, park.longitude) {
            (Some(lat), Some(lon)) if lat.abs() <= 90.0 && lon.abs() <= 180.0 => {
                Some(Place { lat, lon })
            }
            _ => park.grid.as_deref().and_then(place),
        }
    };
    let mut unplaced_parks = 0;
    let mut markers = |references: &BTreeSet<String>| {
        references
            .iter()
            .filter_map(|reference| {
                let at = park_place(reference);
                if at.is_none() {
                    unplaced_parks += 1;
                }
                Some(marker(at?, reference.clone()))
            })
            .collect::<Vec<_>>()
    };
    let hunted = markers(&hunted);
    let activated = markers(&activated);
    let page = MapPage {
        layout: Layout::new(&visitor, "Map", Nav::Map),
        land: LAND,
        shades: drawn.shades,
        bands: drawn.bands,
        stations,
        hunted,
        activated,
        unplaced_parks,
        bad_grids: drawn.bad_grids,
        squares: drawn.squares,
        coarse: drawn.coarse,
        contacts: drawn.contacts,
    };
    Ok(respond(StatusCode::OK, &page))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(grid: &str, band: &str, contacts: i64) -> GridCount {
        GridCount {
            grid: grid.into(),
            band: band.into(),
            contacts,
        }
    }

    #[test]
    fn a_point_per_grid_and_band_at_the_grids_centre() {
        let drawn = draw(&[
            count("FN31PR07AB", "20M", 3),
            count("FN31PR07", "20M", 1),
            count("FN31", "40m", 12),
            count("FN31", "20M", 2),
            count("ZZ99", "20M", 5),
        ]);
        assert_eq!(drawn.contacts, 18);
        assert_eq!(drawn.bad_grids, [("ZZ99".to_owned(), 5)]);
        assert_eq!(drawn.squares, 1);
        assert_eq!(drawn.shades.len(), 1);
        assert_eq!(drawn.shades[0].path, "M106 48h2v1h-2z");
        let forty = drawn.bands.iter().find(|b| b.band == "40m").unwrap();
        assert_eq!(forty.path, "M107 48.5h0");
        let twenty = drawn.bands.iter().find(|b| b.band == "20M").unwrap();
        assert_eq!(twenty.points, 3);
        // FN31pr07 is centred at 41.7396 N, 72.7458 W.
        assert!(twenty.path.contains("M107.254 48.26h0"), "{}", twenty.path);
        // The lower band is drawn first and wider.
        assert_eq!(drawn.bands[0].band, "40m");
    }

    #[test]
    fn too_many_points_are_drawn_at_their_squares() {
        let mut counts = Vec::new();
        for n in 0..=MAX_POINTS {
            let (a, b) = (n % 24, (n / 24) % 24);
            let c = n / 576;
            let grid = format!(
                "FN31{}{}{:02}",
                char::from(b'A' + a as u8),
                char::from(b'A' + b as u8),
                c % 100
            );
            counts.push(count(&grid, "20m", 1));
        }
        let drawn = draw(&counts);
        assert!(drawn.coarse);
        assert_eq!(drawn.bands[0].points, 1, "{}", drawn.bands[0].path);
    }
}
