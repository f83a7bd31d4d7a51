//! Super check partial: the known callsigns that contain what has been typed, as N1MM+'s SCP
//! window shows them, from a `MASTER.SCP` (<https://www.supercheckpartial.com>): one callsign
//! a line, `#` lines are comments.
//!
//! The calls are kept in one newline-separated upper-case text, and a keystroke's lookup is one
//! `memmem` scan of it (about half a megabyte for the whole file): measured in
//! `benches/callsign.rs`, well under the millisecond a keystroke may take, so no index.

use memchr::memmem;

/// The Super Check Partial file as svc ships it: release 2023.05.02.00, see
/// `data/MASTER.SCP.LICENSE`.
pub static SHIPPED: &str = include_str!("../data/MASTER.SCP");

/// Fewer typed characters than this match too many calls to help: nothing is shown.
pub const MIN_TYPED: usize = 2;

/// A list of known callsigns to match typed text against.
#[derive(Debug)]
pub struct MasterScp {
    /// Every call once, upper-case, each followed by `\n`, shortest first then alphabetical
    /// (byte order): a scan finds the matches in the order they are shown, so it stops at the
    /// limit.
    text: String,
    len: usize,
}

impl MasterScp {
    /// The file shipped in the binary (release 2023.05.02.00, about 85,000 calls). It is
    /// parsed on each call, a few milliseconds: build it once and keep it.
    pub fn shipped() -> MasterScp {
        MasterScp::load(SHIPPED)
    }

    /// Reads a MASTER.SCP: lines starting with `#` are comments, blank lines are skipped, the
    /// others are callsigns, upper-cased and kept once. Any other text is kept as a call: a
    /// list another program wrote has no wrong lines worth refusing it for.
    pub fn load(text: &str) -> MasterScp {
        let upper = text.to_ascii_uppercase();
        let mut calls: Vec<&str> = upper
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect();
        calls.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        calls.dedup();
        let mut text = String::with_capacity(calls.iter().map(|c| c.len() + 1).sum());
        for call in &calls {
            text.push_str(call);
            text.push('\n');
        }
        MasterScp {
            text,
            len: calls.len(),
        }
    }

    /// How many distinct calls the list holds.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The calls that contain `typed` (any case), at most `limit`, shortest first then
    /// alphabetical: the shorter a call holding what was typed, the more of it has been typed,
    /// so the likeliest come first, and the order stays put from one keystroke to the next.
    /// Typed text of fewer than [`MIN_TYPED`] characters, or with characters no callsign has,
    /// gives nothing.
    pub fn partial(&self, typed: &str, limit: usize) -> Vec<&str> {
        let Some(needle) = needle(typed) else {
            return Vec::new();
        };
        let hay = self.text.as_bytes();
        let mut found = Vec::new();
        // Where the last call found ends: a second match within it is the same call.
        let mut done = 0;
        for at in memmem::find_iter(hay, needle.as_bytes()) {
            if found.len() == limit {
                break;
            }
            if at < done {
                continue;
            }
            let start = memchr::memrchr(b'\n', &hay[..at]).map_or(0, |n| n + 1);
            let end = memchr::memchr(b'\n', &hay[at..]).map_or(hay.len(), |n| at + n);
            found.push(&self.text[start..end]);
            done = end;
        }
        found
    }

    /// [`MasterScp::partial`] with the log's own calls first: those of `own` that contain
    /// `typed`, in the order given (the caller knows which matter most, the latest worked say)
    /// and as written there, each once whatever its case; then the list's calls not among
    /// them, up to `limit` in all.
    pub fn partial_with<'a>(
        &'a self,
        own: impl IntoIterator<Item = &'a str>,
        typed: &str,
        limit: usize,
    ) -> Vec<&'a str> {
        let Some(needle) = needle(typed) else {
            return Vec::new();
        };
        let mut found: Vec<&'a str> = Vec::new();
        let is_new =
            |found: &[&str], call: &str| !found.iter().any(|f| f.eq_ignore_ascii_case(call));
        for call in own {
            if found.len() == limit {
                return found;
            }
            let holds = call
                .as_bytes()
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()));
            if holds && is_new(&found, call) {
                found.push(call);
            }
        }
        // The own calls found can hide at most as many of the list's: `limit` of these is
        // enough to fill the rest.
        for call in self.partial(&needle, limit) {
            if found.len() == limit {
                break;
            }
            if is_new(&found, call) {
                found.push(call);
            }
        }
        found
    }
}

