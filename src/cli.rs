//! The command line: options, their help, and the parsers that turn text into
//! typed values (durations, resource types, QP states, sort keys).
//!
//! Every value error is reported by clap as a usage error (exit status 2).

use crate::export::ExportArgs;
use crate::model::consumers::{SortDirection, SortKey};
use crate::model::filter::Filter;
use crate::model::history::{AlertThresholds, HistoryConfig};
use crate::model::{QpState, ResourceType, Thresholds};
use clap::{Parser, Subcommand};
use std::time::Duration;

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
  restop export                   Prometheus metrics on 127.0.0.1:9879 (docs/exporter.md)

Exit status: 0 report shown, 1 nothing could be collected (or --dev named no
device), 2 usage error.";

/// `top` for RDMA resources: who holds which QPs, CQs, MRs, PDs, CM IDs,
/// contexts and SRQs on which device, against the device's limits.
#[derive(Debug, Parser)]
#[command(
    name = "restop",
    version,
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

    /// Print one human-readable report and exit.
    #[arg(
        long,
        help_heading = "Mode",
        long_help = "Print one human-readable report (80 columns) and exit: host header, \
                     devices with usage against limits, the top consumers, and the QPs in \
                     ERR/SQE.\n\nExample: restop --once"
    )]
    pub once: bool,

    /// Print one JSON document and exit (implies --once); JSON Lines with --batch.
    #[arg(
        long,
        help_heading = "Mode",
        long_help = "Print one JSON document and exit (implies --once). The schema is \
                     versioned and described in docs/json.md. With --batch: one compact \
                     document per line, every interval.\n\n\
                     Example: restop --json | jq '.processes[0]'"
    )]
    pub json: bool,

    /// Print a report every interval, like `top -b`.
    #[arg(
        long,
        help_heading = "Mode",
        long_help = "Print a report every interval (-d) until stopped or -n reports were \
                     printed, like `top -b`. Each report is the --once report under a \
                     `=== restop tick N: <time> ===` line; with --json, one compact JSON \
                     document per line (JSON Lines) with trend fields. Output is flushed \
                     after every report; a closed pipe or SIGINT/SIGTERM ends it cleanly \
                     (status 0). With --replay the recording is printed as fast as it is \
                     read.\n\n\
                     Examples: restop --batch -n 3 -d 5s   restop --batch --json | head -1"
    )]
    pub batch: bool,

    /// With --batch: stop after N reports.
    #[arg(
        short = 'n',
        long = "iterations",
        value_name = "N",
        requires = "batch",
        value_parser = clap::value_parser!(u64).range(1..),
        help_heading = "Mode",
        long_help = "With --batch: stop after N reports (default: until stopped, or until \
                     the end of a replay).\n\nExample: restop --batch -n 10 -d 1s"
    )]
    pub iterations: Option<u64>,

    /// Also write every snapshot to FILE (see docs/recording.md).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "replay",
        help_heading = "Recording",
        long_help = "Write every snapshot collected to FILE while the interactive view or \
                     --batch runs (--once and --json record their one snapshot): compact \
                     (about 1.5 KiB per snapshot of the demo host), append-only, readable \
                     after a crash. An existing recording is continued; a file that is \
                     not a restop recording is refused. A failed write (disk full) is \
                     shown as a warning and retried; the session goes on. Format: \
                     docs/recording.md.\n\nExample: restop --record /var/tmp/rdma.rec"
    )]
    pub record: Option<std::path::PathBuf>,

    /// Show a recording made with --record instead of this host.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "demo",
        help_heading = "Recording",
        long_help = "Show the snapshots of a recording made with --record instead of this \
                     host, marked REPLAY. The interactive view plays it at its recorded \
                     pace with pause (Space), step (, .), speed ([ ]) and seek ({ } ^ $); \
                     --once and --json show its first snapshot; --batch prints every \
                     snapshot as fast as it is read.\n\n\
                     Examples: restop --replay rdma.rec   restop --replay rdma.rec --batch --json"
    )]
    pub replay: Option<std::path::PathBuf>,

    /// Show a simulated host instead of this one.
    #[arg(
        long,
        help_heading = "Source",
        global = true,
        long_help = "Show a simulated host instead of this one: devices, processes and \
                     failing QPs that evolve over time. Every view marks the data as \
                     simulated. Useful to explore restop where there is no RDMA hardware.\n\n\
                     Example: restop --demo --once"
    )]
    pub demo: bool,

    /// Seed of the simulated host (with --demo).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        requires = "demo",
        help_heading = "Source",
        global = true,
        long_help = "Seed of the simulated host (only with --demo): the same seed gives \
                     the same host and the same story.\n\nExample: restop --demo --seed 7"
    )]
    pub seed: u64,

    /// Time between refreshes (500ms, 2s, 1.5, 1m).
    #[arg(
        short = 'd',
        long,
        value_name = "DURATION",
        default_value = "2s",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Source",
        global = true,
        long_help = "Time between refreshes of the interactive view and between --batch \
                     reports; with --demo, also how far the simulated host moves per \
                     refresh. A number with a unit \
                     (ms, s, m, h); a bare number is seconds. Must be greater than zero.\n\n\
                     Examples: -d 500ms, --delay 2s, -d 1.5, -d 1m"
    )]
    pub delay: Duration,

    /// Longest wait for one kernel reply.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5s",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Source",
        global = true,
        long_help = "Longest wait for one netlink reply from the kernel before giving up \
                     on that request. Same format as --delay.\n\nExample: --timeout 10s"
    )]
    pub timeout: Duration,

    /// Minimum time between object dumps.
    #[arg(
        long = "objects-every",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Source",
        global = true,
        long_help = "Minimum time between the per-object dumps (QPs, MRs, ... with their \
                     owners) of the live host; device counts are still read at every \
                     refresh. Object dumps are costly on big hosts (mlx5 queries firmware \
                     once per QP), so restop also spaces them out by itself when they are \
                     slow, and says so. Default: every refresh. Same format as --delay.\n\n\
                     Example: --objects-every 30s"
    )]
    pub objects_every: Option<Duration>,

    /// Only this RDMA device.
    #[arg(
        long = "dev",
        value_name = "NAME",
        help_heading = "Filters",
        long_help = "Only this RDMA device (as `rdma dev` names it): its usage, the \
                     objects consumers hold on it, its ERROR QPs. An unknown name gives \
                     a warning listing the devices that exist, and exit status 1.\n\n\
                     Example: --dev mlx5_0"
    )]
    pub device: Option<String>,

    /// Only this process (a thread id selects its process).
    #[arg(
        long,
        value_name = "PID",
        help_heading = "Filters",
        long_help = "Only this process: its consumer row and its ERROR QPs. The id of a \
                     thread that created objects selects its process. Kernel owners and \
                     unattributed objects belong to no process and are left out.\n\n\
                     Example: --pid 4242"
    )]
    pub pid: Option<u32>,

    /// Only these resource types: qp,cq,mr,pd,cm_id,ctx,srq.
    #[arg(
        long = "type",
        value_name = "TYPE",
        value_delimiter = ',',
        value_parser = parse_resource_type,
        help_heading = "Filters",
        long_help = "Only these resource types: qp, cq, mr, pd, cm_id, ctx, srq. Repeat \
                     the option or separate types with commas. The report shows only \
                     their columns and drops consumers that hold none of them; --json \
                     keeps every count (stable shape) and drops those consumers too.\n\n\
                     Examples: --type qp,mr   --type qp --type cq"
    )]
    pub types: Vec<ResourceType>,

    /// Only QPs in this state, and who holds them.
    #[arg(
        long,
        value_name = "STATE",
        value_parser = parse_qp_state,
        help_heading = "Filters",
        long_help = "Only consumers holding QPs in this state, and only ERROR QPs in it. \
                     One of RESET, INIT, RTR, RTS, SQD, SQE, ERR (any case).\n\n\
                     Example: --state err"
    )]
    pub state: Option<QpState>,

    /// Sort the consumers table by this column.
    #[arg(
        long,
        value_name = "KEY",
        default_value = "qp",
        value_parser = parse_sort_key,
        help_heading = "Output",
        long_help = "Column the consumers table is sorted by: a type (qp, cq, mr, pd, \
                     cm_id, ctx, srq), mr_bytes, err (QPs in ERR/SQE) — largest first — \
                     or pid, name, user, container — in ascending order. --json always \
                     lists processes by QP count.\n\nExample: --sort mr_bytes"
    )]
    pub sort: SortKey,

    /// Rows of the consumers and ERROR QP tables in --once (0 = all).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20,
        help_heading = "Output",
        long_help = "How many rows of the consumers table and of the ERROR QP list \
                     --once prints (0 = all). The rest is summarised as \
                     \"… N more\"; totals always cover every row. --json lists everything.\n\n\
                     Example: --top 5"
    )]
    pub top: usize,

    /// Do not read device limits through libibverbs.
    #[arg(
        long = "no-verbs",
        help_heading = "Source",
        long_help = "Do not open devices through libibverbs to read their limits (max_qp, \
                     max_mr, ...) when the kernel's summary does not carry them. restop then \
                     shows a maximum only where the kernel reports one (kernels from 2026 \
                     on); elsewhere counts are shown without a bar. See docs/limits.md.\n\n\
                     Example: restop --no-verbs"
    )]
    pub no_verbs: bool,

    /// Usage (percent of the limit) at which a resource is flagged as filling up.
    #[arg(
        long = "warn",
        value_name = "PCT",
        default_value_t = 80.0,
        help_heading = "Output",
        long_help = "Usage, in percent of a device's (or cgroup quota's) limit, from which a \
                     resource is coloured as a warning and listed as a `limit` warning in \
                     --once and --json. Must be greater than 0 and below --crit.\n\n\
                     Example: --warn 70"
    )]
    pub warn: f64,

    /// Usage (percent of the limit) at which a resource is critical.
    #[arg(
        long = "crit",
        value_name = "PCT",
        default_value_t = 95.0,
        help_heading = "Output",
        long_help = "Usage, in percent of the limit, from which a resource is critical \
                     (red, and `critical` in its `limit` warning). At most 100 and above \
                     --warn.\n\nExample: --warn 70 --crit 90"
    )]
    pub crit: f64,

    /// Do not capture the mouse in the interactive view.
    #[arg(
        long = "no-mouse",
        help_heading = "Interactive view",
        long_help = "Leave the mouse to the terminal (text selection, scrollback) instead of \
                     using it for scrolling, selecting rows and sorting by a click on a \
                     column header.\n\nExample: restop --no-mouse"
    )]
    pub no_mouse: bool,

    /// No colours in the interactive view.
    #[arg(
        long = "no-color",
        help_heading = "Interactive view",
        long_help = "Draw without colours (state is still shown by text and markers). \
                     Setting the NO_COLOR environment variable to anything non-empty does \
                     the same.\n\nExample: restop --no-color"
    )]
    pub no_color: bool,

    /// How far back trends look (history kept per process and device).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "10m",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Trends",
        long_help = "How much history restop keeps for trends, sparklines and ERROR-QP \
                     ages, per process and device, in the interactive view and in \
                     --batch. Memory stays bounded however long restop runs: at most 600 \
                     points per series and 512 tracked owners. Same format as --delay. \
                     See docs/leaks.md.\n\nExample: --retention 30m"
    )]
    pub retention: Duration,

    /// Span of growth rates and leak verdicts.
    #[arg(
        long = "trend-window",
        value_name = "DURATION",
        default_value = "5m",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Trends",
        long_help = "The span growth rates and leak-suspect verdicts look at (at most \
                     --retention). A count that kept rising over it is a leak suspect; \
                     a verdict needs a minute of history (the whole window when it \
                     is shorter). Same format as --delay. See docs/leaks.md.\n\nExample: --trend-window 15m"
    )]
    pub trend_window: Duration,

    /// QPs in ERR/SQE longer than this are alerts.
    #[arg(
        long = "err-linger",
        value_name = "DURATION",
        default_value = "60s",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        help_heading = "Trends",
        long_help = "A QP in ERR or SQE for at least this long is lingering: an \
                     `error_qp_lingering` alert (alerts panel, `trends.warnings` in \
                     --batch --json) and a red age in the ERROR-QP pane. Same format as \
                     --delay.\n\nExample: --err-linger 5m"
    )]
    pub err_linger: Duration,
}

