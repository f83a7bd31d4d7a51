//! The account's API keys: the list, generation with the one-time reveal, and revocation.
//!
//! A new key's plaintext exists in one response only: the answer to the form post that made it,
//! which no cache may keep. The form carries a one-time token that the database records with
//! the key, so the same form posted again (a reload, the back button) makes no key and shows
//! none; the page's script also turns its history entry into a plain GET of the list.

use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::{Html, render, time};
use super::session::{PostForm, Visitor};
use super::{Nav, Notice, Page, Problem, REVEAL_MS, see_other, sign_in_first};
use crate::model::ids::{base32, random_bytes};
use crate::model::{ApiKey, IdKind, Tier, Timestamp, text};
use crate::server::AppState;
use crate::store::{Account, KeyRecord};

/// Characters of a form's one-time token: 16 random bytes in base32.
const FORM_TOKEN_CHARS: usize = 26;

/// What the generate form shows: what was typed, and the token of this rendering.
struct GenerateForm<'a> {
    name: &'a str,
    tier: Option<Tier>,
    token: String,
}

impl GenerateForm<'_> {
    fn blank() -> GenerateForm<'static> {
        GenerateForm {
            name: "",
            tier: None,
            token: new_form_token(),
        }
    }
}

fn new_form_token() -> String {
    base32(&random_bytes::<16>())
}

fn state_of(key: &KeyRecord) -> Html {
    match key.revoked_at {
        None => Html::trusted("Active"),
        Some(at) => {
            let mut state = Html::trusted("<span class=\"revoked\">Revoked</span> ");
            state.push(time(at));
            state.push(Html::text(&format!(
                " (reason: {})",
                key.revoked_reason.as_deref().unwrap_or("not recorded")
            )));
            state
        }
    }
}

/// What the keys list and the revoke page show of a key.
fn key_fields(key: &KeyRecord) -> Vec<(&'static str, Html)> {
    vec![
        ("id", Html::text(&key.id)),
        ("name", Html::text(&key.name)),
        ("tier", Html::text(key.tier.as_str())),
        ("prefix", Html::text(&key.key_prefix)),
        ("created", time(key.created_at)),
        (
            "last_used",
            key.last_used_at
                .map_or_else(|| Html::trusted("never"), time),
        ),
    ]
}

fn key_list(keys: &[KeyRecord]) -> Html {
    if keys.is_empty() {
        return Html::trusted("<p>No keys yet: generate one below.</p>");
    }
    let mut rows = Html::default();
    for key in keys {
        let action = if key.revoked_at.is_none() {
            render(
                "<a href=\"/keys/{{id}}/revoke\">Revoke<span class=\"sr\"> {{name}}</span></a>",
                &[("id", Html::text(&key.id)), ("name", Html::text(&key.name))],
            )
        } else {
            Html::default()
        };
        let mut fields = key_fields(key);
        fields.extend([("state", state_of(key)), ("action", action)]);
        rows.push(render(
            include_str!("../../../assets/key_row.html"),
            &fields,
        ));
    }
    render(
        include_str!("../../../assets/keys_table.html"),
        &[("rows", rows)],
    )
}

/// The keys page; `reveal` is the dialog with a new key, in the one response that has it.
fn keys_page(
    visitor: &Visitor,
    keys: &[KeyRecord],
    form: GenerateForm<'_>,
    notice: Option<Notice>,
    reveal: Option<Html>,
    status: StatusCode,
) -> Response {
    let checked = |tier: Tier| {
        // Basic is the default: the smaller power, unless the user chose otherwise.
        let chosen = form.tier.unwrap_or(Tier::Basic) == tier;
        Html::trusted(if chosen { " checked" } else { "" })
    };
    let content = render(
        include_str!("../../../assets/keys.html"),
        &[
            ("list", key_list(keys)),
            ("csrf", Html::text(&visitor.csrf_token())),
            ("form_token", Html::text(&form.token)),
            ("name", Html::text(form.name)),
            ("basic_checked", checked(Tier::Basic)),
            ("elevated_checked", checked(Tier::Elevated)),
            ("reveal", reveal.clone().unwrap_or_default()),
        ],
    );
    let mut page = Page::new("API keys", Nav::Keys, content)
        .status(status)
        .notice(notice);
    page.script = reveal.is_some();
    page.render(visitor)
}

