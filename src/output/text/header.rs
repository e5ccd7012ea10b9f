//! The report's first lines: where the data comes from, when, and what is
//! missing from it.

use super::layout::{clean, words, wrap_units};
use crate::model::{Snapshot, SourceKind, Warning};
use crate::output::rfc3339;
use crate::units;
use std::time::Duration;

/// Host, kernel, source and collection time, then one line per warning.
pub(super) fn header(snapshot: &Snapshot, warnings: &[Warning], width: usize) -> Vec<String> {
    let meta = &snapshot.meta;
    let mut lines = Vec::new();
    if meta.source == SourceKind::Demo {
        lines.push("*** DEMO — simulated data, not read from this host ***".to_string());
    }
    let host = vec![
        format!("host {}", clean(&meta.host)),
        format!("kernel {}", clean(&meta.kernel)),
    ];
    lines.extend(wrap_units("", "  ", &host, "  ", width));
    let when = vec![
        format!("source {}", source_label(meta.source)),
        format!(
            "collected {} in {}",
            rfc3339::readable_from_unix_ms(meta.collected_at_ms),
            units::duration(Duration::from_micros(meta.collect_us)),
        ),
    ];
    lines.extend(wrap_units("", "  ", &when, "  ", width));
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
