//! The web pages over HTTP, as a browser without JavaScript would use them (a cookie jar, no
//! redirects followed, forms posted by hand), and in a real headless Chromium (`browser`).

mod activations;
mod browser;
mod browser_pictures;
mod burst;
mod csrf;
mod keys;
mod log;
mod logbooks;
mod pages;
mod pictures;
mod sessions;
mod stations;

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::common::Server;

/// One response of a page.
#[derive(Debug)]
pub struct Page {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Page {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn location(&self) -> &str {
        assert_eq!(self.status, 303, "expected a redirect: {}", self.body);
        self.header("location").expect("a Location header")
    }

    /// The value of the form field `name` (a hidden input's, or a text field's).
    pub fn field(&self, name: &str) -> String {
        let marker = format!("name=\"{name}\"");
        let at = self
            .body
            .find(&marker)
            .unwrap_or_else(|| panic!("no field {name} in {}", self.body));
        let input_start = self.body[..at].rfind('<').unwrap();
        let input_end = at + self.body[at..].find('>').unwrap();
        let input = &self.body[input_start..input_end];
        let value = input
            .split("value=\"")
            .nth(1)
            .unwrap_or_else(|| panic!("field {name} has no value: {input}"));
        value[..value.find('"').unwrap()].to_owned()
    }

    /// The plaintext key of the reveal dialog, if the page has one.
    pub fn revealed_key(&self) -> Option<String> {
        let at = ["svc_live_", "htx_live_"]
            .iter()
            .find_map(|p| self.body.find(&format!("value=\"{p}")))?
            + "value=\"".len();
        Some(self.body[at..at + 33].to_owned())
    }

    /// Asserts an HTML page with this status whose text says `says`.
    pub fn expect(&self, status: u16, says: &str) -> &Page {
        assert_eq!(self.status, status, "{}", self.body);
        assert!(
            self.header("content-type")
                .is_some_and(|c| c.starts_with("text/html")),
            "not HTML: {:?}",
            self.headers
        );
        assert!(
            self.body.contains(says),
            "the page does not say {says:?}:\n{}",
            self.body
        );
        self
    }

    /// The keys a keys page lists: `(id, keyPrefix)` of each row, in order.
    pub fn listed_keys(&self) -> Vec<(String, String)> {
        self.body
            .match_indices("<tr id=\"")
            .map(|(at, marker)| {
                let id = &self.body[at + marker.len()..][..20];
                let code = at + self.body[at..].find("<code>svc_live_").unwrap() + "<code>".len();
                (id.to_owned(), self.body[code..code + 12].to_owned())
            })
            .collect()
    }

    /// The value of `Set-Cookie` for the cookie `name`, if the response sets it.
    pub fn set_cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with(&format!("{name}=")))
            .map(str::to_owned)
    }
}

/// A browser without JavaScript: keeps cookies, follows no redirects, and records every
/// response it gets so that a test can search all of them at the end.
pub struct Browser {
    pub base: String,
    http: reqwest::blocking::Client,
    pub cookies: RefCell<BTreeMap<String, String>>,
    transcript: RefCell<String>,
}

impl Browser {
    pub fn new(server: &Server) -> Browser {
        Browser::at(&server.url, None)
    }

    /// A browser at `base` that connects from the loopback address `from` (127.0.0.2, …), to
    /// stand for another client address.
    pub fn at(base: &str, from: Option<&str>) -> Browser {
        let mut http = crate::common::http_builder().redirect(reqwest::redirect::Policy::none());
        if let Some(ip) = from {
            http = http.local_address(ip.parse::<std::net::IpAddr>().unwrap());
        }
        Browser {
            base: base.to_owned(),
            http: http.build().unwrap(),
            cookies: RefCell::new(BTreeMap::new()),
            transcript: RefCell::new(String::new()),
        }
    }

    /// A browser at `base` (`https://NAME:PORT`) that reaches NAME at `address` over TLS,
    /// from the loopback address `from`, taking the test's self-signed certificate.
    pub fn over_tls(base: &str, from: &str, address: std::net::SocketAddr) -> Browser {
        let host = reqwest::Url::parse(base).unwrap();
        let http = reqwest::blocking::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .local_address(from.parse::<std::net::IpAddr>().unwrap())
            .resolve(host.host_str().unwrap(), address)
            .tls_danger_accept_invalid_certs(true)
            .build()
            .unwrap();
        Browser {
            base: base.to_owned(),
            http,
            cookies: RefCell::new(BTreeMap::new()),
            transcript: RefCell::new(String::new()),
        }
    }

