//! The domain shared by the client and the server: ids, folders, contacts, activations,
//! callsign and reference parsing, who a callsign is (DXCC entity, super check partial), the
//! band plan and the error codes.

pub mod activation;
pub mod awards;
pub mod band;
pub mod cabrillo;
pub mod callsign;
pub mod confirm;
pub mod contact;
pub mod contest;
pub mod dxcc;
pub mod error;
pub mod fields;
pub mod filing;
pub mod folder;
pub mod ids;
pub mod key;
pub mod locator;
pub mod logbook;
pub mod mode;
pub mod needed;
pub mod once;
pub mod packed;
pub mod page;
pub mod program;
pub mod received;
pub mod registry;
pub mod report;
pub mod scp;
pub mod search;
pub mod seed;
pub mod station;
pub mod text;
pub mod time;

pub use activation::{ActivationInput, NewActivation};
pub use contact::{Contact, ContactInput, ContactPatch, NewContact};
pub use contest::{ContestInput, ContestLog, NewContest};
pub use error::{ApiError, ErrorBody, ErrorCode, RateLimitReason};
pub use fields::{Field, Fields, FieldsPatch};
pub use folder::{Folder, FolderType, NewMonthly};
pub use ids::IdKind;
pub use key::{ApiKey, Tier};
pub use logbook::{ExternalCopy, Logbook, Review};
pub use page::Page;
pub use program::Program;
pub use station::StationProfile;
pub use time::Timestamp;

use serde::{Deserialize, Serialize};

/// The identity record of GET /v1/whoami, with what svc's client learns beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Whoami {
    pub callsign: String,
    /// The plan's name; `unlimited` only where svc's service said so beside the record (the
    /// record itself says `paid`, see [`Whoami::published`]).
    pub plan: String,
    pub tier: Tier,
    pub native_qso_count: i64,
    /// The account's cap on native QSOs when its plan has one, as the service said in the
    /// `Svc-Qso-Cap` header: a server may be started with its own cap. `None` from a service
    /// that does not say (the published one: the free plan's 200) and for plans with no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qso_cap: Option<i64>,
}

impl Whoami {
    /// The record as published clients know it: `plan` is `free` or `paid` (an unlimited
    /// account has no cap, as a paid one), and nothing beside the four fields, whose schema
    /// admits no other.
    pub fn published(&self) -> Whoami {
        Whoami {
            plan: Plan::parse(&self.plan)
                .map_or_else(|| self.plan.clone(), |p| p.published().to_owned()),
            qso_cap: None,
            ..self.clone()
        }
    }

    /// Whether the account holds 90 % of its cap or more: agents are advised to warn from
    /// there (180 of the free plan's 200).
    pub fn near_cap(&self) -> bool {
        self.cap()
            .is_some_and(|cap| self.native_qso_count >= cap * 9 / 10)
    }

    /// The cap this account's creates stop at, if its plan has one.
    pub fn cap(&self) -> Option<i64> {
        Plan::parse(&self.plan).and_then(|plan| plan.cap(self.qso_cap, FREE_PLAN_CAP))
    }
}

/// The plan of an account: what its creates are limited by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// Capped at the server's `--free-plan-cap` native QSOs, or the account's own cap.
    #[default]
    Free,
    /// No cap; the daily and lifetime budgets apply.
    Paid,
    /// No cap and no budgets, for a club's own server; the request rates still apply.
    Unlimited,
}

impl Plan {
    pub const ALL: [Plan; 3] = [Plan::Free, Plan::Paid, Plan::Unlimited];

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Paid => "paid",
            Plan::Unlimited => "unlimited",
        }
    }

    pub fn parse(text: &str) -> Option<Plan> {
        Plan::ALL.into_iter().find(|p| p.as_str() == text)
    }

    /// The name published clients know: `free` or `paid`.
    pub fn published(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Paid | Plan::Unlimited => "paid",
        }
    }

    /// Whether the plan has a cap on native QSOs (`--cap` sets an account's own).
    pub fn capped(self) -> bool {
        self == Plan::Free
    }

    /// The cap on native QSOs: the account's own, else the server's; none when the plan has
    /// none.
    pub fn cap(self, own: Option<i64>, server: i64) -> Option<i64> {
        self.capped().then(|| own.unwrap_or(server))
    }

    /// Whether the daily and lifetime contact budgets apply.
    pub fn budgeted(self) -> bool {
        self != Plan::Unlimited
    }
}

/// The header beside GET /v1/whoami's record naming the account's plan, `unlimited`
/// included (the record says `paid` for it, the name published clients know).
pub const PLAN_HEADER: &str = "svc-plan";

/// The header beside GET /v1/whoami's record giving the account's cap on native QSOs, when its
/// plan has one.
pub const QSO_CAP_HEADER: &str = "svc-qso-cap";

/// The cap on native QSOs of the free plan.
pub const FREE_PLAN_CAP: i64 = 200;

#[cfg(test)]
mod tests {
    use super::*;

    fn me(plan: &str, count: i64, cap: Option<i64>) -> Whoami {
        Whoami {
            callsign: "W1AW".into(),
            plan: plan.into(),
            tier: Tier::Basic,
            native_qso_count: count,
            qso_cap: cap,
        }
    }

    #[test]
    fn each_plan_has_its_limits() {
        assert_eq!(Plan::Free.cap(None, 200), Some(200));
        assert_eq!(Plan::Free.cap(Some(5), 200), Some(5));
        assert_eq!(Plan::Paid.cap(Some(5), 200), None);
        assert_eq!(Plan::Unlimited.cap(None, 200), None);
        assert!(Plan::Paid.budgeted() && !Plan::Unlimited.budgeted());
        for plan in Plan::ALL {
            assert_eq!(Plan::parse(plan.as_str()), Some(plan));
        }
        assert_eq!(Plan::parse("gold"), None);
    }

    #[test]
    fn the_published_record_knows_two_plans_and_no_cap() {
        let published = me("unlimited", 7, None).published();
        assert_eq!(published.plan, "paid");
        assert_eq!(
            serde_json::to_value(me("free", 3, Some(3)).published()).unwrap(),
            serde_json::json!({"callsign": "W1AW", "plan": "free", "tier": "basic", "nativeQsoCount": 3})
        );
    }

    #[test]
    fn the_cap_is_the_one_said_else_the_free_plans() {
        assert_eq!(me("free", 0, None).cap(), Some(FREE_PLAN_CAP));
        assert_eq!(me("free", 0, Some(3)).cap(), Some(3));
        assert_eq!(me("paid", 0, None).cap(), None);
        assert!(!me("free", 179, None).near_cap());
        assert!(me("free", 180, None).near_cap());
        assert!(me("free", 9, Some(10)).near_cap());
        assert!(!me("unlimited", 10_000, None).near_cap());
    }
}
