//! Spots: who is on the air from a park now (`GET /spot/activator`), and an activator's own spot
//! (`POST /spot`, with the seven fields POTA's website and other loggers send). POTA writes
//! frequencies as kHz, in text; svc's side is MHz, as everywhere else in svc.

use serde::Serialize;
use serde_json::{Value, json};

use super::{
    PARK_LOCATION_MAX_CHARS, PARK_NAME_MAX_CHARS, Pota, PotaError, number, text, text_within,
};
use svc_model::Timestamp;
use svc_model::band::{BAND_NAMES, band_for_mhz, read_mhz};
use svc_model::callsign::normalize_callsign;
use svc_model::mode::{PotaMode, check_mode};
use svc_model::program::normalize_reference;

/// What a spot says POTA's `source` is: the program that sent it.
const SOURCE: &str = "svc";

/// A spot as svc shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spot {
    pub activator: String,
    /// MHz.
    pub frequency: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub reference: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub park_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spotter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comments: Option<String>,
    /// POTA's `spotId`: orders spots of the same second, and tells a spot seen again from a
    /// new one.
    #[serde(skip)]
    pub id: Option<i64>,
}

/// `spotTime`, UTC: POTA writes it without a zone (`2026-11-27T12:00:00`); one with a zone or an
/// offset is read as such.
fn spot_time(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(Timestamp(t.timestamp_millis()));
    }
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| Timestamp(t.and_utc().timestamp_millis()))
}

/// One spot of POTA's list; `None` for an entry no hunter can use (no activator, park or
/// frequency), or one POTA flagged `invalid`.
fn spot_from_api(value: &Value) -> Option<Spot> {
    if value.get("invalid").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let khz = number(value, "frequency").filter(|khz| *khz > 0.0)?;
    let frequency = khz / 1000.0;
    Some(Spot {
        activator: text(value, "activator")?.to_ascii_uppercase(),
        frequency,
        band: band_for_mhz(frequency),
        mode: text(value, "mode").map(|m| m.to_ascii_uppercase()),
        reference: text(value, "reference")?.to_ascii_uppercase(),
        park_name: text_within(value, "name", PARK_NAME_MAX_CHARS),
        location: text_within(value, "locationDesc", PARK_LOCATION_MAX_CHARS),
        spot_time: text(value, "spotTime").and_then(|t| spot_time(&t)),
        spotter: text(value, "spotter").map(|s| s.to_ascii_uppercase()),
        comments: text(value, "comments"),
        id: number(value, "spotId").map(|n| n as i64),
    })
}

/// POTA's spot list, newest first; an entry that cannot be read is left out, not fatal.
fn spots_from_api(value: &Value) -> Result<Vec<Spot>, PotaError> {
    let entries = value.as_array().ok_or_else(|| {
        PotaError::Unexpected("POTA's answer is not a list of spots; check --pota-api-url".into())
    })?;
    let mut spots: Vec<Spot> = entries.iter().filter_map(spot_from_api).collect();
    spots.sort_by_key(|s| std::cmp::Reverse((s.spot_time, s.id)));
    Ok(spots)
}

/// MHz as POTA takes a frequency: kHz, in text, with the decimals there are (`14285`,
/// `14074.5`).
pub fn khz_text(mhz: f64) -> String {
    let text = format!("{:.3}", mhz * 1000.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Which modes a filter keeps: one of POTA's three classes, or one mode by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeFilter {
    Class(PotaMode),
    Mode(String),
}

impl ModeFilter {
    /// `cw`, `phone` or `data` (any case) for a class; else a mode, e.g. `FT8`.
    pub fn parse(text: &str) -> Result<ModeFilter, String> {
        let t = text.trim();
        Ok(match t.to_ascii_lowercase().as_str() {
            "cw" => ModeFilter::Class(PotaMode::Cw),
            "phone" => ModeFilter::Class(PotaMode::Phone),
            "data" => ModeFilter::Class(PotaMode::Data),
            // A spot's mode is what an activator typed: any plain name may be one.
            _ => ModeFilter::Mode(check_mode("mode", t, true).map_err(|_| {
                format!(
                    "{:?} is not a mode; give cw, phone, data, or a mode such as FT8 or SSB",
                    svc_model::ids::truncate(text, 30)
                )
            })?),
        })
    }

    fn matches(&self, mode: &str) -> bool {
        match self {
            ModeFilter::Class(class) => PotaMode::of(mode) == *class,
            ModeFilter::Mode(name) => name.eq_ignore_ascii_case(mode.trim()),
        }
    }
}

/// Which spots to show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpotFilter {
    pub band: Option<&'static str>,
    pub mode: Option<ModeFilter>,
}