fn signed_in(visitor: &Visitor) -> Option<&Account> {
    visitor.account.as_ref()
}

pub async fn list(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    RawQuery(query): RawQuery,
) -> Result<Response, Problem> {
    let Some(account) = signed_in(&visitor) else {
        return Ok(sign_in_first(&visitor, "/keys"));
    };
    let keys = state.store.list_keys(&account.id).await?;
    // After a revocation: name the key, if it is this account's (the id comes from the query).
    let revoked = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(n, _)| n == "revoked")
        .and_then(|(_, id)| keys.iter().find(|k| k.id == id && k.revoked_at.is_some()));
    let notice = revoked.map(|key| {
        Notice::info(render(
            "Key <strong>{{name}}</strong> (<code>{{prefix}}</code>) is revoked: programs that use it now get the error <code>key_revoked</code>.",
            &[
                ("name", Html::text(&key.name)),
                ("prefix", Html::text(&key.key_prefix)),
            ],
        ))
    });
    Ok(keys_page(
        &visitor,
        &keys,
        GenerateForm::blank(),
        notice,
        None,
        StatusCode::OK,
    ))
}

/// The name and tier of the generate form, or what to fix.
fn check_generate(name: &str, tier: Option<Tier>) -> Result<(String, Tier), &'static str> {
    let name = match text::single_line("name", name, 100) {
        Ok(Some(name)) => name,
        Ok(None) => {
            return Err(
                "Give the key a name, e.g. laptop, so you can tell it apart later. No key was made.",
            );
        }
        Err(_) if name.trim().chars().count() > 100 => {
            return Err("The name is longer than 100 characters; shorten it. No key was made.");
        }
        Err(_) => {
            return Err("The name must be one line without control characters. No key was made.");
        }
    };
    let tier = tier.ok_or("Choose a tier, basic or elevated. No key was made.")?;
    Ok((name, tier))
}

pub async fn generate(State(state): State<AppState>, form: PostForm) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/keys"));
    };
    let token = form.field("form");
    if token.len() != FORM_TOKEN_CHARS
        || !token
            .bytes()
            .all(|b| matches!(b, b'A'..=b'Z' | b'2'..=b'7'))
    {
        return Err(Problem::bad_request(
            "The form is incomplete (its one-time token is missing or damaged), so no key was made. Reload the keys page and fill the form in again.",
        ));
    }
    let entered = form.field("name");
    let chosen = Tier::parse(form.field("tier"));
    let (name, tier) = match check_generate(entered, chosen) {
        Ok(checked) => checked,
        Err(message) => {
            let keys = state.store.list_keys(&account.id).await?;
            let form = GenerateForm {
                name: entered,
                tier: chosen,
                token: token.to_owned(),
            };
            return Ok(keys_page(
                visitor,
                &keys,
                form,
                Some(Notice::error(message)),
                None,
                StatusCode::BAD_REQUEST,
            ));
        }
    };
    let key = ApiKey::generate();
    let made = state
        .store
        .create_key_from_form(&account.id, &name, tier, &key, token)
        .await?;
    let keys = state.store.list_keys(&account.id).await?;
    let Some(record) = made else {
        return Ok(keys_page(
            visitor,
            &keys,
            GenerateForm::blank(),
            Some(Notice::error(
                "This form was sent before, and its key was made then. A key is shown only once, so it is not shown again: if you did not copy it, revoke it in the list and generate a new one.",
            )),
            None,
            StatusCode::CONFLICT,
        ));
    };
    let reveal = render(
        include_str!("../../../assets/reveal.html"),
        &[
            ("name", Html::text(&record.name)),
            ("tier", Html::text(record.tier.as_str())),
            ("key", Html::text(key.expose())),
            ("lifetime_ms", Html::text(&REVEAL_MS.to_string())),
            ("lifetime_s", Html::text(&(REVEAL_MS / 1000).to_string())),
        ],
    );
    let notice = Notice::info(render(
        "Key <strong>{{name}}</strong> (<code>{{prefix}}</code>, {{tier}}) was generated.",
        &[
            ("name", Html::text(&record.name)),
            ("prefix", Html::text(&record.key_prefix)),
            ("tier", Html::text(record.tier.as_str())),
        ],
    ));
    Ok(keys_page(
        visitor,
        &keys,
        GenerateForm::blank(),
        Some(notice),
        Some(reveal),
        StatusCode::OK,
    ))
}

