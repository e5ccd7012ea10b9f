//! What `restop export` refuses, derived from the option groups: every
//! option of a group the exporter has no use for is a usage error next to
//! `export`, so an option added to such a group is refused without a list to
//! keep up to date.

use super::Cli;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory};

/// Groups whose options mean nothing to the exporter. The source and trend
/// groups apply to it (and are global, so they go after `export` too).
pub(super) const NOT_FOR_EXPORT: [&str; 5] =
    ["mode", "recording", "filters", "report", "interactive"];

/// The flags (`--once`, `--dev`, ...) of the options in those groups.
pub(super) fn refused_flags() -> Vec<(String, String)> {
    let cmd = Cli::command();
    let mut flags = Vec::new();
    for group in cmd.get_groups() {
        if !NOT_FOR_EXPORT.contains(&group.get_id().as_str()) {
            continue;
        }
        for id in group.get_args() {
            let Some(arg) = cmd.get_arguments().find(|a| a.get_id() == id) else {
                continue;
            };
            let flag = match (arg.get_long(), arg.get_short()) {
                (Some(long), _) => format!("--{long}"),
                (None, Some(short)) => format!("-{short}"),
                (None, None) => id.to_string(),
            };
            flags.push((id.to_string(), flag));
        }
    }
    flags
}

/// A usage error when an option of the other modes is given with `export`.
pub fn check_export_options(matches: &ArgMatches) -> Result<(), clap::Error> {
    if matches.subcommand_name() != Some("export") {
        return Ok(());
    }
    let given: Vec<String> = refused_flags()
        .into_iter()
        .filter(|(id, _)| matches.value_source(id) == Some(ValueSource::CommandLine))
        .map(|(_, flag)| flag)
        .collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(Cli::command().error(
        clap::error::ErrorKind::ArgumentConflict,
        format!(
            "{} cannot be used with export (see `restop export --help`)",
            given.join(", ")
        ),
    ))
}
