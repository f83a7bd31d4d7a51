//! One contact of the log: its fields, an edit form that goes through the API's edit
//! (`contacts::apply_edit`: the same rules, the same messages, nothing changed on an error), and
//! a delete that asks first on a page of its own, as the API's `DELETE` deletes.

use askama::Template;
use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};

use super::auth::capitalized;
use super::html::When;
use super::session::{PostForm, Visitor};
use super::{Layout, Nav, Notice, Problem, respond, see_other, sign_in_first};
use crate::AppState;
use crate::contacts::apply_edit;
use crate::extract::JsonBody;
use svc_model::confirm::marks;
use svc_model::fields::Field;
use svc_model::seed::{
    CALLSIGN, FREQUENCY, MODE, NAME, NOTES, RST_RECEIVED, RST_SENT, SIG, SIG_INFO, TIME_ON,
};
use svc_model::{Contact, ErrorCode, IdKind, Timestamp};
use svc_store::{Account, StoreError};

/// A field the form edits: its wire name (the form field's name too), its label, whether the
/// API takes it as a number, and its stored value as the form shows it.
struct Editable {
    wire: &'static str,
    label: &'static str,
    number: bool,
    value: fn(&Contact) -> String,
}

fn text(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

/// The fields of the edit form, in its order.
const EDITABLE: &[Editable] = &[
    Editable {
        wire: CALLSIGN.wire,
        label: "Call",
        number: false,
        value: |c| c.callsign.clone(),
    },
    Editable {
        wire: TIME_ON.wire,
        label: "Time on (UTC, e.g. 2026-11-22T14:05:00Z)",
        number: false,
        value: |c| c.time_on.to_string(),
    },
    Editable {
        wire: FREQUENCY.wire,
        label: "Frequency (MHz)",
        number: true,
        value: |c| c.frequency.to_string(),
    },
    Editable {
        wire: MODE.wire,
        label: "Mode",
        number: false,
        value: |c| c.mode.clone(),
    },
    Editable {
        wire: RST_SENT.wire,
        label: "RST sent",
        number: false,
        value: |c| text(&c.rst_sent),
    },
    Editable {
        wire: RST_RECEIVED.wire,
        label: "RST received",
        number: false,
        value: |c| text(&c.rst_received),
    },
    Editable {
        wire: NAME.wire,
        label: "Name",
        number: false,
        value: |c| text(&c.name),
    },
    Editable {
        wire: "gridsquare",
        label: "Grid",
        number: false,
        value: |c| {
            c.fields
                .get(Field::Gridsquare)
                .unwrap_or_default()
                .to_owned()
        },
    },
    Editable {
        wire: SIG.wire,
        label: "Program (SIG, e.g. POTA)",
        number: false,
        value: |c| text(&c.sig),
    },
    Editable {
        wire: SIG_INFO.wire,
        label: "Park (SIG_INFO, e.g. US-0001)",
        number: false,
        value: |c| text(&c.sig_info),
    },
    Editable {
        wire: NOTES.wire,
        label: "Notes",
        number: false,
        value: |c| text(&c.notes),
    },
];

struct FieldView {
    wire: &'static str,
    label: &'static str,
    value: String,
}

/// What the page says of the contact besides the form.
struct Summary {
    id: String,
    callsign: String,
    when: When,
    band: String,
    mode: String,
    confirmed: String,
    dupe: bool,
}

impl From<&Contact> for Summary {
    fn from(c: &Contact) -> Summary {
        Summary {
            id: c.id.clone(),
            callsign: c.callsign.clone(),
            when: When::from(c.time_on),
            band: c.band.clone(),
            mode: c.mode.clone(),
            confirmed: marks(&c.fields),
            dupe: c.duplicate_of.is_some(),
        }
    }
}

#[derive(Template)]
#[template(path = "contact.html")]
struct ContactPage<'a> {
    layout: Layout<'a>,
    contact: Summary,
    fields: Vec<FieldView>,
}

#[derive(Template)]
#[template(path = "delete.html")]
struct DeletePage<'a> {
    layout: Layout<'a>,
    contact: Summary,
}

fn no_such_contact() -> Problem {
    Problem::not_found(
        "Your log has no such contact: it may have been deleted. Open Log from the menu to find it.",
    )
}

