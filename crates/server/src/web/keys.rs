//! The account's API keys: the list, generation with the one-time reveal, and revocation.
//!
//! A new key's plaintext exists in one response only: the answer to the form post that made it,
//! which no cache may keep. The form carries a one-time token that the database records with
//! the key, so the same form posted again (a reload, the back button) makes no key and shows
//! none; the page's script also turns its history entry into a plain GET of the list.

use askama::Template;
use axum::Extension;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::html::When;
use super::session::{PostForm, Visitor};
use super::{Layout, Nav, Notice, Problem, REVEAL_MS, respond, see_other, sign_in_first};
use crate::AppState;
use svc_model::ids::{base32, random_bytes};
use svc_model::key::KeyPrefix;
use svc_model::{ApiKey, IdKind, Tier, Timestamp, text};
use svc_store::{Account, KeyRecord};

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

    fn checked(&self, tier: Tier) -> bool {
        // Basic is the default: the smaller power, unless the user chose otherwise.
        self.tier.unwrap_or(Tier::Basic) == tier
    }
}

fn new_form_token() -> String {
    base32(&random_bytes::<16>())
}

/// What the keys list and the revoke page show of a key.
struct KeyView<'a> {
    id: &'a str,
    name: &'a str,
    tier: &'static str,
    prefix: &'a str,
    created: When,
    last_used: Option<When>,
    /// When, and why.
    revoked: Option<(When, &'a str)>,
}

impl<'a> From<&'a KeyRecord> for KeyView<'a> {
    fn from(key: &'a KeyRecord) -> KeyView<'a> {
        KeyView {
            id: &key.id,
            name: &key.name,
            tier: key.tier.as_str(),
            prefix: &key.key_prefix,
            created: When::from(key.created_at),
            last_used: key.last_used_at.map(When::from),
            revoked: key.revoked_at.map(|at| {
                let reason = key.revoked_reason.as_deref();
                (When::from(at), reason.unwrap_or("not recorded"))
            }),
        }
    }
}

/// The dialog with a new key's plaintext.
struct Reveal<'a> {
    name: &'a str,
    tier: &'static str,
    key: &'a str,
    lifetime_ms: i64,
    lifetime_s: i64,
}

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage<'a> {
    layout: Layout<'a>,
    keys: Vec<KeyView<'a>>,
    form: GenerateForm<'a>,
    /// Only in the one response that has the new key; the page's script comes with it.
    reveal: Option<Reveal<'a>>,
}

#[derive(Template)]
#[template(path = "revoke.html")]
struct RevokePage<'a> {
    layout: Layout<'a>,
    key: KeyView<'a>,
}

fn keys_page(
    visitor: &Visitor,
    keys: &[KeyRecord],
    form: GenerateForm<'_>,
    notice: Option<Notice>,
    reveal: Option<Reveal<'_>>,
    status: StatusCode,
) -> Response {
    let page = KeysPage {
        layout: Layout::new(visitor, "API keys", Nav::Keys).notice(notice),
        keys: keys.iter().map(KeyView::from).collect(),
        form,
        reveal,
    };
    respond(status, &page)
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
    let notice = revoked.map(|key| Notice::KeyRevoked {
        name: key.name.clone(),
        prefix: key.key_prefix.clone(),
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
                Some(Notice::Error(message.to_owned())),
                None,
                StatusCode::BAD_REQUEST,
            ));
        }
    };
    // The Hamtrax client stores only keys of its own shape; the box asks for one.
    let key = ApiKey::generate_with(match form.field("prefix") {
        "htx" => KeyPrefix::Htx,
        _ => KeyPrefix::Svc,
    });
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
            Some(Notice::Error(
                "This form was sent before, and its key was made then. A key is shown only once, so it is not shown again: if you did not copy it, revoke it in the list and generate a new one.".to_owned(),
            )),
            None,
            StatusCode::CONFLICT,
        ));
    };
    let reveal = Reveal {
        name: &record.name,
        tier: record.tier.as_str(),
        key: key.expose(),
        lifetime_ms: REVEAL_MS,
        lifetime_s: REVEAL_MS / 1000,
    };
    let notice = Notice::KeyGenerated {
        name: record.name.clone(),
        prefix: record.key_prefix.clone(),
        tier: record.tier.as_str(),
    };
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
        svc_model::ids::truncate(key_id, 40)
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
    let page = RevokePage {
        layout: Layout::new(&visitor, "Revoke this key?", Nav::Keys),
        key: KeyView::from(&key),
    };
    Ok(respond(StatusCode::OK, &page))
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

    /// Every part of the page, with markup in every value a user or the database gives it.
    #[test]
    fn the_keys_page_shows_every_value_as_text() {
        let typed = "<b>\"x' & y";
        let active = KeyRecord {
            id: "key_aaaaaaaaaaaaaaaa".into(),
            callsign: "W1AW".into(),
            name: typed.into(),
            tier: Tier::Elevated,
            key_prefix: "svc_live_ABC".into(),
            created_at: Timestamp(1_763_820_300_123),
            last_used_at: Some(Timestamp(1_763_820_360_000)),
            revoked_at: None,
            revoked_reason: None,
        };
        let revoked = KeyRecord {
            revoked_at: Some(Timestamp(1_763_820_420_000)),
            revoked_reason: Some(typed.into()),
            ..active.clone()
        };
        let keys = [active, revoked];
        let page = KeysPage {
            layout: Layout {
                title: "API keys",
                nav: Nav::Keys,
                callsign: Some(typed),
                csrf: typed.into(),
                notice: Some(Notice::KeyGenerated {
                    name: typed.into(),
                    prefix: "svc_live_ABC".into(),
                    tier: "elevated",
                }),
            },
            keys: keys.iter().map(KeyView::from).collect(),
            form: GenerateForm {
                name: typed,
                tier: Some(Tier::Elevated),
                token: typed.into(),
            },
            reveal: Some(Reveal {
                name: typed,
                tier: "elevated",
                key: typed,
                lifetime_ms: REVEAL_MS,
                lifetime_s: REVEAL_MS / 1000,
            }),
        };
        let html = page.render().unwrap();
        assert!(!html.contains("<b>"), "{html}");
        let escaped = "&lt;b&gt;&quot;x&#39; &amp; y";
        // The nav's callsign and token, the notice, two rows, a revoke link, the reason, the
        // form's two tokens and typed name, the reveal's title and key.
        assert_eq!(html.matches(escaped).count(), 12, "{html}");
        for syntax in ["{{", "}}", "{%", "%}"] {
            assert!(!html.contains(syntax), "{syntax} in {html}");
        }
        assert!(html.contains("value=\"elevated\" checked>"), "{html}");
        assert!(html.contains("<script src=\"/assets/keys.js\" defer></script>"));
        assert!(html.contains("(reason: &lt;b&gt;"), "{html}");
        assert_eq!(
            html.matches("href=\"/keys/key_aaaaaaaaaaaaaaaa/revoke\"")
                .count(),
            1
        );
    }

    #[test]
    fn form_tokens_have_their_shape() {
        let token = new_form_token();
        assert_eq!(token.len(), FORM_TOKEN_CHARS);
        assert_ne!(token, new_form_token());
    }
}
