//! A contest contact's received exchange as an operator types it (the logbook's Exchange
//! field, `svc contacts create --exchange`), put on the contact: the contest reads it
//! ([`Contest::read_typed`]), and each field goes where the contact keeps it.

use crate::contest::Contest;
use crate::fields::Field;
use crate::{ApiError, ContactInput};

/// Puts the received exchange as typed on a contact of `contest`: each field read into its
/// own (the report as `rstReceived`, a name as `name`), the words as read as `srxString`, and
/// the contest's `contestId`. An exchange that does not read changes nothing and says what
/// the contest takes.
pub fn put_received(
    contest: &Contest,
    typed: &str,
    request: &mut ContactInput,
) -> Result<(), ApiError> {
    let read = contest.read_typed(typed, &request.mode)?;
    for (adif, value) in &read {
        match *adif {
            "RST_RCVD" => request.rst_received = Some(value.clone()),
            "NAME" => request.name = Some(value.clone()),
            name => {
                if let Some(field) = Field::by_adif(name) {
                    request.fields.set(field, Some(value.clone()));
                }
            }
        }
    }
    let words: Vec<&str> = read.iter().map(|(_, v)| v.as_str()).collect();
    request.fields.set(Field::SrxString, Some(words.join(" ")));
    request
        .fields
        .set(Field::ContestId, Some(contest.adif.clone()));
    Ok(())
}
