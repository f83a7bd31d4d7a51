//! The entry form in a contest log: the received exchange read by the contest's checks, the
//! exchange sent with the next serial number, the contest's own dupe check and what a call
//! would bring (`new mult`), the rate and the claimed score. Its state and its lines; the
//! form owns the exchange's input, this reads it. Pure: contacts and the time come in.

use ratatui::text::Line;

use crate::widgets::{Theme, Tone};
use svc_model::cabrillo::{received, whereabouts};
use svc_model::contest::{Check, Contest, ContestLog, Scored, SerialBlock, Tally};
use svc_model::dxcc::Dxcc;
use svc_model::fields::Field;
use svc_model::folder::FolderRole;
use svc_model::{Contact, ContactInput, Folder, Timestamp};

/// Ten minutes and an hour, in milliseconds: the rates a contester watches.
const TEN_MINUTES: i64 = 600_000;
const HOUR: i64 = 3_600_000;
/// Serial numbers a station asks for at a time, and how few left make it ask for the next
/// block: enough for a few minutes with the link down at a big station's rate.
pub const BLOCK: u32 = 25;
const LOW: u32 = 10;
/// How often the form's log is read again for the contacts other logbooks store in it, so
/// that their QSOs reach this one's dupe check within a couple of seconds.
const POLL_MS: i64 = 2_000;

/// The contest side of the entry form, for a contest log.
#[derive(Debug, Clone)]
pub struct ContestLine {
    pub contest: &'static Contest,
    pub log: ContestLog,
    /// The call the log is sent under.
    pub callsign: String,
    /// Whether the contest's exchange has a serial number.
    numbered: bool,
    /// The highest serial number the log's contacts sent.
    highest: u32,
    /// The serial numbers the service gave this station and it has not sent yet, in order:
    /// no other station sends them, so two logbooks on one log never send a number twice.
    blocks: std::collections::VecDeque<SerialBlock>,
    /// A block is asked for and not answered yet.
    pub asking: bool,
    /// When the log was last read again for other logbooks' contacts, and whether that read
    /// is not answered yet.
    polled_at: Option<Timestamp>,
    pub polling: bool,
    /// The log's tally, and the contacts it was counted from (their number and the last
    /// one's id), so that it is counted again only when they change.
    tally: Option<(Tally<'static>, (usize, Option<String>))>,
    /// What the call typed would bring: a dupe line, or its points and new multipliers.
    pub judged: Option<String>,
    /// Whether the call typed is a dupe by the contest's rule.
    pub dupe: bool,
    /// QSOs an hour over the last ten minutes and the last hour, and the claimed score.
    pub rates: (u64, u64),
    pub score: (u64, u64, u64),
}

impl ContestLine {
    /// The contest side of a form logging into `folder`, when it is a contest log of a
    /// contest this build knows.
    pub fn of(folder: &Folder) -> Option<ContestLine> {
        let Ok(FolderRole::Contest {
            contest,
            log,
            callsign,
        }) = folder.role()
        else {
            return None;
        };
        Some(ContestLine {
            callsign,
            numbered: contest.exchange.iter().any(|f| f.serial),
            highest: 0,
            blocks: Default::default(),
            asking: false,
            polled_at: None,
            polling: false,
            contest,
            log,
            tally: None,
            judged: None,
            dupe: false,
            rates: (0, 0),
            score: (0, 0, 0),
        })
    }

    /// What the exchange field shows while empty: an example of what to type, the report
    /// left out where it may be (`e.g. 14`, `e.g. 3A EMA`).
    pub fn hint(&self) -> String {
        let report_first = self
            .contest
            .exchange
            .first()
            .is_some_and(|f| f.check.contains(&Check::Rst));
        let words: Vec<&str> = self
            .contest
            .exchange
            .iter()
            .skip(usize::from(report_first))
            .map(|f| f.example.as_str())
            .collect();
        format!("e.g. {}", words.join(" "))
    }

    /// The received exchange as typed, read into its ADIF fields; the report may be left
    /// out, as contesters type it ([`Contest::read_typed`]).
    pub fn read(&self, typed: &str, mode: &str) -> Result<Vec<(&'static str, String)>, String> {
        self.contest.read_typed(typed, mode).map_err(|e| e.message)
    }

