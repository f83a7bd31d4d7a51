//! The error codes of the API and the one place that maps each to its HTTP status and CLI exit code.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    ValidationError,
    Unauthorized,
    KeyRevoked,
    TierInsufficient,
    NotFound,
    RateLimited,
    QsoCapReached,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::ValidationError,
        ErrorCode::Unauthorized,
        ErrorCode::KeyRevoked,
        ErrorCode::TierInsufficient,
        ErrorCode::NotFound,
        ErrorCode::RateLimited,
        ErrorCode::QsoCapReached,
        ErrorCode::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "validation_error",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::KeyRevoked => "key_revoked",
            ErrorCode::TierInsufficient => "tier_insufficient",
            ErrorCode::NotFound => "not_found",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::QsoCapReached => "qso_cap_reached",
            ErrorCode::Internal => "internal",
        }
    }

    pub fn parse(code: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == code)
    }

    /// HTTP status of the code (docs/API.md, "Errors").
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::ValidationError => 400,
            ErrorCode::Unauthorized | ErrorCode::KeyRevoked => 401,
            ErrorCode::QsoCapReached => 402,
            ErrorCode::TierInsufficient => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::RateLimited => 429,
            ErrorCode::Internal => 500,
        }
    }

    /// Exit code of the `svc` client (docs/API.md, "Errors").
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorCode::NotFound => 1,
            ErrorCode::ValidationError => 2,
            ErrorCode::Unauthorized | ErrorCode::KeyRevoked => 3,
            ErrorCode::RateLimited => 4,
            ErrorCode::TierInsufficient => 5,
            ErrorCode::QsoCapReached => 6,
            ErrorCode::Internal => 8,
        }
    }
}

/// Exit code of the `svc` client for a failure whose code is unknown (a newer service's, or
/// another service's such as POTA's), by its HTTP status.
pub fn exit_code_for_status(status: u16) -> u8 {
    match status {
        400 | 422 => 2,
        401 => 3,
        402 => 6,
        403 => 5,
        404 => 1,
        429 => 4,
        500..=599 => 8,
        _ => 1,
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `details.reason` of a `rate_limited` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateLimitReason {
    Burst,
    DailyLogbookBudget,
    LifetimeLogbookBudget,
}

impl RateLimitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            RateLimitReason::Burst => "burst",
            RateLimitReason::DailyLogbookBudget => "daily_logbook_budget",
            RateLimitReason::LifetimeLogbookBudget => "lifetime_logbook_budget",
        }
    }
}

/// A failure with its code, a message that says what to fix, and optional details.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Option<Value>,
    /// Seconds after which a resettable `rate_limited` may be retried.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            details: None,
            retry_after: None,
        }
    }

    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ValidationError, message)
    }

    /// A validation error that names the offending field in `details.field`.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Self::validation(message).with_details(serde_json::json!({ "field": field }))
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn internal() -> Self {
        Self::new(
            ErrorCode::Internal,
            "the server failed to handle the request; retry once after a short delay",
        )
    }

    pub fn rate_limited(reason: RateLimitReason, retry_after: Option<u64>) -> Self {
        let message = match reason {
            RateLimitReason::Burst => {
                "too many requests with this key; wait for Retry-After seconds"
            }
            RateLimitReason::DailyLogbookBudget => {
                "this account has used its contact budget for today (UTC); wait for Retry-After seconds"
            }
            RateLimitReason::LifetimeLogbookBudget => {
                "this account has used its lifetime contact budget; contact support for a review"
            }
        };
        let mut err = Self::new(ErrorCode::RateLimited, message)
            .with_details(serde_json::json!({ "reason": reason.as_str() }));
        err.retry_after = retry_after;
        err
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// The body of every non-2xx response.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    pub request_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_names() {
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
        assert_eq!(ErrorCode::parse("nope"), None);
    }

    #[test]
    fn statuses_and_exit_codes_follow_the_spec() {
        use ErrorCode::*;
        let table = [
            (ValidationError, 400, 2),
            (Unauthorized, 401, 3),
            (KeyRevoked, 401, 3),
            (QsoCapReached, 402, 6),
            (TierInsufficient, 403, 5),
            (NotFound, 404, 1),
            (RateLimited, 429, 4),
            (Internal, 500, 8),
        ];
        for (code, status, exit) in table {
            assert_eq!(code.http_status(), status, "{code}");
            assert_eq!(code.exit_code(), exit, "{code}");
        }
    }
}
