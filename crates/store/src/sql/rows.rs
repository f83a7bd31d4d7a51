//! Rows read back: the column types of either driver, and folders, contacts, keys and
//! accounts as the store's types.

use super::*;

pub(super) fn decode_err(what: String) -> sqlx::Error {
    sqlx::Error::Decode(what.into())
}

/// The column types the store reads, from rows of either driver it reads with.
pub(super) trait StoreRow {
    fn text(&self, col: &str) -> Result<String, sqlx::Error>;
    fn opt_text(&self, col: &str) -> Result<Option<String>, sqlx::Error>;
    fn int(&self, col: &str) -> Result<i64, sqlx::Error>;
    fn opt_int(&self, col: &str) -> Result<Option<i64>, sqlx::Error>;
    fn float(&self, col: &str) -> Result<f64, sqlx::Error>;
}

macro_rules! store_row {
    ($($row:ty),*) => {$(
        impl StoreRow for $row {
            fn text(&self, col: &str) -> Result<String, sqlx::Error> {
                self.try_get(col)
            }
            fn opt_text(&self, col: &str) -> Result<Option<String>, sqlx::Error> {
                self.try_get(col)
            }
            fn int(&self, col: &str) -> Result<i64, sqlx::Error> {
                self.try_get(col)
            }
            fn opt_int(&self, col: &str) -> Result<Option<i64>, sqlx::Error> {
                self.try_get(col)
            }
            fn float(&self, col: &str) -> Result<f64, sqlx::Error> {
                self.try_get(col)
            }
        }
    )*};
}

store_row!(AnyRow, SqliteRow);

pub(super) fn ts(row: &impl StoreRow, col: &str) -> Result<Timestamp, sqlx::Error> {
    Ok(Timestamp(row.int(col)?))
}

pub(super) fn opt_ts(row: &impl StoreRow, col: &str) -> Result<Option<Timestamp>, sqlx::Error> {
    Ok(row.opt_int(col)?.map(Timestamp))
}

pub(super) fn folder_row(row: &AnyRow) -> Result<Folder, sqlx::Error> {
    let kind: String = row.try_get("type")?;
    Ok(Folder {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        folder_type: FolderType::parse(&kind)
            .ok_or_else(|| decode_err(format!("folder type {kind:?}")))?,
        parent_id: row.try_get("parent_id")?,
        program_id: row.try_get("program_id")?,
        month: row.try_get("month")?,
        start_time: opt_ts(row, "start_time")?,
        end_time: opt_ts(row, "end_time")?,
        location_reference: row.try_get("location_reference")?,
        location_name: row.try_get("location_name")?,
        callsign: row.try_get("callsign")?,
        auto_folder_key: row.try_get("auto_folder_key")?,
        contest: row
            .try_get::<Option<String>, _>("contest")?
            .map(|text| {
                serde_json::from_str(&text)
                    .map_err(|e| decode_err(format!("folder contest {text:?}: {e}")))
            })
            .transpose()?,
        contact_count: row.try_get("contact_count")?,
        created_at: ts(row, "created_at")?,
    })
}

pub(super) fn contact_row(row: &impl StoreRow) -> Result<Contact, sqlx::Error> {
    let id = row.text("id")?;
    let duplicate_of = row.opt_text("first_of_key")?.filter(|first| *first != id);
    Ok(Contact {
        id,
        folder_id: row.text("folder_id")?,
        callsign: row.text("callsign")?,
        frequency: row.float("frequency")?,
        band: row.text("band")?,
        mode: row.text("mode")?,
        time_on: ts(row, "time_on")?,
        rst_sent: row.opt_text("rst_sent")?,
        rst_received: row.opt_text("rst_received")?,
        name: row.opt_text("name")?,
        notes: row.opt_text("notes")?,
        sig: row.opt_text("sig")?,
        sig_info: row.opt_text("sig_info")?,
        my_sig: row.opt_text("my_sig")?,
        my_sig_info: row.opt_text("my_sig_info")?,
        activation_id: row.opt_text("activation_id")?,
        station_callsign: row.opt_text("station_callsign")?,
        fields: fields_of(row.opt_text("fields")?.as_deref())?,
        created_at: ts(row, "created_at")?,
        duplicate_of,
        external: Vec::new(),
    })
}

/// A contact's `fields` column: its declared fields and other ADIF fields, as JSON.
pub(super) fn fields_of(json: Option<&str>) -> Result<svc_model::Fields, sqlx::Error> {
    match json {
        Some(json) => serde_json::from_str(json).map_err(|e| decode_err(e.to_string())),
        None => Ok(svc_model::Fields::default()),
    }
}

/// A contact of a page and its position in the folder's order.
pub(super) fn page_row(row: &impl StoreRow) -> Result<(Contact, Position), sqlx::Error> {
    let position = Position {
        sort: row.int("time_on")?,
        seq: row.int("seq")?,
    };
    Ok((contact_row(row)?, position))
}

pub(super) fn key_row(row: &AnyRow) -> Result<KeyRecord, sqlx::Error> {
    let tier: String = row.try_get("tier")?;
    Ok(KeyRecord {
        id: row.try_get("id")?,
        callsign: row.try_get("callsign")?,
        name: row.try_get("name")?,
        tier: Tier::parse(&tier).ok_or_else(|| decode_err(format!("tier {tier:?}")))?,
        key_prefix: row.try_get("key_prefix")?,
        created_at: ts(row, "created_at")?,
        last_used_at: opt_ts(row, "last_used_at")?,
        revoked_at: opt_ts(row, "revoked_at")?,
        revoked_reason: row.try_get("revoked_reason")?,
    })
}

pub(super) fn account_row(row: &AnyRow) -> Result<Account, sqlx::Error> {
    let plan: String = row.try_get("plan")?;
    Ok(Account {
        id: row.try_get("id")?,
        callsign: row.try_get("callsign")?,
        plan: Plan::parse(&plan).ok_or_else(|| decode_err(format!("plan {plan:?}")))?,
        qso_cap: row.try_get("qso_cap")?,
        native_qso_count: row.try_get("native_qso_count")?,
        created_at: ts(row, "created_at")?,
        disabled_at: row.try_get::<Option<i64>, _>("disabled_at")?.map(Timestamp),
    })
}
