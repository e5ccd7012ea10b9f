//! The trends group: how much history is kept and how it is judged. Global,
//! because the exporter's leak suspects and ERROR-QP ages use them too.

use crate::settings::parse_duration;
use clap::Args;
use std::time::Duration;

#[derive(Clone, Debug, Default, Args)]
#[group(id = "trends")]
#[command(next_help_heading = "Trends")]
pub struct TrendArgs {
    /// How far back trends look (history kept per process and device) [default: 10m].
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "How much history restop keeps for trends, sparklines and ERROR-QP \
                     ages, per process and device, in the interactive view, in --batch \
                     and in the exporter. Memory stays bounded however long restop runs: at \
                     most 600 points per series and 512 tracked owners. Same format as \
                     --delay. See docs/leaks.md. [default: 10m]\n\nExample: --retention 30m"
    )]
    pub retention: Option<Duration>,

    /// Span of growth rates and leak verdicts [default: 5m].
    #[arg(
        long = "trend-window",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "The span growth rates and leak-suspect verdicts look at (at most \
                     --retention). A count that kept rising over it is a leak suspect; \
                     a verdict needs a minute of history (the whole window when it \
                     is shorter). Same format as --delay. See docs/leaks.md. \
                     [default: 5m]\n\nExample: --trend-window 15m"
    )]
    pub trend_window: Option<Duration>,

    /// QPs in ERR/SQE longer than this are alerts [default: 60s].
    #[arg(
        long = "err-linger",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "A QP in ERR or SQE for at least this long is lingering: an \
                     `error_qp_lingering` alert (alerts panel, `trends.warnings` in \
                     --batch --json) and a red age in the ERROR-QP pane. Same format as \
                     --delay. [default: 60s]\n\nExample: --err-linger 5m"
    )]
    pub err_linger: Option<Duration>,
}