impl SpotFilter {
    /// A band as ADIF names it, in any case (`20m`, `70CM`).
    pub fn band(text: &str) -> Result<&'static str, String> {
        BAND_NAMES
            .iter()
            .copied()
            .find(|b| b.eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                format!(
                    "{:?} is not a band; give one such as 40m, 20m or 2m",
                    svc_model::ids::truncate(text, 30)
                )
            })
    }

    pub fn matches(&self, spot: &Spot) -> bool {
        self.band.is_none_or(|band| spot.band == Some(band))
            && self.mode.as_ref().is_none_or(|filter| {
                spot.mode
                    .as_deref()
                    .is_some_and(|mode| filter.matches(mode))
            })
    }
}

/// A spot to send: an activator's own, or a hunter's of an activator.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSpot {
    pub activator: String,
    pub spotter: String,
    /// MHz.
    pub frequency: f64,
    pub reference: String,
    pub mode: String,
    pub comments: Option<String>,
}

impl NewSpot {
    /// The spot as it is sent, every field checked and normalized: what POTA is told must be
    /// right, since hunters act on it at once.
    fn checked(&self) -> Result<NewSpot, PotaError> {
        let invalid = |e: svc_model::ApiError| PotaError::Invalid(e.message);
        let frequency = read_mhz("frequency", self.frequency).map_err(invalid)?.mhz;
        if self.reference.contains(',') {
            return Err(PotaError::Invalid(
                "a spot names one park; give the first, and the others in the comment".into(),
            ));
        }
        let reference = normalize_reference("reference", &self.reference).map_err(invalid)?;
        let comments = match self.comments.as_deref() {
            Some(comment) => svc_model::text::spot_comment(comment).map_err(invalid)?,
            None => None,
        };
        Ok(NewSpot {
            activator: normalize_callsign("activator", &self.activator).map_err(invalid)?,
            spotter: normalize_callsign("spotter", &self.spotter).map_err(invalid)?,
            frequency,
            reference: match reference.split_once('@') {
                Some((park, _)) => park.to_owned(),
                None => reference,
            },
            mode: check_mode("mode", &self.mode, false).map_err(invalid)?,
            comments,
        })
    }

    /// The body POTA takes: its seven fields, the frequency as kHz text.
    fn body(&self) -> Value {
        json!({
            "activator": self.activator,
            "spotter": self.spotter,
            "frequency": khz_text(self.frequency),
            "reference": self.reference,
            "mode": self.mode,
            "source": SOURCE,
            "comments": self.comments.as_deref().unwrap_or_default(),
        })
    }

    /// The spot as sent, for when POTA's answer does not show it.
    fn as_spot(&self) -> Spot {
        Spot {
            activator: self.activator.clone(),
            frequency: self.frequency,
            band: band_for_mhz(self.frequency),
            mode: Some(self.mode.clone()),
            reference: self.reference.clone(),
            park_name: None,
            location: None,
            spot_time: None,
            spotter: Some(self.spotter.clone()),
            comments: self.comments.clone(),
            id: None,
        }
    }

    /// POTA answers a spot with its whole list; the newest entry of this activator at this park
    /// is the spot as POTA took it. An answer that does not hold it still means it was taken.
    fn accepted(&self, answer: &[u8]) -> Spot {
        serde_json::from_slice::<Value>(answer)
            .ok()
            .and_then(|list| spots_from_api(&list).ok())
            .and_then(|spots| {
                spots.into_iter().find(|s| {
                    s.activator.eq_ignore_ascii_case(&self.activator)
                        && s.reference.eq_ignore_ascii_case(&self.reference)
                })
            })
            .unwrap_or_else(|| self.as_spot())
    }
}

impl Pota {
    /// `GET /spot/activator`: the activators on the air now, newest spot first.
    pub async fn spots(&self) -> Result<Vec<Spot>, PotaError> {
        let answer = self.get(&["spot", "activator"]).await?;
        if !(200..=299).contains(&answer.status) {
            return Err(answer.refused());
        }
        spots_from_api(&answer.json()?)
    }

