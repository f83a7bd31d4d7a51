//! What an award is asked for: a band or the satellite column, a mode class or a mode, and the
//! QSL services whose confirmations count.

use serde::{Deserialize, Serialize};

use crate::ApiError;
use crate::band::band_name;
use crate::confirm::QRZ_STATUS_FIELD;
use crate::fields::{Field, Fields};
use crate::mode::{PotaMode, is_known, parent};

/// The column of satellite contacts (`propMode` SAT), kept apart from the band they used.
pub const SAT: &str = "SAT";

/// A QSL service whose confirmations an award may count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    /// LoTW: `lotwQslRcvd` Y.
    Lotw,
    /// eQSL: `eqslQslRcvd` Y.
    Eqsl,
    /// A paper card: `qslRcvd` Y.
    Card,
    /// QRZ.com's logbook: its `APP_QRZLOG_STATUS` C.
    Qrz,
}

impl Service {
    pub const ALL: [Service; 4] = [Service::Lotw, Service::Eqsl, Service::Card, Service::Qrz];

    /// What ARRL counts for DXCC and WAS: LoTW and paper cards.
    pub const DEFAULT: [Service; 2] = [Service::Lotw, Service::Card];

    pub fn id(self) -> &'static str {
        match self {
            Service::Lotw => "lotw",
            Service::Eqsl => "eqsl",
            Service::Card => "card",
            Service::Qrz => "qrz",
        }
    }

    /// Where a contact carries this service's confirmation, and the value that says so: the
    /// one reading of it, which [`Service::confirms`] applies to a contact and a store turns
    /// into SQL over the `fields` column.
    pub fn carried(self) -> Carried {
        match self {
            Service::Lotw => Carried::Field(Field::LotwQslRcvd, "Y"),
            Service::Eqsl => Carried::Field(Field::EqslQslRcvd, "Y"),
            Service::Card => Carried::Field(Field::QslRcvd, "Y"),
            Service::Qrz => Carried::Adif(QRZ_STATUS_FIELD, "C"),
        }
    }

    /// Whether the contact carries this service's confirmation.
    pub fn confirms(self, fields: &Fields) -> bool {
        match self.carried() {
            Carried::Field(field, yes) => fields
                .get(field)
                .is_some_and(|v| v.eq_ignore_ascii_case(yes)),
            Carried::Adif(name, yes) => fields
                .adif
                .get(name)
                .is_some_and(|s| s.trim().eq_ignore_ascii_case(yes)),
        }
    }

    /// A comma list of services (`lotw,card`), each once, in [`Service::ALL`]'s order.
    pub fn parse_list(field: &str, text: &str) -> Result<Vec<Service>, ApiError> {
        let mut services = Vec::new();
        for part in text.split(',').map(str::trim) {
            let known = Service::ALL
                .into_iter()
                .find(|s| s.id().eq_ignore_ascii_case(part));
            match known {
                Some(service) => services.push(service),
                // Club Log matches contacts for its own awards but gives a log no field that
                // says a contact is confirmed, so nothing could count for it.
                None if part.eq_ignore_ascii_case("clublog") => {
                    return Err(ApiError::field(
                        field,
                        format!(
                            "{field}: Club Log gives no confirmation a contact can carry, so it counts for nothing; use lotw, eqsl, card or qrz"
                        ),
                    ));
                }
                None => {
                    return Err(ApiError::field(
                        field,
                        format!(
                            "{field}: {part:?} is not a QSL service awards count; give a comma list of lotw, eqsl, card and qrz, e.g. lotw,card"
                        ),
                    ));
                }
            }
        }
        services.sort();
        services.dedup();
        Ok(services)
    }
}

/// Where a confirmation is carried: a declared field (by its wire name) or an entry of the
/// `adif` map, and the value, in any case (and for the `adif` entry, blanks around it), that
/// says confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    Field(Field, &'static str),
    Adif(&'static str, &'static str),
}

