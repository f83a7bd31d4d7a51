//! Checks of flag values done before anything is sent, each failing with a message that says
//! what to give instead (clap reports them as usage errors, exit 2); and the question asked
//! on the terminal before a change that cannot be undone.

use std::io::{BufRead, IsTerminal, Read};

use super::CliError;
use svc_client::lookup::Password;
use svc_model::band::read_frequency;
use svc_model::callsign::normalize_callsign;
use svc_model::mode::check_mode;
use svc_model::page::MAX_LIMIT;
use svc_model::program::{normalize_reference, normalize_reference_list};
use svc_model::time::parse_month;
use svc_model::{IdKind, Timestamp};
use svc_pota::{ModeFilter, SpotFilter};

pub fn folder_id(text: &str) -> Result<String, String> {
    IdKind::Folder
        .parse("folder id", text.trim())
        .map_err(|e| e.message)
}

pub fn logbook_id(text: &str) -> Result<String, String> {
    IdKind::Logbook
        .parse("logbook id", text.trim())
        .map_err(|e| e.message)
}

pub fn contact_id(text: &str) -> Result<String, String> {
    IdKind::Contact
        .parse("contact id", text.trim())
        .map_err(|e| e.message)
}

/// An `Idempotency-Key` as the service takes it: 1 to 255 visible ASCII characters.
pub fn idempotency_key(text: &str) -> Result<String, String> {
    if (1..=255).contains(&text.len()) && text.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        Ok(text.to_owned())
    } else {
        Err(
            "an idempotency key is 1 to 255 visible ASCII characters, no spaces, e.g. a UUID"
                .into(),
        )
    }
}

/// A positive, finite number of MHz, sent as given (the server reads kHz-sized values as kHz).
pub fn frequency(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number; give the frequency in MHz, e.g. 14.074"))?;
    if !value.is_finite() || value <= 0.0 {
        return Err(format!(
            "{text:?} is not a positive number; give the frequency in MHz, e.g. 14.074"
        ));
    }
    Ok(value)
}

/// A frequency that lies in an amateur band, in MHz or in kHz as the logbook's form reads it
/// (`14.285` or `14285`, the model's `read_frequency`), given back in MHz: what a spot tells
/// hunters must be right.
pub fn mhz_in_band(text: &str) -> Result<f64, String> {
    let value = frequency(text)?;
    read_frequency("frequency", value)
        .map(|f| f.mhz)
        .map_err(|e| e.message)
}

/// An ISO 8601 time with an offset, normalized to UTC.
pub fn time(text: &str) -> Result<String, String> {
    Timestamp::parse("time", text)
        .map(|t| t.to_string())
        .map_err(|_| {
            format!(
                "{text:?} is not an ISO 8601 time with a UTC offset; give e.g. 2026-11-22T14:05:00Z"
            )
        })
}

/// The start of a day or a time: `2026-11-01` (UTC midnight) or an ISO 8601 time with offset.
fn day_or_time(text: &str) -> Result<(Timestamp, bool), String> {
    if let Ok(day) = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d") {
        let start = day.and_time(chrono::NaiveTime::MIN).and_utc();
        return Ok((Timestamp(start.timestamp_millis()), true));
    }
    Timestamp::parse("time", text)
        .map(|t| (t, false))
        .map_err(|_| {
            format!(
                "{text:?} is neither a date nor a time; give a UTC day, e.g. 2026-11-01, or a time with offset, e.g. 2026-11-01T12:00:00Z"
            )
        })
}

/// `--since`: from the start of that UTC day, or from that moment.
pub fn since(text: &str) -> Result<Timestamp, String> {
    day_or_time(text).map(|(t, _)| t)
}

/// `--until`: through the end of that UTC day, or up to (not including) that moment.
pub fn until(text: &str) -> Result<Timestamp, String> {
    day_or_time(text).map(|(t, day)| {
        if day {
            Timestamp(t.millis() + 86_400_000)
        } else {
            t
        }
    })
}

/// A UDP address, `HOST:PORT`: an IP address, or a name resolved once now.
pub fn udp_address(text: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::{SocketAddr, ToSocketAddrs};
    let text = text.trim();
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    text.to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            format!("{text:?} is not a UDP address: give HOST:PORT, e.g. 127.0.0.1:2237")
        })
}

pub fn month(text: &str) -> Result<String, String> {
    parse_month("month", text).map_err(|e| e.message)
}

/// A park reference, or a two-fer's list of them (`US-1234,US-5678`).
pub fn reference(text: &str) -> Result<String, String> {
    normalize_reference_list("reference", text).map_err(|e| e.message)
}

/// One park reference (`US-1234`), not a list.
pub fn park(text: &str) -> Result<String, String> {
    if text.contains(',') {
        return Err("give one park, e.g. US-1234 (a spot names the others in its comment)".into());
    }
    normalize_reference("reference", text).map_err(|e| e.message)
}

/// An ADIF mode or submode, upper-cased.
pub fn mode(text: &str) -> Result<String, String> {
    check_mode("mode", text, false).map_err(|e| e.message)
}

