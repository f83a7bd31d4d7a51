//! Maidenhead locators as places: where a grid is on the globe, and the bearing and distance
//! from one to another, for the map, the logbook's "who the call is" line and VUCC. A locator
//! of 2 to 10 characters is the rectangle it names; its place is that rectangle's centre, so
//! an 8- or 10-character grid is placed to within metres, not at its 4-character square.

/// A place, in degrees: latitude north positive, longitude east positive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub lat: f64,
    pub lon: f64,
}

/// The mean radius of the Earth in kilometres, as distance calculators for hams use it.
const EARTH_KM: f64 = 6371.0;

/// The centre of the locator `raw` (2, 4, 6, 8 or 10 characters, either case: `FN31pr`,
/// `fn31PR07ab`), or `None` for anything else: a bad grid is listed, never plotted.
pub fn place(raw: &str) -> Option<Place> {
    let b = raw.trim().as_bytes();
    if !matches!(b.len(), 2 | 4 | 6 | 8 | 10) {
        return None;
    }
    // Each pair splits the rectangle of the pairs before it: 18 fields, 10 squares, 24
    // subsquares, 10 extended squares, 24 again; longitude spans twice latitude.
    let (mut lon, mut lat) = (-180.0, -90.0);
    let (mut width, mut height) = (360.0, 180.0);
    for (pair, chars) in b.chunks(2).enumerate() {
        let (divisions, base) = match pair {
            0 => (18.0, b'A'),
            1 | 3 => (10.0, b'0'),
            _ => (24.0, b'A'),
        };
        let digit = |c: u8| {
            let c = if base == b'0' {
                c
            } else {
                c.to_ascii_uppercase()
            };
            let value = f64::from(c.checked_sub(base)?);
            (value < divisions).then_some(value)
        };
        width /= divisions;
        height /= divisions;
        lon += digit(chars[0])? * width;
        lat += digit(chars[1])? * height;
    }
    Some(Place {
        lat: lat + height / 2.0,
        lon: lon + width / 2.0,
    })
}

/// The 4-character square of a locator (`FN31` of `fn31pr`), upper case, as VUCC and the
/// map's shading count grids; `None` for a locator that is not one or is a field alone.
pub fn square(raw: &str) -> Option<String> {
    let raw = raw.trim();
    place(raw)?;
    raw.get(..4).map(str::to_ascii_uppercase)
}

/// The great-circle distance in kilometres from `from` to `to`.
pub fn distance_km(from: Place, to: Place) -> f64 {
    let (lat1, lat2) = (from.lat.to_radians(), to.lat.to_radians());
    let dlat = lat2 - lat1;
    let dlon = (to.lon - from.lon).to_radians();
    let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * EARTH_KM * a.sqrt().min(1.0).asin()
}

/// The initial bearing in degrees (0 north, clockwise, below 360) from `from` to `to`, the
/// way a beam is turned.
pub fn bearing(from: Place, to: Place) -> f64 {
    let (lat1, lat2) = (from.lat.to_radians(), to.lat.to_radians());
    let dlon = (to.lon - from.lon).to_radians();
    let y = dlon.sin() * lat2.cos();
    let x = lat1.cos() * lat2.sin() - lat1.sin() * lat2.cos() * dlon.cos();
    let degrees = y.atan2(x).to_degrees();
    (degrees + 360.0) % 360.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    #[test]
    fn a_locator_is_the_centre_of_the_rectangle_it_names() {
        let fn31 = place("FN31").unwrap();
        assert_eq!((fn31.lat, fn31.lon), (41.5, -73.0));
        let jj00 = place("JJ00").unwrap();
        assert_eq!((jj00.lat, jj00.lon), (0.5, 1.0));
        let aa = place("AA").unwrap();
        assert_eq!((aa.lat, aa.lon), (-85.0, -170.0));
        // W1AW's FN31pr: 41.7146 N, 72.7272 W is inside the subsquare.
        let pr = place("fn31PR").unwrap();
        assert!(
            close(pr.lat, 41.7292, 0.001) && close(pr.lon, -72.7083, 0.001),
            "{pr:?}"
        );
    }

    #[test]
    fn eight_and_ten_character_grids_are_placed_within_their_own_rectangle() {
        let six = place("FN31pr").unwrap();
        let eight = place("FN31pr07").unwrap();
        let ten = place("FN31pr07ab").unwrap();
        // FN31pr spans 5' of longitude and 2.5' of latitude; 07 is its west column, row 7.
        assert!(
            eight.lon < six.lon && eight.lat > six.lat,
            "{eight:?} in {six:?}"
        );
        assert!(close(eight.lon, -72.7458, 0.0001) && close(eight.lat, 41.7396, 0.0001));
        assert!(close(ten.lat, eight.lat, 0.01) && close(ten.lon, eight.lon, 0.01));
        assert_ne!(ten, eight);
    }

    #[test]
    fn bad_locators_have_no_place() {
        for bad in [
            "",
            "F",
            "FN3",
            "SN31",
            "FNA1",
            "FN31p",
            "FN31pz",
            "FN31pr0x",
            "FN31pr07ay",
        ] {
            assert_eq!(place(bad), None, "{bad}");
        }
        assert_eq!(square("FN"), None);
        assert_eq!(square("fn31pr"), Some("FN31".into()));
        assert_eq!(square("zz99"), None);
    }

    #[test]
    fn bearing_and_distance_are_the_great_circle_ones() {
        let newington = place("FN31pr").unwrap();
        let london = place("IO91wm").unwrap();
        let km = distance_km(newington, london);
        assert!(close(km, 5_460.0, 60.0), "{km}");
        let deg = bearing(newington, london);
        assert!(close(deg, 51.0, 2.0), "{deg}");
        assert!(close(bearing(london, newington), 287.0, 2.0));
        assert_eq!(distance_km(london, london), 0.0);
        let due_south = bearing(place("JJ55").unwrap(), place("JJ50").unwrap());
        assert!(close(due_south, 180.0, 0.001), "{due_south}");
    }
}
