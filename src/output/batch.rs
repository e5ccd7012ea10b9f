//! What `--batch` prints per tick: the `--once` report under a line naming
//! the tick, or (`--json`) one compact `--json` document per line (JSON
//! Lines) with the trend fields under `trends`.

use super::json::{JsonDocument, render_json_report};
use super::rfc3339::readable_from_unix_ms;
use super::text::{OnceOptions, render_once_with};
use crate::model::Snapshot;
use crate::model::filter::Filter;
use crate::model::problems::Problem;
use serde::Serialize;

/// The line that opens each report, so ticks are easy to find and split:
/// `=== restop tick 3: 2026-01-01 00:00:04 UTC ===`.
pub(crate) fn tick_line(tick: u64, snapshot: &Snapshot) -> String {
    format!(
        "=== restop tick {tick}: {} ===",
        readable_from_unix_ms(snapshot.meta.collected_at_ms)
    )
}

/// The same, with the problems of the run's history (`History::insights`).
pub(crate) fn text_tick_with(
    tick: u64,
    snapshot: &Snapshot,
    filter: &Filter,
    options: &OnceOptions,
    problems: &[Problem],
) -> String {
    let mut out = String::new();
    if tick > 1 {
        out.push('\n');
    }
    out.push_str(&tick_line(tick, snapshot));
    out.push('\n');
    out.push_str(&render_once_with(snapshot, filter, options, problems));
    out
}

/// The `--json` document with the trend fields appended, keys in the
/// documented order.
#[derive(Serialize)]
struct BatchDocument<'a> {
    #[serde(flatten)]
    document: &'a JsonDocument,
    #[serde(skip_serializing_if = "Option::is_none")]
    trends: Option<&'a serde_json::Value>,
}

/// The same, with `problems` (the run's history's) in place of those of the
/// snapshot alone.
pub(crate) fn json_line_with(
    snapshot: &Snapshot,
    filter: &Filter,
    options: &OnceOptions,
    trends: Option<&serde_json::Value>,
    problems: Option<&[Problem]>,
) -> serde_json::Result<String> {
    let mut document = render_json_report(snapshot, filter, options);
    if let Some(problems) = problems {
        document.problems = super::json::problem_views(problems, snapshot.meta.collected_at_ms);
    }
    let mut line = serde_json::to_string(&BatchDocument {
        document: &document,
        trends,
    })?;
    line.push('\n');
    Ok(line)
}
