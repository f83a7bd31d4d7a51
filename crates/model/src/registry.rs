//! The lists the awards and the contests count against: ADIF's DXCC entities (current and
//! deleted) and the 50 states of WAS. A module of its own, below both, since the awards read
//! contacts and the contact rules read the contests.

use std::sync::LazyLock;

/// ADIF 3.1.6's "DXCC Entity Code" enumeration, see `data/dxcc_entities.LICENSE`: one line an
/// entity, `code,name,Y|N` (deleted), the name quoted where it holds a comma.
static SHIPPED: &str = include_str!("../data/dxcc_entities.csv");

/// One entity of ADIF's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedEntity {
    pub code: u16,
    pub name: &'static str,
    /// ARRL deleted it: contacts with it count only on the deleted list, never in a total.
    pub deleted: bool,
}

/// The entities by code; the shipped file is fixed at build time and a unit test reads it
/// whole, so a line it could not read would fail there.
static ENTITIES: LazyLock<Vec<ListedEntity>> = LazyLock::new(|| {
    SHIPPED
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (code, rest) = line.split_once(',')?;
            let (name, deleted) = rest.rsplit_once(',')?;
            Some(ListedEntity {
                code: code.parse().ok()?,
                name: name.trim_matches('"'),
                deleted: deleted == "Y",
            })
        })
        .collect()
});

/// Every entity of the list, current and deleted, by code.
pub fn entities() -> &'static [ListedEntity] {
    &ENTITIES
}

/// The entity of `code`; `None` for 0 (no entity) and for a code the list does not have.
pub fn entity(code: u16) -> Option<ListedEntity> {
    let all = entities();
    all.binary_search_by_key(&code, |e| e.code)
        .ok()
        .map(|i| all[i])
}

/// How many current entities there are: the most a DXCC total can reach.
pub fn current_entities() -> usize {
    entities().iter().filter(|e| !e.deleted).count()
}

/// The 50 states of ARRL's WAS, by USPS code.
pub const STATES: [(&str, &str); 50] = [
    ("AK", "Alaska"),
    ("AL", "Alabama"),
    ("AR", "Arkansas"),
    ("AZ", "Arizona"),
    ("CA", "California"),
    ("CO", "Colorado"),
    ("CT", "Connecticut"),
    ("DE", "Delaware"),
    ("FL", "Florida"),
    ("GA", "Georgia"),
    ("HI", "Hawaii"),
    ("IA", "Iowa"),
    ("ID", "Idaho"),
    ("IL", "Illinois"),
    ("IN", "Indiana"),
    ("KS", "Kansas"),
    ("KY", "Kentucky"),
    ("LA", "Louisiana"),
    ("MA", "Massachusetts"),
    ("MD", "Maryland"),
    ("ME", "Maine"),
    ("MI", "Michigan"),
    ("MN", "Minnesota"),
    ("MO", "Missouri"),
    ("MS", "Mississippi"),
    ("MT", "Montana"),
    ("NC", "North Carolina"),
    ("ND", "North Dakota"),
    ("NE", "Nebraska"),
    ("NH", "New Hampshire"),
    ("NJ", "New Jersey"),
    ("NM", "New Mexico"),
    ("NV", "Nevada"),
    ("NY", "New York"),
    ("OH", "Ohio"),
    ("OK", "Oklahoma"),
    ("OR", "Oregon"),
    ("PA", "Pennsylvania"),
    ("RI", "Rhode Island"),
    ("SC", "South Carolina"),
    ("SD", "South Dakota"),
    ("TN", "Tennessee"),
    ("TX", "Texas"),
    ("UT", "Utah"),
    ("VA", "Virginia"),
    ("VT", "Vermont"),
    ("WA", "Washington"),
    ("WI", "Wisconsin"),
    ("WV", "West Virginia"),
    ("WY", "Wyoming"),
];

/// The WAS state of a `state` value: one of the 50, with the District of Columbia counted as
/// Maryland, as ARRL counts it.
pub fn state(code: &str) -> Option<(&'static str, &'static str)> {
    let code = code.trim().to_ascii_uppercase();
    let code = if code == "DC" { "MD" } else { code.as_str() };
    STATES
        .binary_search_by_key(&code, |(c, _)| c)
        .ok()
        .map(|i| STATES[i])
}