    /// Puts the contest's fields on a contact the form built: the received exchange into
    /// its fields, as `srxString` and the contest's `contestId`
    /// ([`svc_model::received::put_received`]), and the serial number sent as `stx`.
    pub fn fill(&self, request: &mut ContactInput, typed: &str) -> Result<(), String> {
        svc_model::received::put_received(self.contest, typed, request).map_err(|e| e.message)?;
        // A contact fixed after a refusal keeps the number it was sent with.
        if let Some(serial) = self.serial()
            && request.fields.get(Field::Stx).is_none()
        {
            request.fields.set(Field::Stx, Some(serial.to_string()));
        }
        Ok(())
    }

    /// Counts the log again from `contacts` (its contacts, any order) when they changed: the
    /// next serial number (one past the highest sent), the rates at `now` and the score.
    pub fn refresh(&mut self, contacts: &[&Contact], dxcc: Option<&Dxcc>, now: Timestamp) {
        let last = contacts.iter().map(|c| c.id.as_str()).max();
        if self
            .tally
            .as_ref()
            .is_some_and(|(_, (n, id))| *n == contacts.len() && id.as_deref() == last)
        {
            self.rate(contacts, now);
            return;
        }
        let seen = (contacts.len(), last.map(str::to_owned));
        self.count(contacts, dxcc, seen);
        self.rate(contacts, now);
    }

    /// QSOs an hour at `now`, over the last ten minutes and the last hour.
    fn rate(&mut self, contacts: &[&Contact], now: Timestamp) {
        let (mut ten, mut hour) = (0, 0);
        for c in contacts {
            let ago = now.millis() - c.time_on.millis();
            if (0..HOUR).contains(&ago) {
                hour += 1;
                if ago < TEN_MINUTES {
                    ten += 1;
                }
            }
        }
        self.rates = (ten * 6, hour);
    }

    fn count(&mut self, contacts: &[&Contact], dxcc: Option<&Dxcc>, seen: (usize, Option<String>)) {
        let own = dxcc
            .and_then(|d| d.resolve(&self.callsign))
            .map(svc_model::contest::Whereabouts::from);
        let mut ordered = contacts.to_vec();
        ordered.sort_by(|a, b| a.time_on.cmp(&b.time_on).then(a.id.cmp(&b.id)));
        let mut tally = Tally::new(self.contest, own);
        for c in &ordered {
            let got = received(self.contest, c);
            tally.add(&Scored {
                callsign: &c.callsign,
                band: &c.band,
                mode: &c.mode,
                received: &got,
                worked: whereabouts(c),
            });
        }
        if self.numbered {
            self.highest = ordered
                .iter()
                .filter_map(|c| c.fields.get(Field::Stx)?.parse::<u32>().ok())
                .max()
                .unwrap_or(0);
        }
        self.score = (tally.qsos(), tally.multipliers(), tally.score());
        self.tally = Some((tally, seen));
    }

    /// Judges the call as typed on `band` and `mode` with what of the exchange reads: a
    /// dupe by the contest's rule, or its points and the multipliers it would be the first of.
    pub fn judge(
        &mut self,
        call: &str,
        band: Option<&str>,
        mode: &str,
        typed: &str,
        worked: Option<svc_model::contest::Whereabouts>,
    ) {
        let call = call.trim();
        let (Some((tally, _)), Some(band), false) = (&self.tally, band, call.is_empty()) else {
            self.judged = None;
            self.dupe = false;
            return;
        };
        let got = self.read(typed, mode).unwrap_or_default();
        let brought = tally.judge(&Scored {
            callsign: call,
            band,
            mode,
            received: &got,
            worked,
        });
        self.dupe = brought.dupe;
        self.judged = Some(if brought.dupe {
            format!(
                "DUPE {} {band}: worked already in this contest; Enter logs it for no points",
                call.to_ascii_uppercase(),
            )
        } else if brought.new_mults.is_empty() {
            format!("{} points", brought.points)
        } else {
            format!(
                "{} points · new mult: {}",
                brought.points,
                brought.new_mults.join(", ")
            )
        });
    }

    /// Whether `call` on `band` and `mode` is a dupe by the contest's rule, for the partial
    /// list's marks: only the dupe key is read, not an exchange.
    pub fn is_dupe(&self, call: &str, band: Option<&str>, mode: &str) -> bool {
        let (Some((tally, _)), Some(band)) = (&self.tally, band) else {
            return false;
        };
        tally
            .judge(&Scored {
                callsign: call,
                band,
                mode,
                received: &[],
                worked: None,
            })
            .dupe
    }

    /// The serial number the next contact sends, when the contest has one: the next of this
    /// station's blocks, else (no block had from the service) one past the log's highest.
    pub fn serial(&self) -> Option<u32> {
        self.numbered.then(|| {
            self.blocks
                .front()
                .map_or(self.highest + 1, |block| block.first)
        })
    }

