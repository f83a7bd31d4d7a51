//! `/v1/stations`: the account's station profiles (docs/API.md, "Station profiles").

use reqwest::Method;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Client, ClientError, encode};
use svc_model::StationProfile;

#[derive(Debug, Clone, Deserialize)]
struct Stations {
    items: Vec<StationProfile>,
}

impl Client {
    /// `GET /v1/stations`
    pub async fn stations(&self) -> Result<Vec<StationProfile>, ClientError> {
        let list: Stations = self
            .call(Method::GET, self.url(&["stations"]), &[], None)
            .await?;
        Ok(list.items)
    }

    /// `PUT /v1/stations/{callsign}` (an elevated key): `values` by contact wire name
    /// (`myGridsquare`, `txPwr`, …) replace the profile whole.
    pub async fn put_station(
        &self,
        callsign: &str,
        values: &Map<String, Value>,
    ) -> Result<StationProfile, ClientError> {
        self.call(
            Method::PUT,
            self.url(&["stations", callsign]),
            &[],
            Some(encode(values)?),
        )
        .await
    }

    /// `DELETE /v1/stations/{callsign}` (an elevated key)
    pub async fn delete_station(&self, callsign: &str) -> Result<Value, ClientError> {
        self.call(Method::DELETE, self.url(&["stations", callsign]), &[], None)
            .await
    }
}
