//! The mode group (`--once`, `--json`, `--batch`, `-n`) and the recording
//! group (`--record`, `--replay`).

use clap::Args;
use std::path::PathBuf;

/// What to print, and how often.
#[derive(Clone, Debug, Default, Args)]
#[group(id = "mode")]
#[command(next_help_heading = "Mode")]
pub struct ModeArgs {
    /// Print one human-readable report and exit.
    #[arg(
        long,
        long_help = "Print one human-readable report (80 columns) and exit: host header, \
                     devices with usage against limits, the top consumers, and the QPs in \
                     ERR/SQE.\n\nExample: restop --once"
    )]
    pub once: bool,

    /// Print one JSON document and exit (implies --once); JSON Lines with --batch.
    #[arg(
        long,
        long_help = "Print one JSON document and exit (implies --once). The schema is \
                     versioned and described in docs/json.md. With --batch: one compact \
                     document per line, every interval.\n\n\
                     Example: restop --json | jq '.processes[0]'"
    )]
    pub json: bool,

    /// Print a report every interval, like `top -b`.
    #[arg(
        long,
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
        long_help = "With --batch: stop after N reports (default: until stopped, or until \
                     the end of a replay).\n\nExample: restop --batch -n 10 -d 1s"
    )]
    pub iterations: Option<u64>,
}

/// Writing snapshots to a file, or showing them from one.
#[derive(Clone, Debug, Default, Args)]
#[group(id = "recording")]
#[command(next_help_heading = "Recording")]
pub struct RecordingArgs {
    /// Also write every snapshot to FILE (see docs/recording.md).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "replay",
        long_help = "Write every snapshot collected to FILE while the interactive view or \
                     --batch runs (--once and --json record their one snapshot): compact \
                     (about 3.6 KiB per snapshot of the demo host), append-only, readable \
                     after a crash. An existing recording is continued; a file that is \
                     not a restop recording is refused. A failed write (disk full) is \
                     shown as a warning and retried; the session goes on. Format: \
                     docs/recording.md.\n\nExample: restop --record /var/tmp/rdma.rec"
    )]
    pub record: Option<PathBuf>,

    /// Show a recording made with --record instead of this host.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "demo",
        long_help = "Show the snapshots of a recording made with --record instead of this \
                     host, marked REPLAY. The interactive view plays it at its recorded \
                     pace with pause (Space), step (, .), speed ([ ]) and seek ({ } ^ $); \
                     --once and --json show its first snapshot; --batch prints every \
                     snapshot as fast as it is read.\n\n\
                     Examples: restop --replay rdma.rec   restop --replay rdma.rec --batch --json"
    )]
    pub replay: Option<PathBuf>,
}
