//! The lists a contest exchange is checked against.

/// ARRL and RAC sections as the 2024 list names them: the 71 of the USA, then Canada's.
pub const SECTIONS: &[&str] = &[
    // 1
    "CT", "EMA", "ME", "NH", "RI", "VT", "WMA", //
    // 2
    "ENY", "NLI", "NNJ", "NNY", "SNJ", "WNY", //
    // 3
    "DE", "EPA", "MDC", "WPA", //
    // 4
    "AL", "GA", "KY", "NC", "NFL", "PR", "SC", "SFL", "TN", "VA", "VI", "WCF", //
    // 5
    "AR", "LA", "MS", "NM", "NTX", "OK", "STX", "WTX", //
    // 6
    "EB", "LAX", "ORG", "PAC", "SB", "SCV", "SDG", "SF", "SJV", "SV", //
    // 7
    "AK", "AZ", "EWA", "ID", "MT", "NV", "OR", "UT", "WWA", "WY", //
    // 8
    "MI", "OH", "WV", //
    // 9
    "IL", "IN", "WI", //
    // 0
    "CO", "IA", "KS", "MN", "MO", "ND", "NE", "SD", //
    // Canada
    "AB", "BC", "GH", "MB", "NB", "NL", "NS", "ONE", "ONN", "ONS", "PE", "QC", "SK", "TER",
];

/// Canadian sections of earlier years, still in logs and in the software of other stations:
/// the Maritimes before NB, NS and PE, the Greater Toronto Area before GH, the Northern
/// Territories before TER.
pub const FORMER_SECTIONS: &[&str] = &["MAR", "GTA", "NT"];

/// The 50 states and DC.
pub const STATES: &[&str] = &[
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY",
];

/// Canada's provinces and territories.
pub const PROVINCES: &[&str] = &[
    "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT",
];

/// Sweepstakes' precedences: QRP, low power, high power, unlimited, multi-op, school.
pub const PRECEDENCES: &[&str] = &["Q", "A", "B", "U", "M", "S"];
