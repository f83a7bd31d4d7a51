//! Station profiles: read, replaced and removed whole, one row per account and callsign.

use super::*;
use svc_model::StationProfile;

impl SqlStore {
    pub(super) async fn account_stations(
        &self,
        account_id: &str,
    ) -> StoreResult<Vec<StationProfile>> {
        let rows = sqlx::query(
            "SELECT callsign, profile_values FROM station_profiles WHERE account_id = $1 \
             ORDER BY callsign",
        )
        .bind(account_id)
        .fetch_all(&self.reader)
        .await?;
        rows.iter()
            .map(|r| {
                let callsign: String = r.try_get(0)?;
                let stored: String = r.try_get(1)?;
                Ok(StationProfile::from_stored(&callsign, &stored))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Creates or replaces the profile in one statement, so two writers of one callsign
    /// leave one row (the primary key); `true` when it was created.
    pub(super) async fn put_station(
        &self,
        account_id: &str,
        profile: &StationProfile,
        now: Timestamp,
    ) -> StoreResult<bool> {
        let (account_id, callsign, stored) = (
            account_id.to_owned(),
            profile.callsign.clone(),
            profile.stored(),
        );
        self.write(move |tx| {
            Box::pin(async move {
                let existed: Option<i64> = sqlx::query_scalar(
                    "SELECT updated_at FROM station_profiles WHERE account_id = $1 AND callsign = $2",
                )
                .bind(&account_id)
                .bind(&callsign)
                .fetch_optional(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO station_profiles (account_id, callsign, profile_values, updated_at) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, callsign) \
                     DO UPDATE SET profile_values = excluded.profile_values, updated_at = excluded.updated_at",
                )
                .bind(&account_id)
                .bind(&callsign)
                .bind(&stored)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                Ok(existed.is_none())
            })
        })
        .await
    }

    pub(super) async fn remove_station(
        &self,
        account_id: &str,
        callsign: &str,
    ) -> StoreResult<bool> {
        let (account_id, callsign) = (account_id.to_owned(), callsign.to_owned());
        self.write(move |tx| {
            Box::pin(async move {
                let gone = sqlx::query(
                    "DELETE FROM station_profiles WHERE account_id = $1 AND callsign = $2",
                )
                .bind(&account_id)
                .bind(&callsign)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                Ok(gone == 1)
            })
        })
        .await
    }
}