    /// A browser at `base` behind a proxy that names it `client` in `X-Forwarded-For` (for a
    /// server started with `--trust-proxy`).
    pub fn behind_proxy(base: &str, client: &str) -> Browser {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-forwarded-for", client.parse().unwrap());
        let http = crate::common::http_builder()
            .redirect(reqwest::redirect::Policy::none())
            .default_headers(headers)
            .build()
            .unwrap();
        Browser {
            base: base.to_owned(),
            http,
            cookies: RefCell::new(BTreeMap::new()),
            transcript: RefCell::new(String::new()),
        }
    }

    /// Everything every response said so far: status, headers and bodies.
    pub fn transcript(&self) -> String {
        self.transcript.borrow().clone()
    }

    fn send(&self, request: reqwest::blocking::RequestBuilder) -> Page {
        let jar: Vec<String> = self
            .cookies
            .borrow()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let request = if jar.is_empty() {
            request
        } else {
            request.header("cookie", jar.join("; "))
        };
        let response = request.send().expect("request");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        for cookie in headers.get_all("set-cookie").iter() {
            let cookie = cookie.to_str().unwrap();
            let pair = cookie.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() || cookie.contains("Max-Age=0") {
                self.cookies.borrow_mut().remove(name);
            } else {
                self.cookies
                    .borrow_mut()
                    .insert(name.to_owned(), value.to_owned());
            }
        }
        let body = response.text().unwrap_or_default();
        let mut transcript = self.transcript.borrow_mut();
        transcript.push_str(&format!("{status}\n{headers:?}\n{body}\n"));
        Page {
            status,
            headers,
            body,
        }
    }

    pub fn get(&self, path: &str) -> Page {
        self.get_with(path, &[])
    }

    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Page {
        let mut request = self.http.get(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request)
    }

    /// Posts a form with extra headers (e.g. Origin).
    pub fn post_with(&self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Page {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request)
    }

    /// Posts a form as the page's own would come: with this site's Origin.
    pub fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let origin = self.base.clone();
        self.post_with(path, fields, &[("origin", &origin)])
    }

    /// Fetches the page with the form and posts it with its CSRF token and `fields`.
    pub fn submit(&self, form_page: &str, action: &str, fields: &[(&str, &str)]) -> Page {
        let page = self.get(form_page);
        assert_eq!(page.status, 200, "{form_page}: {}", page.body);
        let csrf = page.field("csrf");
        let mut all = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(action, &all)
    }

    pub fn sign_up(&self, callsign: &str, password: &str) -> Page {
        self.submit(
            "/signup",
            "/signup",
            &[
                ("callsign", callsign),
                ("password", password),
                ("confirm", password),
            ],
        )
    }

    /// Signs up and asserts it worked.
    pub fn signed_up(server: &Server, callsign: &str) -> Browser {
        let browser = Browser::new(server);
        let page = browser.sign_up(callsign, PASSWORD);
        assert_eq!(page.location(), "/keys", "{}", page.body);
        browser
    }

    pub fn sign_in(&self, callsign: &str, password: &str) -> Page {
        self.submit(
            "/signin",
            "/signin",
            &[("callsign", callsign), ("password", password)],
        )
    }

    /// Generates a key on the keys page; returns the response and the plaintext it revealed.
    pub fn generate(&self, name: &str, tier: &str) -> (Page, String) {
        let list = self.get("/keys");
        assert_eq!(list.status, 200, "{}", list.body);
        let page = self.post(
            "/keys",
            &[
                ("csrf", &list.field("csrf")),
                ("form", &list.field("form")),
                ("name", name),
                ("tier", tier),
            ],
        );
        assert_eq!(page.status, 200, "{}", page.body);
        let key = page
            .revealed_key()
            .expect("the reveal dialog shows the key");
        (page, key)
    }

    /// The session cookie's value.
    pub fn session(&self) -> Option<String> {
        self.cookies.borrow().get("svc_session").cloned()
    }
}

pub const PASSWORD: &str = "correct horse battery";
