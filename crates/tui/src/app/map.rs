//! The map (Alt-V): what it shows, gathered from across the app: the open log's grids, the
//! own grid (the station profile of the account's callsign, else the newest contact of the
//! log that carries one), the call on the form or the one WSJT-X works, with its bearing and
//! distance, and the open activation's POTA count.

use super::*;
use crate::components::map::{MapView, Own, Target};
use crate::widgets::Theme;
use svc_model::fields::Field as Declared;
use svc_model::locator::{bearing, distance_km, place};

impl App {
    /// The map shown or put away; the station profiles are read the first time it shows.
    pub(super) fn toggle_map(&mut self) -> Vec<Effect> {
        self.map = !self.map;
        if self.map && self.stations.is_none() && self.connection != Connection::Offline {
            self.stations = Some(Vec::new());
            return vec![Effect::LoadStations];
        }
        vec![]
    }

    /// The station profiles read; with none (or the link down) the log's own grid serves.
    pub(super) fn stations_loaded(
        &mut self,
        result: Result<Vec<svc_model::StationProfile>, String>,
    ) {
        match result {
            Ok(stations) => self.stations = Some(stations),
            // Asked again the next time the map is shown.
            Err(_) => self.stations = None,
        }
    }

    /// The own grid, and where it comes from.
    fn own(&self) -> Option<Own> {
        let me = self.me.as_ref().map(|m| m.callsign.as_str());
        let profile = self.stations.iter().flatten().find_map(|p| {
            let grid = p.get(Declared::MyGridsquare)?;
            me.is_some_and(|me| p.callsign.eq_ignore_ascii_case(me))
                .then(|| (grid.to_owned(), "station profile"))
        });
        let logged = || {
            self.contacts.items.iter().find_map(|c| {
                let grid = c.fields.get(Declared::MyGridsquare)?;
                Some((grid.to_owned(), "the log's newest contact"))
            })
        };
        let (grid, whence) = profile.or_else(logged)?;
        Some(Own {
            place: place(&grid)?,
            grid,
            whence,
        })
    }

    /// The call the form holds, else the one WSJT-X works; its place is the grid on the form
    /// (typed, or the callbook's), else its entity's.
    fn target(&self, own: Option<&Own>) -> Option<Target> {
        let form = self.entry.as_ref();
        let typed = form.map_or("", |f| f.value(Field::Callsign).trim());
        let call = if typed.is_empty() {
            self.wsjtx.as_ref()?.dx_call(self.now)?
        } else {
            typed.to_ascii_uppercase()
        };
        let entity = self.callsigns.as_ref().and_then(|c| c.dxcc.resolve(&call));
        let grid = form
            .map(|f| f.value(Field::Grid).trim())
            .filter(|g| !typed.is_empty() && place(g).is_some());
        let (to, whence) = match (grid, &entity) {
            (Some(grid), _) => (place(grid), format!("grid {grid}")),
            (None, Some(e)) => (
                Some(svc_model::locator::Place {
                    lat: e.lat,
                    lon: e.lon,
                }),
                "entity".to_owned(),
            ),
            (None, None) => (None, String::new()),
        };
        let heading = match (own, to) {
            (Some(own), Some(to)) => {
                Some((bearing(own.place, to), distance_km(own.place, to), whence))
            }
            _ => None,
        };
        Some(Target {
            call,
            entity: entity.map(|e| e.name.to_owned()),
            place: to,
            heading,
        })
    }

    /// The map as it is drawn now.
    pub fn map_view(&self, theme: Theme) -> MapView {
        let contacts = self.contacts.logged();
        let mut total = 0;
        let points: Vec<(f64, f64)> = contacts
            .filter_map(|c| {
                total += 1;
                place(c.fields.get(Declared::Gridsquare)?)
            })
            .map(|p| (p.lon, p.lat))
            .collect();
        let own = self.own();
        let target = self.target(own.as_ref());
        let folder = self.contacts.folder.as_ref();
        let pota = folder
            .filter(|f| f.folder_type == FolderType::Activation)
            .and_then(|f| self.activations.meter(&f.id));
        MapView {
            log: folder.map(|f| f.name.clone()),
            points,
            contacts: total,
            in_log: folder.map_or(0, |f| usize::try_from(f.contact_count).unwrap_or(0)),
            own,
            target,
            pota,
            theme,
        }
    }
}
