//! The flags of the common declared fields (model::fields: `--grid`, `--tx-pwr`, …), made from
//! the field table so that `contacts create` and `contacts edit` take a new common field
//! without a line here. Each value is checked as the service checks it, before anything is
//! sent.

use clap::{Arg, ArgMatches, Command, FromArgMatches};

use super::input;
use svc_model::fields::{Def, FIELDS, Field};
use svc_model::seed::{Seed, optional_given};

fn common() -> impl Iterator<Item = &'static Def> {
    FIELDS.iter().filter(|d| d.common)
}

/// Every name `--clear` takes: the seed's optional fields and the common declared ones.
pub fn clearable() -> Vec<&'static str> {
    optional_given()
        .map(|f| f.flag)
        .chain(common().map(|d| d.flag))
        .collect()
}

/// The seed's optional fields given as flags, trimmed; the service checks them further.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SeedFlags(pub Vec<(Seed, String)>);

impl SeedFlags {
    pub fn get(&self, seed: &Seed) -> Option<&str> {
        self.0
            .iter()
            .find(|(s, _)| s == seed)
            .map(|(_, v)| v.as_str())
    }
}

impl FromArgMatches for SeedFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(SeedFlags(
            optional_given()
                .filter_map(|seed| {
                    matches
                        .get_one::<String>(seed.flag)
                        .map(|v| (*seed, v.clone()))
                })
                .collect(),
        ))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for SeedFlags {
    fn augment_args(cmd: Command) -> Command {
        optional_given().fold(cmd, |cmd, seed| {
            cmd.arg(
                Arg::new(seed.flag)
                    .long(seed.flag)
                    .value_name(seed.placeholder)
                    .help(seed.help)
                    // A report of -12 is a value, not a flag.
                    .allow_negative_numbers(true)
                    .value_parser(input::text),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The declared fields given as flags, in their stored form.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FieldFlags(pub Vec<(Field, String)>);

impl FieldFlags {
    pub fn get(&self, field: Field) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, v)| v.as_str())
    }
}

impl FromArgMatches for FieldFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(FieldFlags(
            common()
                .filter_map(|def| {
                    matches
                        .get_one::<String>(def.flag)
                        .map(|v| (def.field, v.clone()))
                })
                .collect(),
        ))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for FieldFlags {
    fn augment_args(cmd: Command) -> Command {
        common().fold(cmd, |cmd, def| {
            let numeric = matches!(
                def.kind,
                svc_model::fields::Kind::Integer(..) | svc_model::fields::Kind::Number(..)
            );
            cmd.arg(
                Arg::new(def.flag)
                    .long(def.flag)
                    .value_name(value_name(def))
                    .help(def.help)
                    .allow_negative_numbers(numeric)
                    .value_parser(move |text: &str| -> Result<String, String> {
                        match def.check(text) {
                            Ok(Some(value)) => Ok(value),
                            Ok(None) => Err(format!(
                                "--{} is empty; give a value, or leave the flag out",
                                def.flag
                            )),
                            Err(e) => Err(e.message),
                        }
                    }),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The placeholder of a field's flag in help and docs: what kind of value it takes.
pub fn value_name(def: &Def) -> &'static str {
    use svc_model::fields::Kind;
    match def.kind {
        Kind::Grid => "LOCATOR",
        Kind::Call => "CALL",
        Kind::Integer(..) | Kind::Number(..) => "N",
        Kind::Date => "YYYY-MM-DD",
        Kind::Instant => "ISO",
        Kind::Band => "BAND",
        Kind::Choice(_) => "CODE",
        Kind::Text(_) | Kind::Lines(_) | Kind::Upper(_) => "TEXT",
    }
}
