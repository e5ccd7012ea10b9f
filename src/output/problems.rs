//! The problems a report lists: the history's (`History::insights`), and
//! for a report of one snapshot (`--once`, `--json`) those of a history that
//! holds only that snapshot, so both list the same problems for the same
//! snapshot and `--batch` lists what the history of its run says.

use super::text::OnceOptions;
use crate::model::Snapshot;
use crate::model::filter::Filter;
use crate::model::history::{History, HistoryConfig};
use crate::model::problems::{Problem, ProblemRules};

/// The problems of `snapshot` alone, under `filter`, with `limit` problems
/// at the report's thresholds.
pub(crate) fn of_snapshot(
    snapshot: &Snapshot,
    filter: &Filter,
    options: &OnceOptions,
) -> Vec<Problem> {
    let config = HistoryConfig {
        problems: ProblemRules {
            limits: options.thresholds,
            ..ProblemRules::default()
        },
        ..HistoryConfig::default()
    };
    let mut history = History::new(config);
    history.push(snapshot);
    history.insights(snapshot, filter).problems
}
