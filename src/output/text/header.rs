//! The report's first lines: where the data comes from, when, and what is
//! missing from it.

use super::layout::{clean, words, wrap_units};
use crate::model::{Snapshot, SourceKind, Warning};
use crate::output::rfc3339;
use crate::units;
use std::time::Duration;

/// Host, kernel, source and collection time, then one line per warning.
pub fn header(snapshot: &Snapshot, warnings: &[Warning], width: usize) -> Vec<String> {
    let meta = &snapshot.meta;
    let mut lines = Vec::new();
    if meta.source == SourceKind::Demo {
        lines.push("*** DEMO — simulated data, not read from this host ***".to_string());
    }
    let facts = vec![
        format!("host {}", clean(&meta.host)),
        format!("kernel {}", clean(&meta.kernel)),
        format!("source {}", source_label(meta.source)),
    ];
    lines.extend(wrap_units("", "  ", &facts, "  ", width));
    lines.push(format!(
        "collected {} in {}",
        rfc3339::readable_from_unix_ms(meta.collected_at_ms),
        units::duration(Duration::from_micros(meta.collect_us)),
    ));
    for warning in warnings {
        lines.extend(wrap_units(
            "! ",
            "  ",
            &words(&clean(&warning.message)),
            " ",
            width,
        ));
    }
    lines
}

fn source_label(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Live => "live",
        SourceKind::Demo => "DEMO — simulated data",
        SourceKind::Replay => "replay (recorded data)",
    }
}
