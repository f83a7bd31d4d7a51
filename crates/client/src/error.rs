//! What can go wrong talking to the service, and the exit code each failure maps to.

use serde_json::Value;

use svc_model::ErrorCode;
use svc_model::error::exit_code_for_status;

/// The error envelope of a non-2xx response, with what the HTTP layer added.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerError {
    /// The `error` field as sent; it may be a code this client does not know yet.
    pub error: String,
    pub message: String,
    pub details: Option<Value>,
    pub request_id: Option<String>,
    pub status: u16,
    /// `Retry-After` in seconds, when the server sent one.
    pub retry_after: Option<u64>,
}

impl ServerError {
    pub fn code(&self) -> Option<ErrorCode> {
        ErrorCode::parse(&self.error)
    }

    /// `details.reason`, e.g. `burst` or `lifetime_logbook_budget` for `rate_limited`.
    pub fn reason(&self) -> Option<&str> {
        self.details.as_ref()?.get("reason")?.as_str()
    }

    /// `details.field`: the request's field a validation error is about.
    pub fn field(&self) -> Option<&str> {
        self.details.as_ref()?.get("field")?.as_str()
    }

    pub fn exit_code(&self) -> u8 {
        self.code()
            .map_or_else(|| exit_code_for_status(self.status), ErrorCode::exit_code)
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The request did not get an HTTP answer: refused connection, DNS, TLS, time-out, a
    /// connection closed mid-way. `attempts` is how many were made.
    #[error("{message}")]
    Transport { message: String, attempts: u32 },
    /// The server answered with its error envelope.
    #[error("{}: {}", .0.error, .0.message)]
    Server(Box<ServerError>),
    /// An answer this client cannot read: a body that is not the expected JSON (a proxy's
    /// HTML page, a server of another kind at that address).
    #[error("{message}")]
    Unexpected { status: u16, message: String },
}

impl ClientError {
    /// The client's exit code (docs/API.md, "Errors"). Known codes map through
    /// `ErrorCode::exit_code`; anything else falls back on the HTTP status.
    pub fn exit_code(&self) -> u8 {
        match self {
            ClientError::Transport { .. } => 7,
            ClientError::Server(e) => e.exit_code(),
            ClientError::Unexpected { status, .. } => exit_code_for_status(*status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_error(error: &str, status: u16) -> ServerError {
        ServerError {
            error: error.into(),
            message: "m".into(),
            details: None,
            request_id: None,
            status,
            retry_after: None,
        }
    }

    #[test]
    fn known_codes_use_the_model_table_whatever_the_status() {
        for code in ErrorCode::ALL {
            // A status that disagrees with the code must not win over the code.
            let e = server_error(code.as_str(), 418);
            assert_eq!(e.exit_code(), code.exit_code(), "{code}");
        }
    }

    #[test]
    fn unknown_codes_fall_back_on_the_status() {
        let table = [
            (400, 2),
            (422, 2),
            (401, 3),
            (402, 6),
            (403, 5),
            (404, 1),
            (429, 4),
            (500, 8),
            (503, 8),
            (409, 1),
            (302, 1),
        ];
        for (status, exit) in table {
            assert_eq!(
                server_error("brand_new_code", status).exit_code(),
                exit,
                "{status}"
            );
            let unexpected = ClientError::Unexpected {
                status,
                message: String::new(),
            };
            assert_eq!(unexpected.exit_code(), exit, "{status}");
        }
        let transport = ClientError::Transport {
            message: String::new(),
            attempts: 3,
        };
        assert_eq!(transport.exit_code(), 7);
    }
}