/// Modes with options of their own.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Export metrics for Prometheus (HTTP /metrics or a textfile).
    #[command(
        long_about = "Export this host's RDMA resources as Prometheus metrics: served on \
                      http://127.0.0.1:9879/metrics (--listen), or written to a file for \
                      node_exporter's textfile collector (--textfile). Read-only. The \
                      source options (--demo, -d, --timeout, --objects-every) apply; -d \
                      defaults to 15s here. Metrics and deployment: docs/exporter.md."
    )]
    Export(ExportArgs),
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
        /// The subcommand whose page to print (`export`).
        page: Option<String>,
    },
}

/// Options of the report and interactive modes, which mean nothing to
/// `restop export` (the source options are global and apply to it).
const NOT_FOR_EXPORT: [(&str, &str); 14] = [
    ("once", "--once"),
    ("json", "--json"),
    ("batch", "--batch"),
    ("iterations", "--iterations"),
    ("record", "--record"),
    ("replay", "--replay"),
    ("device", "--dev"),
    ("pid", "--pid"),
    ("types", "--type"),
    ("state", "--state"),
    ("sort", "--sort"),
    ("top", "--top"),
    ("no_mouse", "--no-mouse"),
    ("no_color", "--no-color"),
];

/// A usage error when an option of the other modes is given with `export`
/// (clap alone would also refuse the global source options there).
pub fn check_export_options(matches: &clap::ArgMatches) -> Result<(), clap::Error> {
    if matches.subcommand_name() != Some("export") {
        return Ok(());
    }
    let given: Vec<&str> = NOT_FOR_EXPORT
        .iter()
        .filter(|(id, _)| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .map(|(_, flag)| *flag)
        .collect();
    if given.is_empty() {
        return Ok(());
    }
    use clap::CommandFactory;
    Err(Cli::command().error(
        clap::error::ErrorKind::ArgumentConflict,
        format!(
            "{} cannot be used with export (see `restop export --help`)",
            given.join(", ")
        ),
    ))
}

/// What restop does once the options are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Interactive,
    Once,
    Json,
    /// `--batch`: text reports every interval.
    Batch,
    /// `--batch --json`: JSON Lines.
    BatchJson,
    Export,
}