/// The account's contact `qso_id`, or the page that says there is none.
async fn own_contact(
    state: &AppState,
    account: &Account,
    qso_id: &str,
) -> Result<Contact, Problem> {
    if !IdKind::Contact.is_valid(qso_id) {
        return Err(no_such_contact());
    }
    state
        .store
        .contact(&account.id, qso_id)
        .await?
        .ok_or_else(no_such_contact)
}

fn contact_page(
    visitor: &Visitor,
    contact: &Contact,
    typed: Option<&PostForm>,
    notice: Option<Notice>,
    status: StatusCode,
) -> Response {
    let fields = EDITABLE
        .iter()
        .map(|f| FieldView {
            wire: f.wire,
            label: f.label,
            value: typed
                .and_then(|form| form.optional(f.wire))
                .map_or_else(|| (f.value)(contact), str::to_owned),
        })
        .collect();
    let page = ContactPage {
        layout: Layout::new(visitor, "Contact", Nav::Log).notice(notice),
        contact: Summary::from(contact),
        fields,
    };
    respond(status, &page)
}

pub async fn show(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path(qso_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/log"));
    };
    let contact = own_contact(&state, account, &qso_id).await?;
    let saved = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .any(|(name, value)| name == "notice" && value == "saved");
    let notice = saved.then_some(Notice::Info("Your changes to the contact are saved."));
    Ok(contact_page(
        &visitor,
        &contact,
        None,
        notice,
        StatusCode::OK,
    ))
}

/// The edit's body: each field of the form whose value differs from the stored one, an emptied
/// one as null (the API's clearing, which it refuses for the fields every contact has), and a
/// number field's text as a string where it is not a number, so that the API's own check
/// says what is wrong with it.
fn changes(form: &PostForm, contact: &Contact) -> Map<String, Value> {
    let mut body = Map::new();
    for f in EDITABLE {
        let Some(typed) = form.optional(f.wire) else {
            continue;
        };
        let typed = typed.trim();
        if typed == (f.value)(contact) {
            continue;
        }
        let value = if typed.is_empty() {
            Value::Null
        } else if f.number {
            typed
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| Value::String(typed.to_owned()), Value::Number)
        } else {
            Value::String(typed.to_owned())
        };
        body.insert(f.wire.to_owned(), value);
    }
    body
}

pub async fn edit(
    State(state): State<AppState>,
    Path(qso_id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(visitor, "/log"));
    };
    let contact = own_contact(&state, account, &qso_id).await?;
    let body = changes(&form, &contact);
    if body.is_empty() {
        return Ok(contact_page(
            visitor,
            &contact,
            None,
            Some(Notice::Info(
                "Nothing was changed: the form is as the contact is.",
            )),
            StatusCode::OK,
        ));
    }
    let path = format!("/v1/contacts/{qso_id}");
    match apply_edit(
        &state,
        &account.id,
        &qso_id,
        JsonBody::new("PATCH", &path, body),
        None,
    )
    .await
    {
        Ok(_) => Ok(see_other(&format!("/log/{qso_id}?notice=saved"))),
        Err(StoreError::Api(e)) if e.code == ErrorCode::NotFound => Err(no_such_contact()),
        Err(StoreError::Api(e)) => Ok(contact_page(
            visitor,
            &contact,
            Some(&form),
            Some(Notice::Error(format!(
                "{} Nothing was changed.",
                capitalized(&e.message)
            ))),
            StatusCode::BAD_REQUEST,
        )),
        Err(e) => Err(e.into()),
    }
}

pub async fn confirm_delete(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path(qso_id): Path<String>,
) -> Result<Response, Problem> {
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(&visitor, "/log"));
    };
    let contact = own_contact(&state, account, &qso_id).await?;
    let page = DeletePage {
        layout: Layout::new(&visitor, "Delete this contact?", Nav::Log),
        contact: Summary::from(&contact),
    };
    Ok(respond(StatusCode::OK, &page))
}

pub async fn delete(
    State(state): State<AppState>,
    Path(qso_id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = &visitor.account else {
        return Ok(sign_in_first(visitor, "/log"));
    };
    if !IdKind::Contact.is_valid(&qso_id) {
        return Err(no_such_contact());
    }
    // The account is part of the delete's condition: another account's contact is not found.
    match state
        .store
        .delete_contact(&account.id, &qso_id, Timestamp::now(), None)
        .await
    {
        Ok(_) => Ok(see_other("/log?notice=deleted")),
        Err(StoreError::Api(e)) if e.code == ErrorCode::NotFound => Err(no_such_contact()),
        Err(e) => Err(e.into()),
    }
}
