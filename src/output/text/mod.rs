//! The `--once` report: plain text, at most 80 columns, built as a string
//! with no I/O so it can be compared against golden files.

mod consumers;
mod devices;
mod error_qps;
mod header;
pub(crate) mod layout;
mod port_counters;
mod problems;
mod quotas;

use super::selection::Selection;
use crate::model::ResourceType;
use crate::model::Snapshot;
use crate::model::filter::Filter;
use crate::model::problems::Problem;

/// Every line of the report fits in this many columns.
pub const WIDTH: usize = 80;

/// How the report's tables are cut and ordered: the report group of the
/// settings, under the name the report's callers know.
pub use crate::settings::ReportSettings as OnceOptions;

/// The whole report, each line ending in a newline, opening with the
/// problems of `snapshot` alone.
pub fn render_once(snapshot: &Snapshot, filter: &Filter, options: &OnceOptions) -> String {
    let selection = Selection::with_thresholds(snapshot, filter, &options.thresholds);
    let problems = super::problems::of_snapshot(snapshot, &selection.filter, options);
    render_once_with(snapshot, filter, options, &problems)
}

/// The whole report with `problems` (a history's) in its PROBLEMS section.
pub fn render_once_with(
    snapshot: &Snapshot,
    filter: &Filter,
    options: &OnceOptions,
    problems: &[Problem],
) -> String {
    let selection = Selection::with_thresholds(snapshot, filter, &options.thresholds);
    let mut sections = vec![
        header::header(snapshot, &selection.warnings, WIDTH),
        problems::problems(problems, snapshot.meta.collected_at_ms, WIDTH),
        devices::devices(snapshot, &selection.devices, &selection.filter, WIDTH),
        consumers::consumers(
            &selection.consumers,
            &selection.filter,
            &consumers::TableOptions {
                top: options.top,
                sort: options.sort,
                direction: options.direction,
                group: options.group,
                width: WIDTH,
            },
        ),
    ];
    let quotas = quotas::quotas(&selection.consumers, WIDTH);
    if !quotas.is_empty() {
        sections.push(quotas);
    }
    // With --type leaving QPs out, the ERROR QP list would only be noise.
    if selection.filter.shows_type(ResourceType::Qp) {
        sections.push(error_qps::error_qps(
            &selection.error_qps,
            options.top,
            WIDTH,
        ));
    }
    let counters = if options.all_counters {
        port_counters::counters(&selection.devices, WIDTH)
    } else {
        port_counters::summary(&selection.devices, WIDTH)
    };
    if !counters.is_empty() {
        sections.push(counters);
    }
    let mut out = String::new();
    for (i, section) in sections.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for line in section {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}