impl Cli {
    pub fn mode(&self) -> Mode {
        if matches!(self.command, Some(Command::Export(_))) {
            Mode::Export
        } else if self.batch {
            if self.json {
                Mode::BatchJson
            } else {
                Mode::Batch
            }
        } else if self.json {
            Mode::Json
        } else if self.once {
            Mode::Once
        } else {
            Mode::Interactive
        }
    }

    /// The filters every mode shares.
    /// History, trend window and alert threshold from `--retention`,
    /// `--trend-window` and `--err-linger`.
    pub fn history_config(&self) -> HistoryConfig {
        HistoryConfig {
            retention: self.retention,
            window: self.trend_window,
            alerts: AlertThresholds {
                error_qp_linger: self.err_linger,
            },
            ..HistoryConfig::default()
        }
    }

    pub fn filter(&self) -> Filter {
        let mut types = Vec::new();
        for t in &self.types {
            if !types.contains(t) {
                types.push(*t);
            }
        }
        Filter {
            device: self.device.clone(),
            pid: self.pid,
            types,
            state: self.state,
            text: None,
        }
    }

    /// `--warn`/`--crit` as thresholds, or why they do not make sense together.
    pub fn thresholds(&self) -> Result<Thresholds, String> {
        Thresholds::from_percent(self.warn, self.crit)
    }