    /// Whether the station has no block from the service, and numbers on from the log.
    pub fn numbering_alone(&self) -> bool {
        self.numbered && self.blocks.is_empty()
    }

    /// Whether to ask the service for a block now: the contest has serial numbers, none is
    /// being asked for, and fewer than [`LOW`] are left.
    pub fn wants_block(&self) -> bool {
        let left: u32 = self.blocks.iter().map(|b| b.last + 1 - b.first).sum();
        self.numbered && !self.asking && left < LOW
    }

    /// Whether to read the log again at `now` for other logbooks' contacts: none is being
    /// read and the last was [`POLL_MS`] ago. Marks the read as asked.
    pub fn poll_due(&mut self, now: Timestamp) -> bool {
        let due = !self.polling
            && self
                .polled_at
                .is_none_or(|at| now.millis() - at.millis() >= POLL_MS);
        if due {
            self.polling = true;
            self.polled_at = Some(now);
        }
        due
    }

    /// A block the service gave this station.
    pub fn take_block(&mut self, block: SerialBlock) {
        self.asking = false;
        if block.first <= block.last {
            self.blocks.push_back(block);
        }
    }

    /// A contact of this log went with `stx`: its number is used.
    pub fn sent(&mut self, stx: Option<&str>) {
        let Some(n) = stx.and_then(|s| s.parse::<u32>().ok()) else {
            return;
        };
        self.highest = self.highest.max(n);
        if let Some(block) = self.blocks.front_mut()
            && block.first == n
        {
            block.first += 1;
            if block.first > block.last {
                self.blocks.pop_front();
            }
        }
    }

    /// The exchange the next contact sends, with its serial number and report.
    pub fn sending(&self, rst_sent: &str, mode: &str) -> String {
        let serial = self.serial().map(|s| s.to_string());
        let rst = (!rst_sent.trim().is_empty()).then_some(rst_sent.trim());
        self.contest
            .sent_exchange(&self.log.exchange, serial.as_deref(), rst, mode)
            .unwrap_or_default()
    }

    /// The status bar's part: the rates (QSOs an hour over the last ten minutes and the last
    /// hour) and the claimed score.
    pub fn status(&self) -> String {
        format!(
            "{}/h {}/h · {} pts",
            self.rates.0, self.rates.1, self.score.2
        )
    }

    /// The form's lines for the contest: the judgement of the call, then what is sent and
    /// where the log stands (its rates are the status bar's).
    pub fn lines(&self, rst_sent: &str, mode: &str, theme: Theme) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        if let Some(judged) = &self.judged {
            let tone = if self.dupe { Tone::Warning } else { Tone::Info };
            lines.push(Line::styled(judged.clone(), theme.tone(tone)));
        }
        // A contest without multipliers (Field Day) says none rather than 0.
        let mults = if self.contest.multipliers.is_empty() {
            String::new()
        } else {
            format!(" · {} mults", self.score.1)
        };
        lines.push(Line::styled(
            format!(
                "{} · sending {} · {} QSOs{mults} · score {}",
                self.contest.id,
                self.sending(rst_sent, mode),
                self.score.0,
                self.score.2,
            ),
            theme.dim(),
        ));
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_model::FolderType;

    fn log(contest: &str, exchange: &str) -> ContestLine {
        let folder: Folder = serde_json::from_value(serde_json::json!({
            "id": "fld_aaaaaaaaaaaaaaaa", "name": "W1AW log", "type": "contest",
            "parentId": "fld_bbbbbbbbbbbbbbbb", "callsign": "W1AW",
            "startTime": "2026-11-28T00:00:00Z", "contestId": contest, "exchange": exchange,
            "contactCount": 0, "createdAt": "2026-11-28T00:00:00Z",
        }))
        .unwrap();
        assert_eq!(folder.folder_type, FolderType::Contest);
        ContestLine::of(&folder).unwrap()
    }

    fn stored(id: &str, call: &str, band: &str, at: &str, fields: &[(Field, &str)]) -> Contact {
        let mut c: Contact = serde_json::from_value(serde_json::json!({
            "id": id, "folderId": "fld_aaaaaaaaaaaaaaaa", "callsign": call, "frequency": 14.025,
            "band": band, "mode": "CW", "timeOn": at, "createdAt": at,
        }))
        .unwrap();
        for (field, value) in fields {
            c.fields.set(*field, Some((*value).to_owned()));
        }
        c
    }

