//! The drill-down's QP-counter line: the counters an admin bound this
//! owner's QPs to, with their busiest values; where nothing is bound, the
//! command that binds them (restop itself never binds) instead of zeros.

use crate::interactive::screens::Ctx;
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::widgets::theme::Theme;
use crate::model::Snapshot;
use crate::model::counters::bound::{BoundAt, bind_hint, bound_of_owner};
use ratatui::text::Span;

/// Values shown per counter, busiest first.
const VALUES_SHOWN: usize = 3;

/// QP numbers shown per counter; an auto-mode counter can hold hundreds.
const QPS_SHOWN: usize = 4;

pub(crate) fn bound_line<'a>(ctx: &Ctx, drill: &DrillScreen, theme: &Theme) -> Vec<Span<'a>> {
    let Some(snapshot) = ctx.snapshot else {
        return Vec::new();
    };
    let bound = bound_of_owner(snapshot, &drill.owner);
    let mut spans = vec![Span::styled("QP counters ", theme.bold())];
    if bound.is_empty() {
        spans.push(Span::styled(unbound_text(snapshot, drill), theme.dim()));
        return spans;
    }
    for (i, b) in bound.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("  │ ", theme.dim()));
        }
        spans.push(Span::raw(counter_text(b)));
    }
    spans
}

/// `mlx5_0/1 #3 auto, QPs 17 18: rx_read_requests 5120, out_of_sequence 2`;
/// past a few QP numbers, how many more (`QPs 458 461 462 465 +4`).
pub(crate) fn counter_text(b: &BoundAt<'_>) -> String {
    let c = b.counter;
    let mode = c
        .mode
        .as_deref()
        .map(|m| format!(" {m}"))
        .unwrap_or_default();
    let mut qps: Vec<String> = c.qps.iter().take(QPS_SHOWN).map(u32::to_string).collect();
    if c.qps.len() > QPS_SHOWN {
        qps.push(format!("+{}", c.qps.len() - QPS_SHOWN));
    }
    let mut values: Vec<(&String, &u64)> = c.counters.iter().filter(|(_, v)| **v > 0).collect();
    values.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let shown: Vec<String> = values
        .iter()
        .take(VALUES_SHOWN)
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let values = if shown.is_empty() {
        "every counter 0".to_string()
    } else {
        shown.join(", ")
    };
    format!(
        "{}/{} #{}{mode}, QP{} {}: {values}",
        b.device,
        b.port,
        c.id,
        if c.qps.len() == 1 { "" } else { "s" },
        qps.join(" ")
    )
}

/// Why there is nothing to show: the kernel could not list QP counters, or
/// none is bound (and how an admin binds them on this owner's first port).
fn unbound_text(snapshot: &Snapshot, drill: &DrillScreen) -> String {
    let devices = drill
        .consumer
        .as_ref()
        .map(|c| c.devices.clone())
        .unwrap_or_default();
    let first_port = devices.iter().find_map(|name| {
        let d = snapshot.devices.iter().find(|d| &d.name == name)?;
        let p = d.ports.first()?;
        Some((d.name.clone(), p.index, p.counters.as_ref()))
    });
    match first_port {
        Some((_, _, None)) => "not read: this snapshot has no counters".to_string(),
        Some((_, _, Some(c))) if c.bound_note.is_some() => {
            format!("not readable: {}", c.bound_note.clone().unwrap_or_default())
        }
        Some((device, port, Some(_))) => {
            format!(
                "none bound; an admin binds them with `{}`",
                bind_hint(&device, port)
            )
        }
        None => "none bound".to_string(),
    }
}