/// Typed text as the list holds calls (trimmed, upper-case), if there is enough of it and it
/// could be part of a callsign.
fn needle(typed: &str) -> Option<String> {
    let typed = typed.trim();
    (typed.len() >= MIN_TYPED
        && typed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'/'))
    .then(|| typed.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str =
        "#\n# Release test\n#\nW1AW\nk1aw\nDL1AWC\n\n  N1AW  \nW1AW\nWA1AW/3\nEA1AW\nW1AWW1AW\n";

    #[test]
    fn comments_and_blank_lines_are_skipped_and_calls_kept_once_upper_case() {
        let scp = MasterScp::load(LIST);
        assert_eq!(scp.len(), 7);
        assert!(!scp.is_empty() && MasterScp::load("# only\n").is_empty());
        assert_eq!(scp.partial("RELEASE", 10), Vec::<&str>::new());
        assert_eq!(scp.partial("#", 10), Vec::<&str>::new());
    }

    #[test]
    fn the_calls_containing_the_typed_text_shortest_first_then_alphabetical() {
        let scp = MasterScp::load(LIST);
        assert_eq!(
            scp.partial("1aw", 10),
            [
                "K1AW", "N1AW", "W1AW", "EA1AW", "DL1AWC", "WA1AW/3", "W1AWW1AW"
            ]
        );
        assert_eq!(scp.partial("W1A", 10), ["W1AW", "W1AWW1AW"]);
        assert_eq!(scp.partial(" awc ", 10), ["DL1AWC"]);
        assert_eq!(scp.partial("XYZ", 10), Vec::<&str>::new());
    }

    #[test]
    fn at_most_limit_calls() {
        let scp = MasterScp::load(LIST);
        assert_eq!(scp.partial("1AW", 2), ["K1AW", "N1AW"]);
        assert_eq!(scp.partial("1AW", 0), Vec::<&str>::new());
    }

    #[test]
    fn fewer_than_two_characters_or_odd_ones_give_nothing() {
        let scp = MasterScp::load(LIST);
        for typed in ["", " ", "W", " 1 ", "1A\nW1", "W1-", "日本"] {
            assert_eq!(scp.partial(typed, 10), Vec::<&str>::new(), "{typed:?}");
            assert_eq!(
                scp.partial_with(["W1AW"], typed, 10),
                Vec::<&str>::new(),
                "{typed:?}"
            );
        }
    }

    #[test]
    fn the_logs_own_calls_come_first_each_once() {
        let scp = MasterScp::load(LIST);
        let own = ["W1AW/P", "G4ABC", "w1aw", "W1AW", "KX1AW", "W1AW/P"];
        assert_eq!(
            scp.partial_with(own, "1aw", 6),
            ["W1AW/P", "w1aw", "KX1AW", "K1AW", "N1AW", "EA1AW"]
        );
        assert_eq!(scp.partial_with(own, "1AW", 2), ["W1AW/P", "w1aw"]);
        assert_eq!(scp.partial_with([], "1AW", 2), ["K1AW", "N1AW"]);
    }

    #[test]
    fn the_shipped_list_knows_w1aw() {
        let scp = MasterScp::shipped();
        assert!(scp.len() > 80_000, "{}", scp.len());
        assert_eq!(scp.partial("W1AW", 3), ["W1AW"]);
        assert_eq!(scp.partial("1aw", 3), ["K1AW", "N1AW", "W1AW"]);
    }
}
