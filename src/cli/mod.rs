//! The command line: one flattened clap group per concern (mode, recording,
//! source, filters, report, interactive view, trends) and one subcommand
//! (`export`), turned into one validated [`Settings`] by [`resolve`].
//!
//! Every option that the config file can also set is an `Option` here: an
//! option given on the command line wins over the file, the file over
//! restop's defaults. Every value error is a usage error (exit status 2).
//! New subcommands go into [`Command`]; [`command`] is the definition to
//! hand to anything that introspects the CLI (completions, man page).

mod export;
mod export_refusal;
mod filters;
mod fleet;
mod interactive;
mod mode;
mod report;
mod resolve;
mod source;
mod trends;

#[cfg(test)]
mod tests;

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

pub use crate::settings::values::{parse_qp_state, parse_resource_type, parse_sort_key};
pub use crate::settings::{Mode, Settings};
pub use export::{EXPORT_EXAMPLES, ExportArgs};
pub use export_refusal::check_export_options;
pub use filters::FilterArgs;
pub use fleet::FleetArgs;
pub use interactive::InteractiveArgs;
pub use mode::{ModeArgs, RecordingArgs};
pub use report::ReportArgs;
pub use resolve::resolve;
pub use source::SourceArgs;
pub use trends::TrendArgs;

pub use crate::settings::parse_duration;

const EXAMPLES: &str = "\
Examples:
  restop                          interactive view of this host
  restop --once                   one report on stdout, then exit
  restop --json | jq .devices     one JSON document (see docs/json.md)
  restop --demo                   explore restop on a simulated host
  restop --once --dev mlx5_0 --type qp,mr
  restop --once --state ERR       who holds QPs in the ERR state
  restop --once --sort mr_bytes --top 5
  restop --batch -n 3 -d 5s          a report every 5 seconds, three times
  restop --batch --json | jq .meta    JSON Lines: one document per line
  restop --record leak.rec            watch and record (docs/recording.md)
  restop --replay leak.rec            watch the recording again
  restop --config ./restop.toml       defaults from this file (docs/cli.md)
  restop export                   Prometheus metrics on 127.0.0.1:9879 (docs/exporter.md)

Exit status: 0 report shown, 1 nothing could be collected (or --dev named no
device), 2 usage error (or a bad config file).";

/// `top` for RDMA resources: who holds which QPs, CQs, MRs, PDs, CM IDs,
/// contexts and SRQs on which device, against the device's limits.
#[derive(Debug, Parser)]
#[command(
    name = "restop",
    version,
    long_version = crate::export::build_info::LONG_VERSION,
    about = "top for RDMA resources: QPs, CQs, MRs, PDs, CM IDs, contexts and SRQs per device and process",
    long_about = "top for RDMA resources.\n\n\
restop reads the kernel's RDMA resource tracking (what `rdma resource show` \
prints) over netlink, finds the processes that own each object through /proc, \
and shows per-device usage against limits, the top consumers, and the QPs in \
an error state.",
    after_help = "Run `restop --help` for details and examples.",
    after_long_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub mode: ModeArgs,

    #[command(flatten)]
    pub recording: RecordingArgs,

    #[command(flatten)]
    pub source: SourceArgs,

    #[command(flatten)]
    pub filters: FilterArgs,

    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub interactive: InteractiveArgs,

    #[command(flatten)]
    pub trends: TrendArgs,

    /// Read defaults from this config file.
    #[arg(
        long,
        value_name = "FILE",
        env = "RESTOP_CONFIG",
        global = true,
        help_heading = "Config file",
        long_help = "Read defaults (interval, sort, columns, thresholds, trend settings) \
                     from this TOML file instead of $XDG_CONFIG_HOME/restop/config.toml \
                     (~/.config/restop/config.toml). Options on the command line win over \
                     the file. A named file must exist; a bad value or an unknown key is an \
                     error naming its line. Format and example: docs/cli.md, \
                     assets/config.example.toml.\n\nExample: --config ./restop.toml"
    )]
    pub config: Option<PathBuf>,
}

/// Modes with options of their own.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Export metrics for Prometheus (HTTP /metrics or a textfile).
    #[command(
        long_about = "Export this host's RDMA resources as Prometheus metrics: served on \
                      http://127.0.0.1:9879/metrics (--listen), or written to a file for \
                      node_exporter's textfile collector (--textfile). Read-only. The \
                      source and trend options (--demo, -d, --timeout, --objects-every, \
                      --retention, ...) apply; -d defaults to 15s here. Metrics and \
                      deployment: docs/exporter.md."
    )]
    Export(ExportArgs),
    /// The whole fleet from Prometheus (or the exporters): hosts worst first.
    #[command(
        long_about = "Every host that a Prometheus server scrapes restop from (--prometheus), \
                      or a list of exporters scraped directly (--hosts, --hosts-file): hosts \
                      worst first with their usage, ERROR QPs, leak suspects and NIC health, \
                      and the cluster's top consumers. --once prints a report, --json one \
                      document. Set-up and queries: docs/fleet.md."
    )]
    Fleet(Box<FleetArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        long_about = "Print the completion script for SHELL on stdout, generated from \
                      restop's own option definitions. Example: restop completions bash > \
                      /etc/bash_completion.d/restop"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print restop's man pages (roff): restop(1), or restop-export(1) with `export`.
    #[command(
        long_about = "Print a man page in roff, generated from restop's own option \
                      definitions: restop(1), or the page of a subcommand. Example: restop \
                      man | man -l -"
    )]
    Man {
        /// The subcommand whose page to print (`export`, `fleet`).
        page: Option<String>,
    },
}

impl Command {
    /// The exporter's own options, when this is `restop export`.
    pub fn export_args(&self) -> Option<&ExportArgs> {
        match self {
            Command::Export(args) => Some(args),
            Command::Completions { .. } | Command::Man { .. } | Command::Fleet(_) => None,
        }
    }
}

/// The whole command definition, for parsing and for anything that
/// introspects the CLI (completions, man page).
pub fn command() -> clap::Command {
    Cli::command()
}
