//! Callsigns: `W1AW`, `VE3/W1AW`, `W1AW/P`, `4X1AB/QRP`.

use super::ApiError;
use super::ids::truncate;

/// The longest callsign taken, prefix and suffix included (`VE3/W1AW/QRP`).
pub const MAX_CALLSIGN: usize = 20;

/// Trims and upper-cases a callsign and checks its shape: segments of letters and digits
/// split by `/`, one of them holding both a letter and a digit.
pub fn normalize_callsign(field: &str, raw: &str) -> Result<String, ApiError> {
    let call = raw.trim().to_ascii_uppercase();
    if call.is_empty() {
        return Err(ApiError::field(
            field,
            format!("{field} is required, e.g. W1AW"),
        ));
    }
    let segments_ok = !call.is_empty()
        && call.len() <= MAX_CALLSIGN
        && call
            .split('/')
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric()));
    let has_base = call.split('/').any(|s| {
        s.len() >= 3
            && s.bytes().any(|b| b.is_ascii_digit())
            && s.bytes().any(|b| b.is_ascii_alphabetic())
    });
    if segments_ok && has_base {
        Ok(call)
    } else {
        Err(ApiError::field(
            field,
            format!(
                "{field} {:?} is not a callsign: use letters and digits with optional /prefix or /suffix, e.g. W1AW or VE3/W1AW/P (at most {MAX_CALLSIGN} characters)",
                truncate(raw, 30)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_real_callsigns_and_normalizes_them() {
        for (raw, want) in [
            ("w1aw", "W1AW"),
            ("  K1ABC ", "K1ABC"),
            ("ve3/w1aw", "VE3/W1AW"),
            ("W1AW/P", "W1AW/P"),
            ("4X1AB/QRP", "4X1AB/QRP"),
            ("3DA0RU", "3DA0RU"),
            ("GB1000BBC", "GB1000BBC"),
        ] {
            assert_eq!(normalize_callsign("callsign", raw).unwrap(), want);
        }
    }

    #[test]
    fn refuses_what_is_not_a_callsign() {
        for bad in [
            "",
            "   ",
            "W1AW//P",
            "/W1AW",
            "W1 AW",
            "HELLO",
            "12345",
            "W1AW-5",
            "AAAAAAAAAAAAAAAAAAAA1",
        ] {
            let err = normalize_callsign("callsign", bad).unwrap_err();
            assert!(err.message.contains("W1AW"), "{bad}: {}", err.message);
            // Nothing typed is a missing callsign, not a malformed one.
            assert_eq!(
                err.message.contains("is required"),
                bad.trim().is_empty(),
                "{bad}: {}",
                err.message
            );
        }
    }
}