    /// Names and counts read best largest first; identities read best in order.
    pub fn sort_direction(&self) -> SortDirection {
        default_direction(self.sort)
    }
}

/// The natural direction of a sort key.
pub fn default_direction(key: SortKey) -> SortDirection {
    match key {
        SortKey::Pid | SortKey::Name | SortKey::User | SortKey::Container | SortKey::Pod => {
            SortDirection::Ascending
        }
        SortKey::Count(_) | SortKey::MrBytes | SortKey::ErrQps => SortDirection::Descending,
    }
}

const DURATION_FORMS: &str = "e.g. 500ms, 2s, 1.5 (seconds), 1m";

/// Parses `500ms`, `2s`, `1.5` (seconds), `1m`, `1h`; must be greater than zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let invalid =
        || format!("invalid duration {text:?}: expected a number and a unit, {DURATION_FORMS}");
    if number.is_empty() {
        if trimmed.starts_with('-') {
            return Err(format!(
                "invalid duration {text:?}: must be greater than zero ({DURATION_FORMS})"
            ));
        }
        return Err(invalid());
    }
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let seconds_per_unit = match unit.trim() {
        "" | "s" | "sec" | "secs" => 1.0,
        "ms" => 0.001,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(invalid()),
    };
    let seconds = value * seconds_per_unit;
    if seconds <= 0.0 {
        return Err(format!(
            "invalid duration {text:?}: must be greater than zero ({DURATION_FORMS})"
        ));
    }
    // Below a millisecond the kernel cannot even answer; above a day is a typo.
    if seconds < 0.001 {
        return Err(format!(
            "invalid duration {text:?}: must be at least 1ms ({DURATION_FORMS})"
        ));
    }
    if seconds > 86_400.0 {
        return Err(format!(
            "invalid duration {text:?}: must be at most 24h ({DURATION_FORMS})"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

pub fn parse_resource_type(text: &str) -> Result<ResourceType, String> {
    ResourceType::from_name(text).ok_or_else(|| {
        format!("unknown resource type {text:?}: expected one of qp, cq, mr, pd, cm_id, ctx, srq")
    })
}

pub fn parse_qp_state(text: &str) -> Result<QpState, String> {
    QpState::from_name(text).ok_or_else(|| {
        format!("unknown QP state {text:?}: expected one of RESET, INIT, RTR, RTS, SQD, SQE, ERR")
    })
}

pub fn parse_sort_key(text: &str) -> Result<SortKey, String> {
    SortKey::from_name(text).ok_or_else(|| {
        format!(
            "unknown sort key {text:?}: expected a type (qp, cq, mr, pd, cm_id, ctx, srq), \
             mr_bytes, err, pid, name, user or container"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("restop").chain(args.iter().copied()))
    }

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration(" 250 ms "), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
    }

    #[test]
    fn durations_must_be_positive() {
        for bad in ["0", "0s", "0.0", "-1", "-2s", "0ms"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("greater than zero"), "{bad}: {err}");
        }
    }

    #[test]
    fn durations_reject_garbage() {
        for bad in [
            "", "fast", "2x", "1..5", "s", "1.5.2s", "nan", "inf", "2 s s",
        ] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.contains("500ms"), "{bad}: {err}");
        }
    }

    #[test]
    fn durations_have_sane_bounds() {
        assert!(parse_duration("0.0001").is_err());
        assert!(parse_duration("25h").is_err());
        assert!(parse_duration("1e400").is_err());
    }

    #[test]
    fn default_mode_is_interactive_and_json_implies_once() {
        assert_eq!(parse(&[]).unwrap().mode(), Mode::Interactive);
        assert_eq!(parse(&["--once"]).unwrap().mode(), Mode::Once);
        assert_eq!(parse(&["--json"]).unwrap().mode(), Mode::Json);
        assert_eq!(parse(&["--once", "--json"]).unwrap().mode(), Mode::Json);
    }

    #[test]
    fn batch_mode_and_its_iterations() {
        assert_eq!(parse(&["--batch"]).unwrap().mode(), Mode::Batch);
        assert_eq!(
            parse(&["--batch", "--json"]).unwrap().mode(),
            Mode::BatchJson
        );
        assert_eq!(parse(&["--batch", "-n", "3"]).unwrap().iterations, Some(3));
        assert_eq!(parse(&["--batch"]).unwrap().iterations, None);
        assert!(parse(&["-n", "3"]).is_err(), "-n needs --batch");
        assert!(parse(&["--batch", "-n", "0"]).is_err());
    }

    #[test]
    fn record_and_replay_exclude_each_other_and_the_demo() {
        assert!(parse(&["--record", "a", "--replay", "b"]).is_err());
        assert!(parse(&["--replay", "b", "--demo"]).is_err());
        let cli = parse(&["--demo", "--record", "a.rec"]).unwrap();
        assert_eq!(cli.record.as_deref(), Some(std::path::Path::new("a.rec")));
    }

    #[test]
    fn defaults() {
        let cli = parse(&[]).unwrap();
        assert_eq!(cli.delay, Duration::from_secs(2));
        assert_eq!(cli.timeout, Duration::from_secs(5));
        assert_eq!(cli.top, 20);
        assert_eq!(cli.seed, 1);
        assert_eq!(cli.sort, SortKey::Count(ResourceType::Qp));
        assert_eq!(cli.filter(), Filter::default());
    }

    #[test]
    fn types_are_repeatable_and_comma_separated() {
        let cli = parse(&["--type", "qp,MR", "--type", "cm-id", "--type", "qp"]).unwrap();
        assert_eq!(
            cli.filter().types,
            [ResourceType::Qp, ResourceType::Mr, ResourceType::CmId]
        );
        assert!(parse(&["--type", "qp,counter"]).is_err());
    }

    #[test]
    fn filters_map_onto_the_model() {
        let cli = parse(&["--dev", "mlx5_0", "--pid", "42", "--state", "err"]).unwrap();
        let f = cli.filter();
        assert_eq!(f.device.as_deref(), Some("mlx5_0"));
        assert_eq!(f.pid, Some(42));
        assert_eq!(f.state, Some(QpState::Err));
        assert!(parse(&["--state", "broken"]).is_err());
    }

    #[test]
    fn sort_keys_and_their_direction() {
        let cli = parse(&["--sort", "mr_bytes"]).unwrap();
        assert_eq!(cli.sort, SortKey::MrBytes);
        assert_eq!(cli.sort_direction(), SortDirection::Descending);
        let cli = parse(&["--sort", "name"]).unwrap();
        assert_eq!(cli.sort_direction(), SortDirection::Ascending);
        assert!(parse(&["--sort", "colour"]).is_err());
    }

    #[test]
    fn seed_needs_demo() {
        assert!(parse(&["--seed", "3"]).is_err());
        assert_eq!(parse(&["--demo", "--seed", "3"]).unwrap().seed, 3);
    }

    #[test]
    fn negative_delay_is_reported_as_negative_not_as_an_unknown_flag() {
        let err = parse(&["--delay", "-1s"]).unwrap_err();
        assert!(err.to_string().contains("greater than zero"), "{err}");
    }

    #[test]
    fn bad_delay_is_a_usage_error() {
        let err = parse(&["--delay", "0"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("greater than zero"));
    }

    #[test]
    fn thresholds_default_and_validate() {
        let t = parse(&[]).unwrap().thresholds().unwrap();
        assert_eq!(t, Thresholds::default());
        let t = parse(&["--warn", "70", "--crit", "90.5"])
            .unwrap()
            .thresholds()
            .unwrap();
        assert_eq!((t.warn, t.critical), (0.70, 0.905));
        for bad in [
            &["--warn", "96"][..],
            &["--crit", "101"],
            &["--warn", "0"],
            &["--warn", "90", "--crit", "90"],
        ] {
            assert!(parse(bad).unwrap().thresholds().is_err(), "{bad:?}");
        }
        assert!(parse(&["--warn", "lots"]).is_err());
        assert!(parse(&["--no-verbs"]).unwrap().no_verbs);
    }

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn trend_options_make_the_history_config() {
        let defaults = parse(&[]).unwrap().history_config();
        assert_eq!(defaults, HistoryConfig::default());
        let c = parse(&[
            "--retention",
            "30m",
            "--trend-window",
            "15m",
            "--err-linger",
            "5s",
        ])
        .unwrap()
        .history_config();
        assert_eq!(c.retention, Duration::from_secs(1800));
        assert_eq!(c.window, Duration::from_secs(900));
        assert_eq!(c.alerts.error_qp_linger, Duration::from_secs(5));
        assert!(parse(&["--retention", "0"]).is_err());
    }
}