    /// `POST /spot`, once: never retried, never kept to send later. A spot that may have
    /// arrived must not be sent twice, and one that did not is stale by the time a link is
    /// back; the error says which it was.
    pub async fn spot(&self, spot: &NewSpot) -> Result<Spot, PotaError> {
        let spot = spot.checked()?;
        let body = serde_json::to_vec(&spot.body())
            .map_err(|e| PotaError::Invalid(format!("the spot cannot be encoded: {e}")))?;
        let answer = self
            .send(reqwest::Method::POST, self.url(&["spot"]), Some(body))
            .await
            .map_err(|e| {
                let fate = if e.unsent {
                    "the spot was not sent"
                } else {
                    "the spot may or may not have reached POTA; svc spots shows whether it did"
                };
                PotaError::Transport(format!(
                    "no answer from POTA at {} ({}): {fate}. svc does not send it again by itself, since a late spot misleads hunters",
                    self.base, e.cause
                ))
            })?;
        if !(200..=299).contains(&answer.status) {
            return Err(answer.refused());
        }
        Ok(spot.accepted(&answer.body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(value: Value) -> Spot {
        spot_from_api(&value).unwrap()
    }

    #[test]
    fn spots_are_read_liberally() {
        let s = spot(json!({
            "spotId": 41, "activator": "w1aw", "frequency": "14285", "mode": "ssb",
            "reference": "US-0001", "name": "Acadia National Park", "locationDesc": "US-ME",
            "spotTime": "2026-11-27T12:00:00", "spotter": "K1ABC", "comments": " QRV ",
            "source": "Web", "grid6": "FN54vh", "count": 3, "expire": 1200
        }));
        assert_eq!(
            s,
            Spot {
                activator: "W1AW".into(),
                frequency: 14.285,
                band: Some("20m"),
                mode: Some("SSB".into()),
                reference: "US-0001".into(),
                park_name: Some("Acadia National Park".into()),
                location: Some("US-ME".into()),
                spot_time: Some(Timestamp::parse("t", "2026-11-27T12:00:00Z").unwrap()),
                spotter: Some("K1ABC".into()),
                comments: Some("QRV".into()),
                id: Some(41),
            }
        );
        let sparse = spot(json!({"activator": "K2A", "frequency": 7074.5, "reference": "K-0001"}));
        assert_eq!((sparse.frequency, sparse.band), (7.0745, Some("40m")));
        assert_eq!(
            (sparse.mode, sparse.spot_time, sparse.id),
            (None, None, None)
        );
        let zoned = spot(
            json!({"activator": "K2A", "frequency": "7074", "reference": "K-1",
            "spotTime": "2026-11-27T12:00:00.5+01:00"}),
        );
        assert_eq!(
            zoned.spot_time.unwrap().to_string(),
            "2026-11-27T11:00:00.500Z"
        );
        for useless in [
            json!({"frequency": "14285", "reference": "US-0001"}),
            json!({"activator": "W1AW", "reference": "US-0001"}),
            json!({"activator": "W1AW", "frequency": "abc", "reference": "US-0001"}),
            json!({"activator": "W1AW", "frequency": "14285"}),
            json!({"activator": "W1AW", "frequency": "14285", "reference": "US-1", "invalid": true}),
            json!(null),
            json!(42),
        ] {
            assert_eq!(spot_from_api(&useless), None, "{useless}");
        }
    }

    #[test]
    fn the_list_is_newest_first_and_must_be_a_list() {
        let list = json!([
            {"spotId": 1, "activator": "A1A", "frequency": "7000", "reference": "K-1", "spotTime": "2026-11-27T12:00:00"},
            {"spotId": 3, "activator": "C1C", "frequency": "7000", "reference": "K-1"},
            {"spotId": 2, "activator": "B1B", "frequency": "7000", "reference": "K-1", "spotTime": "2026-11-27T12:00:00"},
            {"spotId": 4, "activator": "D1D", "frequency": "7000", "reference": "K-1", "spotTime": "2026-11-27T12:05:00"},
            "junk"
        ]);
        let calls: Vec<String> = spots_from_api(&list)
            .unwrap()
            .into_iter()
            .map(|s| s.activator)
            .collect();
        assert_eq!(calls, ["D1D", "B1B", "A1A", "C1C"]);
        assert_eq!(
            spots_from_api(&json!({"spots": []}))
                .unwrap_err()
                .exit_code(),
            1
        );
    }

    #[test]
    fn kilohertz_are_written_with_the_decimals_there_are() {
        assert_eq!(khz_text(14.285), "14285");
        assert_eq!(khz_text(14.0745), "14074.5");
        assert_eq!(khz_text(7.0), "7000");
        assert_eq!(khz_text(146.52), "146520");
        assert_eq!(khz_text(10.1365), "10136.5");
    }

    #[test]
    fn filters_keep_a_band_and_a_class_or_a_mode() {
        let s = |mode: &str, khz: &str| {
            spot(json!({"activator": "W1AW", "frequency": khz, "mode": mode, "reference": "K-1"}))
        };
        let band = SpotFilter {
            band: Some(SpotFilter::band("20M").unwrap()),
            mode: None,
        };
        assert!(band.matches(&s("SSB", "14285")));
        assert!(!band.matches(&s("SSB", "7185")));
        let phone = SpotFilter {
            band: None,
            mode: Some(ModeFilter::parse("Phone").unwrap()),
        };
        assert!(phone.matches(&s("SSB", "14285")));
        assert!(phone.matches(&s("FM", "146520")));
        assert!(!phone.matches(&s("CW", "14060")));
        let data = SpotFilter {
            band: None,
            mode: Some(ModeFilter::parse("data").unwrap()),
        };
        assert!(data.matches(&s("FT8", "14074")));
        assert!(!data.matches(&s("CW", "14074")));
        let ft8 = SpotFilter {
            band: None,
            mode: Some(ModeFilter::parse("ft8").unwrap()),
        };
        assert!(ft8.matches(&s("FT8", "14074")));
        assert!(!ft8.matches(&s("FT4", "14080")));
        let mut no_mode = s("", "14074");
        no_mode.mode = None;
        assert!(!ft8.matches(&no_mode));
        assert!(SpotFilter::default().matches(&no_mode));
        assert!(SpotFilter::band("11m").unwrap_err().contains("not a band"));
        assert!(
            ModeFilter::parse("<b>")
                .unwrap_err()
                .contains("cw, phone, data")
        );
    }

    fn new_spot() -> NewSpot {
        NewSpot {
            activator: " w1aw ".into(),
            spotter: "w1aw".into(),
            frequency: 14.285,
            reference: "us-0001".into(),
            mode: "ssb".into(),
            comments: Some(" QRV, 100 W ".into()),
        }
    }

    #[test]
    fn a_spot_is_sent_checked_with_potas_seven_fields() {
        let checked = new_spot().checked().unwrap();
        assert_eq!(
            checked.body(),
            json!({
                "activator": "W1AW", "spotter": "W1AW", "frequency": "14285",
                "reference": "US-0001", "mode": "SSB", "source": "svc", "comments": "QRV, 100 W"
            })
        );
        let bare = NewSpot {
            comments: None,
            ..new_spot()
        };
        assert_eq!(bare.checked().unwrap().body()["comments"], "");
        let refused = |change: fn(&mut NewSpot)| {
            let mut s = new_spot();
            change(&mut s);
            s.checked().unwrap_err()
        };
        assert!(
            refused(|s| s.frequency = 14285.0)
                .to_string()
                .contains("not in an amateur band")
        );
        assert!(
            refused(|s| s.reference = "US-1,US-2".into())
                .to_string()
                .contains("one park")
        );
        assert!(
            refused(|s| s.reference = "US1".into())
                .to_string()
                .contains("park reference")
        );
        assert!(
            refused(|s| s.mode = "XYZMODE".into())
                .to_string()
                .contains("not an ADIF mode")
        );
        assert!(
            refused(|s| s.comments = Some("a\nb".into()))
                .to_string()
                .contains("control characters")
        );
        assert!(
            refused(|s| s.comments = Some("US-\u{202e}EM".into()))
                .to_string()
                .contains("reorder text")
        );
        assert_eq!(
            refused(|s| s.activator = "not a call".into()).exit_code(),
            2
        );
    }

    #[test]
    fn the_accepted_spot_is_found_in_potas_answer_or_is_the_one_sent() {
        let sent = new_spot().checked().unwrap();
        let answer = json!([
            {"spotId": 7, "activator": "W1AW", "frequency": "14285", "mode": "SSB",
             "reference": "US-0001", "name": "Acadia National Park",
             "spotTime": "2026-11-27T12:00:00", "spotter": "W1AW", "comments": "QRV, 100 W"},
            {"spotId": 5, "activator": "W1AW", "frequency": "7185", "mode": "SSB",
             "reference": "US-0001", "spotTime": "2026-11-27T11:00:00"},
            {"spotId": 9, "activator": "K1ABC", "frequency": "7030", "reference": "US-0002",
             "spotTime": "2026-11-27T12:30:00"}
        ]);
        let taken = sent.accepted(answer.to_string().as_bytes());
        assert_eq!(taken.id, Some(7));
        assert_eq!(taken.park_name.as_deref(), Some("Acadia National Park"));
        for other in ["", "OK", "[]", "{}"] {
            assert_eq!(sent.accepted(other.as_bytes()), sent.as_spot(), "{other:?}");
        }
        assert_eq!(sent.as_spot().band, Some("20m"));
    }
}
