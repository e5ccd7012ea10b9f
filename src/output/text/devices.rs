//! The devices section: one block per device in `rdma res show` style,
//! `used/max (pct)` where the limit is known, VFs indented under their PF.

use super::layout::{clean, truncate, words, wrap_units};
use crate::model::filter::Filter;
use crate::model::{Device, Millis, PhysState, Port, Snapshot, UsageEntry};
use crate::units;

/// Device names are cut so the first line keeps room for usage (real names
/// are short: `mlx5_0`, `rxe0`, `bnxt_re1`).
const NAME_WIDTH: usize = 32;
const PF_NAME_WIDTH: usize = 16;

/// Object dumps older than this (relative to the snapshot) get their age shown.
const STALE_OBJECTS_MS: Millis = Millis(1_000);

pub(super) fn devices(
    snapshot: &Snapshot,
    devices: &[&Device],
    filter: &Filter,
    width: usize,
) -> Vec<String> {
    let mut lines = vec![format!("DEVICES ({})", devices.len())];
    if devices.is_empty() {
        lines.push(match &filter.device {
            Some(name) => format!("  no device named {}", truncate(&clean(name), NAME_WIDTH)),
            None => "  no RDMA devices".to_string(),
        });
        return lines;
    }
    for device in devices {
        lines.extend(device_block(snapshot, device, devices, filter, width));
    }
    lines
}

fn device_block(
    snapshot: &Snapshot,
    device: &Device,
    shown: &[&Device],
    filter: &Filter,
    width: usize,
) -> Vec<String> {
    // A VF sits under its PF when the PF is listed too; otherwise it names it.
    let (indent, role) = match &device.pf {
        Some(pf) if shown.iter().any(|d| &d.name == pf) => ("  ", " (VF)".to_string()),
        Some(pf) => (
            "",
            format!(" (VF of {})", truncate(&clean(pf), PF_NAME_WIDTH)),
        ),
        None => ("", String::new()),
    };
    let name = truncate(&clean(&device.name), NAME_WIDTH);
    let first = format!("{indent}{}: {name}{role}: ", device.index);
    let rest = format!("{indent}   ");

    let usage: Vec<String> = filter
        .visible_types()
        .into_iter()
        .filter_map(|t| device.usage.get(t).map(|e| usage_unit(t.name(), e)))
        .collect();
    let mut lines = if usage.is_empty() {
        vec![format!("{first}no usage summary")]
    } else {
        wrap_units(&first, &rest, &usage, "  ", width)
    };

    let mut facts: Vec<String> = device.ports.iter().map(port_unit).collect();
    // A device of another network namespace says which, and whose it is.
    facts.extend(
        device
            .netns
            .as_ref()
            .map(|ns| format!("netns {}", clean(&ns.describe()))),
    );
    facts.extend(device.protocol.as_deref().map(clean));
    facts.extend(device.pci.as_deref().map(clean));
    match device.objects.collected_at_ms {
        None => facts.push("objects not dumped yet".to_string()),
        Some(at) if snapshot.meta.collected_at_ms >= at.plus(STALE_OBJECTS_MS) => {
            let age = snapshot.meta.collected_at_ms.since(at).as_duration();
            facts.push(format!("objects {} old", units::duration(age)));
        }
        Some(_) => {}
    }
    if !facts.is_empty() {
        lines.extend(wrap_units(&rest, &rest, &facts, ", ", width));
    }
    for (t, message) in &device.objects.errors {
        let text = format!("{} dump failed: {}", t.name(), clean(message));
        let cont = format!("{rest}  ");
        lines.extend(wrap_units(
            &format!("{rest}! "),
            &cont,
            &words(&text),
            " ",
            width,
        ));
    }
    lines
}

/// `qp 1024/131072 (0.8%)`, or `cm_id 3` when the limit is unknown.
fn usage_unit(name: &str, entry: &UsageEntry) -> String {
    match (entry.max, entry.ratio()) {
        (Some(max), Some(ratio)) => format!(
            "{name} {}/{} ({})",
            units::count(entry.current),
            units::count(max),
            units::percent(ratio)
        ),
        _ => format!("{name} {}", units::count(entry.current)),
    }
}

/// `port 1 ACTIVE ens1f0np0`; the physical state only when it is not the
/// expected LINK_UP (`port 2 DOWN DISABLED`).
fn port_unit(port: &Port) -> String {
    let mut text = format!("port {}", port.index);
    if let Some(state) = port.state {
        text.push_str(&format!(" {state}"));
    }
    if let Some(phys) = port.phys_state
        && phys != PhysState::LinkUp
    {
        text.push_str(&format!(" {phys}"));
    }
    if let Some(netdev) = &port.netdev {
        text.push_str(&format!(" {}", clean(netdev)));
    }
    text
}