fn no_such_key(key_id: &str) -> Problem {
    Problem::not_found(format!(
        "Your account has no key {}. Pick the key from the list on the keys page.",
        crate::model::ids::truncate(key_id, 40)
    ))
}

fn revoked_already(key: &KeyRecord) -> Problem {
    Problem::Page {
        status: StatusCode::CONFLICT,
        title: "Revoked already",
        message: format!(
            "Key {} ({}) was revoked already{}; nothing was changed.",
            key.name,
            key.key_prefix,
            key.revoked_at
                .map(|t| format!(" at {t}"))
                .unwrap_or_default()
        ),
        retry_after: None,
    }
}

/// The account's key with this id, whatever its state.
async fn own_key(state: &AppState, account: &Account, key_id: &str) -> Result<KeyRecord, Problem> {
    if !IdKind::Key.is_valid(key_id) {
        return Err(no_such_key(key_id));
    }
    state
        .store
        .list_keys(&account.id)
        .await?
        .into_iter()
        .find(|k| k.id == key_id)
        .ok_or_else(|| no_such_key(key_id))
}

pub async fn confirm_revoke(
    State(state): State<AppState>,
    Extension(visitor): Extension<Visitor>,
    Path(key_id): Path<String>,
) -> Result<Response, Problem> {
    let Some(account) = signed_in(&visitor) else {
        return Ok(sign_in_first(&visitor, "/keys"));
    };
    let key = own_key(&state, account, &key_id).await?;
    if key.revoked_at.is_some() {
        return Err(revoked_already(&key));
    }
    let mut fields = key_fields(&key);
    fields.push(("csrf", Html::text(&visitor.csrf_token())));
    let content = render(include_str!("../../../assets/revoke.html"), &fields);
    Ok(Page::new("Revoke this key?", Nav::Keys, content).render(&visitor))
}

pub async fn revoke(
    State(state): State<AppState>,
    Path(key_id): Path<String>,
    form: PostForm,
) -> Result<Response, Problem> {
    let visitor = &form.visitor;
    let Some(account) = signed_in(visitor) else {
        return Ok(sign_in_first(visitor, "/keys"));
    };
    if !IdKind::Key.is_valid(&key_id) {
        return Err(no_such_key(&key_id));
    }
    // The account is part of the update's condition: another account's key is never touched.
    if state
        .store
        .revoke_account_key(&account.id, &key_id, Timestamp::now())
        .await?
    {
        return Ok(see_other(&format!("/keys?revoked={key_id}")));
    }
    let key = own_key(&state, account, &key_id).await?;
    Err(revoked_already(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generate_form_says_what_to_fix() {
        assert_eq!(
            check_generate("  laptop ", Some(Tier::Basic)).unwrap(),
            ("laptop".to_owned(), Tier::Basic)
        );
        for (name, tier, says) in [
            ("", Some(Tier::Basic), "Give the key a name"),
            ("   ", Some(Tier::Basic), "Give the key a name"),
            (&"x".repeat(101), Some(Tier::Basic), "longer than 100"),
            ("a\u{7}b", Some(Tier::Basic), "one line"),
            ("laptop", None, "Choose a tier"),
        ] {
            let message = check_generate(name, tier).unwrap_err();
            assert!(message.contains(says), "{name:?}: {message}");
        }
    }

    #[test]
    fn form_tokens_have_their_shape() {
        let token = new_form_token();
        assert_eq!(token.len(), FORM_TOKEN_CHARS);
        assert_ne!(token, new_form_token());
    }
}
