//! The report group: how the consumers table is ordered and cut, and where
//! usage turns into a warning.

use crate::model::consumers::SortKey;
use crate::settings::values::parse_sort_key;
use clap::Args;

#[derive(Clone, Debug, Default, Args)]
#[group(id = "report")]
#[command(next_help_heading = "Report")]
pub struct ReportArgs {
    /// Sort the consumers table by this column [default: qp].
    #[arg(
        long,
        value_name = "KEY",
        value_parser = parse_sort_key,
        long_help = "Column the consumers table is sorted by: a type (qp, cq, mr, pd, \
                     cm_id, ctx, srq), mr_bytes, err (QPs in ERR/SQE) — largest first — \
                     or pid, name, user, container — in ascending order. --json always \
                     lists processes by QP count. [default: qp]\n\nExample: --sort mr_bytes"
    )]
    pub sort: Option<SortKey>,

    /// Rows of the consumers and ERROR QP tables in --once (0 = all) [default: 20].
    #[arg(
        long,
        value_name = "N",
        long_help = "How many rows of the consumers table and of the ERROR QP list \
                     --once prints (0 = all). The rest is summarised as \
                     \"… N more\"; totals always cover every row. --json lists everything. \
                     [default: 20]\n\nExample: --top 5"
    )]
    pub top: Option<usize>,

    /// Usage (percent of the limit) at which a resource is flagged as filling up [default: 80].
    #[arg(
        long = "warn",
        value_name = "PCT",
        long_help = "Usage, in percent of a device's (or cgroup quota's) limit, from which a \
                     resource is coloured as a warning and listed as a `limit` warning in \
                     --once and --json. Must be greater than 0 and below --crit. \
                     [default: 80]\n\nExample: --warn 70"
    )]
    pub warn: Option<f64>,

    /// Usage (percent of the limit) at which a resource is critical [default: 95].
    #[arg(
        long = "crit",
        value_name = "PCT",
        long_help = "Usage, in percent of the limit, from which a resource is critical \
                     (red, and `critical` in its `limit` warning). At most 100 and above \
                     --warn. [default: 95]\n\nExample: --warn 70 --crit 90"
    )]
    pub crit: Option<f64>,

    /// --once/--json: read the NIC counters twice, this far apart, to show rates.
    #[arg(
        long = "rates",
        value_name = "DURATION",
        value_parser = crate::settings::duration::parse_duration,
        num_args = 0..=1,
        default_missing_value = "1s",
        long_help = "With --once or --json: read the NIC counters, wait DURATION (1s when \
                     omitted), collect again and show the second snapshot, whose counters \
                     then carry per-second rates computed from the two reads' own \
                     timestamps (so the interval is DURATION plus one collection). Without \
                     it the report shows totals only.\n\nExample: restop --once --rates 2s"
    )]
    pub rates: Option<std::time::Duration>,

    /// --once: the COUNTERS section as one line per port (summary) or every counter (all).
    #[arg(
        long = "counters",
        value_name = "WHICH",
        value_parser = ["summary", "all"],
        long_help = "What --once's COUNTERS section shows: one line per port with what \
                     moved and the totals that matter (bytes, packets, errors) — summary — \
                     or every counter of every port with its total and rate — all. \
                     [default: summary]\n\nExample: restop --once --rates --counters all"
    )]
    pub counters: Option<String>,
}