/// The contacts a `mode` asks for: a class (`cw`, `phone`, `data`) or one mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeFilter {
    Class(PotaMode),
    /// An ADIF mode or submode, upper-case; a mode takes its submodes in (`MFSK` takes FT4).
    Mode(String),
}

/// A mode class's name on the wire and in the columns.
pub fn class_name(class: PotaMode) -> &'static str {
    match class {
        PotaMode::Cw => "cw",
        PotaMode::Phone => "phone",
        PotaMode::Data => "data",
    }
}

/// The mode classes, in column order.
pub const CLASSES: [PotaMode; 3] = [PotaMode::Cw, PotaMode::Phone, PotaMode::Data];

impl ModeFilter {
    pub fn parse(field: &str, text: &str) -> Result<ModeFilter, ApiError> {
        let text = text.trim();
        if let Some(class) = CLASSES
            .into_iter()
            .find(|c| class_name(*c).eq_ignore_ascii_case(text))
        {
            return Ok(ModeFilter::Class(class));
        }
        if is_known(text) {
            return Ok(ModeFilter::Mode(text.to_ascii_uppercase()));
        }
        Err(ApiError::field(
            field,
            format!(
                "{field}: {text:?} is neither a mode class (cw, phone, data) nor an ADIF mode, e.g. FT8"
            ),
        ))
    }

    /// The wire's name of the filter.
    pub fn name(&self) -> String {
        match self {
            ModeFilter::Class(class) => class_name(*class).to_owned(),
            ModeFilter::Mode(mode) => mode.clone(),
        }
    }

    pub fn takes(&self, mode: &str) -> bool {
        match self {
            ModeFilter::Class(class) => PotaMode::of(mode) == *class,
            ModeFilter::Mode(wanted) => {
                mode.trim().eq_ignore_ascii_case(wanted) || parent(mode) == Some(wanted.as_str())
            }
        }
    }
}

/// One question to an award: which contacts, and which confirmations count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// A band as ADIF names it, or [`SAT`].
    pub band: Option<String>,
    pub mode: Option<ModeFilter>,
    pub confirmed_by: Vec<Service>,
}

impl Default for Query {
    fn default() -> Query {
        Query {
            band: None,
            mode: None,
            confirmed_by: Service::DEFAULT.to_vec(),
        }
    }
}

impl Query {
    /// The query of the API's parameters `band`, `mode` and `confirmedBy`, each named in its
    /// error; `confirmedBy` absent is [`Service::DEFAULT`].
    pub fn parse(
        band: Option<&str>,
        mode: Option<&str>,
        confirmed_by: Option<&str>,
    ) -> Result<Query, ApiError> {
        let band = band
            .map(|text| {
                if text.trim().eq_ignore_ascii_case(SAT) {
                    Ok(SAT.to_owned())
                } else {
                    band_name(text).map(str::to_owned).ok_or_else(|| {
                        ApiError::field(
                            "band",
                            format!(
                                "band: {text:?} is not an ADIF band; give one such as 20m or 2m, or SAT for satellite contacts"
                            ),
                        )
                    })
                }
            })
            .transpose()?;
        let mode = mode.map(|m| ModeFilter::parse("mode", m)).transpose()?;
        let confirmed_by = match confirmed_by {
            Some(text) => Service::parse_list("confirmedBy", text)?,
            None => Service::DEFAULT.to_vec(),
        };
        Ok(Query {
            band,
            mode,
            confirmed_by,
        })
    }

    /// The query as the API's parameters, for a client to send.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let mut params = Vec::new();
        if let Some(band) = &self.band {
            params.push(("band", band.clone()));
        }
        if let Some(mode) = &self.mode {
            params.push(("mode", mode.name()));
        }
        let services: Vec<&str> = self.confirmed_by.iter().map(|s| s.id()).collect();
        params.push(("confirmedBy", services.join(",")));
        params
    }
}