    #[test]
    fn the_log_is_read_again_every_two_seconds_one_read_at_a_time() {
        let mut fd = log("ARRL-FD", "2A CT");
        let at = |ms: i64| Timestamp(1_800_000_000_000 + ms);
        assert!(fd.poll_due(at(0)));
        assert!(
            !fd.poll_due(at(2_500)),
            "the first read is not answered yet"
        );
        fd.polling = false;
        assert!(!fd.poll_due(at(1_999)));
        assert!(fd.poll_due(at(2_000)));
    }

    #[test]
    fn the_report_may_be_left_out_of_the_exchange_typed() {
        let ww = log("CQ-WW-CW", "5");
        assert_eq!(
            ww.read("14", "CW").unwrap(),
            vec![("RST_RCVD", "599".to_owned()), ("CQZ", "14".to_owned())]
        );
        assert_eq!(ww.read("579 14", "CW").unwrap()[0].1, "579");
        assert_eq!(ww.read("14", "SSB").unwrap()[0].1, "59");
        assert!(ww.read("41", "CW").unwrap_err().contains("CQ zone"));
        assert_eq!(ww.hint(), "e.g. 5");
        let fd = log("ARRL-FD", "2A CT");
        assert_eq!(fd.hint(), "e.g. 2A CT");
        assert!(fd.read("3A", "CW").unwrap_err().contains("class, section"));
    }

    #[test]
    fn a_contact_takes_the_exchange_the_serial_and_the_contest() {
        let mut ss = log("ARRL-SS-CW", "A 72 CT");
        let now = Timestamp::parse("t", "2026-11-28T01:00:00Z").unwrap();
        let before = [
            stored(
                "qso_a",
                "K9ZO",
                "20m",
                "2026-11-28T00:10:00Z",
                &[(Field::Stx, "1")],
            ),
            stored(
                "qso_b",
                "N6XX",
                "40m",
                "2026-11-28T00:55:00Z",
                &[(Field::Stx, "2"), (Field::ArrlSect, "SCV")],
            ),
        ];
        let refs: Vec<&Contact> = before.iter().collect();
        ss.refresh(&refs, None, now);
        assert_eq!(
            ss.serial(),
            Some(3),
            "one past the highest sent, with no block"
        );
        assert!(ss.numbering_alone() && ss.wants_block());
        assert_eq!(ss.rates, (6, 2));
        let mut request = ContactInput {
            callsign: "W0AAA".into(),
            mode: "CW".into(),
            ..ContactInput::default()
        };
        ss.fill(&mut request, "12 b 69 il").unwrap();
        assert_eq!(request.fields.get(Field::Srx), Some("12"));
        assert_eq!(request.fields.get(Field::Precedence), Some("B"));
        assert_eq!(request.fields.get(Field::Check), Some("69"));
        assert_eq!(request.fields.get(Field::ArrlSect), Some("IL"));
        assert_eq!(request.fields.get(Field::SrxString), Some("12 B 69 IL"));
        assert_eq!(request.fields.get(Field::Stx), Some("3"));
        assert_eq!(request.fields.get(Field::ContestId), Some("ARRL-SS-CW"));
        assert_eq!(ss.sending("", "CW"), "3 A 72 CT");
        // A block from the service: its numbers, in order, then the next block's.
        ss.asking = true;
        ss.take_block(SerialBlock {
            first: 41,
            last: 42,
        });
        ss.take_block(SerialBlock {
            first: 90,
            last: 99,
        });
        assert!(!ss.wants_block(), "12 left");
        assert_eq!(ss.serial(), Some(41));
        ss.sent(Some("41"));
        ss.sent(Some("42"));
        assert_eq!(ss.serial(), Some(90));
        ss.sent(Some("90"));
        assert!(ss.wants_block(), "9 left");
        // Another station's numbers in the log change nothing of this station's.
        ss.sent(Some("57"));
        assert_eq!(ss.serial(), Some(91));
        // Sweepstakes' dupes are once in the contest: K9ZO on 40 m is one; a new section is
        // a new mult.
        ss.judge("k9zo", Some("40m"), "CW", "", None);
        assert!(ss.dupe, "{:?}", ss.judged);
        ss.judge("W0AAA", Some("20m"), "CW", "12 B 69 IL", None);
        assert!(!ss.dupe);
        assert_eq!(
            ss.judged.as_deref(),
            Some("2 points · new mult: section IL")
        );
        ss.judge("W0AAA", Some("20m"), "CW", "12 B 69 SCV", None);
        assert_eq!(ss.judged.as_deref(), Some("2 points"));
    }
}
