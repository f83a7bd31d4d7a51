//! Contacts pages on SQLite, each read as one JSON array that SQLite writes.
//!
//! sqlx hands every row from its SQLite thread to the task on its own, with a copy of each of
//! its values made on that thread and freed on the other; for a page of contacts that was
//! most of a whole-account export's time (two wake-ups and a score of allocations a contact).
//! One value a page makes it one hand-off. The values are exact: text is escaped, integers
//! are integers, and the frequency goes as `quote()` writes it (a literal that reads back as
//! the same double; JSON's own number would keep 15 digits).

use serde::Deserialize;

use super::{decode_err, fields_of};
use crate::Position;
use svc_model::{Contact, Timestamp};

/// The start of a [`json_page!`], before its inner `SELECT`.
macro_rules! json_page_head {
    () => {
        "SELECT json_group_array(json_array(id, folder_id, callsign, quote(frequency), band, \
         mode, time_on, rst_sent, rst_received, name, notes, sig, sig_info, my_sig, \
         my_sig_info, activation_id, station_callsign, fields, created_at, seq, first_of_key)) \
         FROM ("
    };
}

/// A page of contacts as one JSON array: `$inner` is the page's `SELECT` of `contact_cols!()`,
/// with its order and limit. Read with [`contacts`], which puts the array in page order: SQLite
/// does not promise to aggregate in the order of the rows it is given, and an `ORDER BY` in
/// the aggregate sorted every page again through a temporary b-tree.
macro_rules! json_page {
    ($inner:expr) => {
        concat!(pages::json_page_head!(), $inner, ")")
    };
}

/// A [`json_page!`] of a `SELECT` made at run time (a search's).
pub(super) fn json_page_of(inner: &str) -> String {
    format!(concat!(json_page_head!(), "{}", ")"), inner)
}

pub(super) use {json_page, json_page_head};

/// One contact of a [`json_page!`], its values in the order the page writes them.
#[derive(Deserialize)]
struct PageContact {
    id: String,
    folder_id: String,
    callsign: String,
    frequency: String,
    band: String,
    mode: String,
    time_on: i64,
    rst_sent: Option<String>,
    rst_received: Option<String>,
    name: Option<String>,
    notes: Option<String>,
    sig: Option<String>,
    sig_info: Option<String>,
    my_sig: Option<String>,
    my_sig_info: Option<String>,
    activation_id: Option<String>,
    station_callsign: Option<String>,
    fields: Option<String>,
    created_at: i64,
    seq: i64,
    first_of_key: Option<String>,
}

/// The contacts of a [`json_page!`] and their positions, newest `timeOn` first.
pub(super) fn contacts(page: &str) -> Result<Vec<(Contact, Position)>, sqlx::Error> {
    let mut rows: Vec<PageContact> =
        serde_json::from_str(page).map_err(|e| decode_err(format!("a contacts page: {e}")))?;
    // In practice already in order, which the sort finds in one pass.
    rows.sort_by_key(|row| std::cmp::Reverse((row.time_on, row.seq)));
    rows.into_iter().map(contact).collect()
}

fn contact(row: PageContact) -> Result<(Contact, Position), sqlx::Error> {
    let frequency = row
        .frequency
        .parse()
        .map_err(|_| decode_err(format!("frequency {:?}", row.frequency)))?;
    let duplicate_of = row.first_of_key.filter(|first| *first != row.id);
    let position = Position {
        sort: row.time_on,
        seq: row.seq,
    };
    let contact = Contact {
        id: row.id,
        folder_id: row.folder_id,
        callsign: row.callsign,
        frequency,
        band: row.band,
        mode: row.mode,
        time_on: Timestamp(row.time_on),
        rst_sent: row.rst_sent,
        rst_received: row.rst_received,
        name: row.name,
        notes: row.notes,
        sig: row.sig,
        sig_info: row.sig_info,
        my_sig: row.my_sig,
        my_sig_info: row.my_sig_info,
        activation_id: row.activation_id,
        station_callsign: row.station_callsign,
        fields: fields_of(row.fields.as_deref())?,
        created_at: Timestamp(row.created_at),
        duplicate_of,
        external: Vec::new(),
    };
    Ok((contact, position))
}