/// A band as ADIF names it, e.g. `20m`.
pub fn band(text: &str) -> Result<&'static str, String> {
    SpotFilter::band(text)
}

/// A mode class (`cw`, `phone`, `data`) or one mode.
pub fn mode_filter(text: &str) -> Result<ModeFilter, String> {
    ModeFilter::parse(text)
}

pub fn callsign(text: &str) -> Result<String, String> {
    normalize_callsign("callsign", text).map_err(|e| e.message)
}

/// A page size the server accepts: 1 to 200.
pub fn limit(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_LIMIT).contains(n))
        .ok_or_else(|| format!("{text:?} is not a whole number from 1 to {MAX_LIMIT}"))
}

/// An outbox entry's id, `ent_…`.
pub fn entry_id(text: &str) -> Result<String, String> {
    let t = text.trim();
    if svc_client::journal::is_entry_id(t) {
        Ok(t.to_owned())
    } else {
        Err(format!(
            "{:?} is not an outbox entry id: expected ent_ followed by 16 characters a-z or 2-7 (svc outbox list shows them)",
            svc_model::ids::truncate(text, 40)
        ))
    }
}

/// Free text that must not be blank.
pub fn text(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    Ok(t.to_owned())
}

/// A spot's comment, by the model's one rule for it ([`svc_model::text::spot_comment`]).
pub fn spot_comment(text: &str) -> Result<String, String> {
    match svc_model::text::spot_comment(text) {
        Ok(Some(comment)) => Ok(comment),
        Ok(None) => Err("must not be empty".into()),
        Err(e) => Err(e.message),
    }
}

/// Asks on the terminal; only `y` or `yes` agrees.
pub(super) fn confirm(question: &str) -> Result<bool, CliError> {
    super::eprint_safe(question);
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::local(format!("cannot read the answer: {e}")))?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// The password: all of stdin with `--password-stdin` (its line end dropped), else a hidden
/// prompt on a terminal.
pub fn read_password(title: &str, from_stdin: bool) -> Result<Password, CliError> {
    let text = if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CliError::local(format!("cannot read the password from stdin: {e}")))?;
        text
    } else if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("{title} password (input hidden): ")).map_err(|e| {
            CliError::local(format!("cannot read the password from the terminal: {e}"))
        })?
    } else {
        return Err(CliError::input(
            "no terminal to ask for the password on: give --password-stdin and pipe it in",
        ));
    };
    // Only the line end: spaces can be part of a password.
    let password = text.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        return Err(CliError::input("no password was given"));
    }
    Ok(Password::new(password))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_with_a_fix_in_the_message() {
        assert_eq!(frequency("14.074"), Ok(14.074));
        assert_eq!(frequency("14074"), Ok(14074.0));
        for bad in ["abc", "", "-1", "0", "NaN", "inf"] {
            let e = frequency(bad).unwrap_err();
            assert!(e.contains("e.g. 14.074"), "{bad}: {e}");
        }
        assert_eq!(
            time("2026-11-22T16:05:00+02:00").unwrap(),
            "2026-11-22T14:05:00Z"
        );
        assert!(
            time("2026-11-22 14:05")
                .unwrap_err()
                .contains("2026-11-22T14:05:00Z")
        );
        assert_eq!(limit("200"), Ok(200));
        for bad in ["0", "201", "-1", "ten", "1.5"] {
            assert!(limit(bad).unwrap_err().contains("1 to 200"), "{bad}");
        }
        assert!(
            folder_id("qso_aaaaaaaaaaaaaaaa")
                .unwrap_err()
                .contains("fld_")
        );
        assert!(
            contact_id("fld_aaaaaaaaaaaaaaaa")
                .unwrap_err()
                .contains("qso_")
        );
        assert!(month("2026-13").unwrap_err().contains("YYYY-MM"));
        assert_eq!(reference(" us-1234 "), Ok("US-1234".into()));
        assert!(reference("US1234").unwrap_err().contains("e.g. US-1234"));
        assert_eq!(park(" us-0001"), Ok("US-0001".into()));
        assert!(park("US-1,US-2").unwrap_err().contains("one park"));
        assert_eq!(mhz_in_band("14.285"), Ok(14.285));
        assert_eq!(
            mhz_in_band("14285"),
            Ok(14.285),
            "kHz, as the logbook reads it"
        );
        assert!(mhz_in_band("99").unwrap_err().contains("amateur band"));
        assert_eq!(mode("ssb"), Ok("SSB".into()));
        assert!(mode("XYZMODE").is_err());
        assert_eq!(band("20M"), Ok("20m"));
        assert!(text("  ").is_err());
        assert_eq!(
            entry_id(" ent_aaaaaaaaaaaaaaaa"),
            Ok("ent_aaaaaaaaaaaaaaaa".into())
        );
        assert!(
            entry_id("qso_aaaaaaaaaaaaaaaa")
                .unwrap_err()
                .contains("ent_")
        );
    }
}
