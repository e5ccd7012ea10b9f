//! The rules on a RoCE port's netdev (docs/counters.md, "As problems"): a
//! pause storm, discards that keep coming, a link flap seen as carrier
//! changes. Each formats the netdev reading of `model::counters::netdev`
//! (`NetdevCounters::health`); none reads the counters a second way. A flap
//! that `link_downed` already raised (`raise::counters`) is not raised twice.

use super::raise::{Input, port_problem, round2};
use super::{Problem, ProblemKind, Severity, Subject};
use crate::model::UnixMs;
use crate::model::counters::netdev::{NetdevHealth, Priority};
use crate::model::device::grouped_order;

/// Pause storms, discards and carrier flaps of every port's netdev.
pub(super) fn netdevs(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    for device in grouped_order(&input.snapshot.devices) {
        for port in &device.ports {
            let Some(n) = port.counters.as_ref().and_then(|c| c.netdev.as_ref()) else {
                continue;
            };
            let Some(h) = n.health() else { continue };
            let (dev, index) = (device.name.as_str(), port.index);
            out.extend(pause_storm(input, at, dev, index, &n.name, &h));
            out.extend(discards(input, at, dev, index, &n.name, &h));
            let subject = Subject::Port {
                device: dev.to_string(),
                port: index,
            };
            let flap_known = out
                .iter()
                .any(|p| p.kind == ProblemKind::LinkFlap && p.subject == subject);
            if h.carrier_changes > 0 && !flap_known {
                out.push(Problem {
                    detail: Some("carrier_changes".to_string()),
                    value: Some(h.carrier_changes as f64),
                    unit: "events",
                    ..port_problem(
                        Severity::Warning,
                        ProblemKind::LinkFlap,
                        dev,
                        index,
                        at,
                        format!(
                            "{dev} port {index}: the link of {} flapped ({} carrier changes)",
                            n.name, h.carrier_changes
                        ),
                    )
                });
            }
        }
    }
}

/// Pause frames received (or sent) faster than `pause_storm_per_s`.
fn pause_storm(
    input: &Input<'_>,
    at: UnixMs,
    dev: &str,
    index: u32,
    netdev: &str,
    h: &NetdevHealth,
) -> Option<Problem> {
    let rules = input.rules;
    let pause = h.rx_pause_per_s.max(h.tx_pause_per_s);
    if pause < rules.pause_storm_per_s {
        return None;
    }
    let severity = if pause >= rules.pause_critical_per_s {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let way = if h.rx_pause_per_s >= h.tx_pause_per_s {
        "received"
    } else {
        "sent"
    };
    let mut prios: Vec<String> = h
        .pause
        .iter()
        .filter_map(|(p, _, _)| match p {
            Priority::Pfc(n) => Some(n.to_string()),
            Priority::Global => None,
        })
        .collect();
    prios.dedup();
    let on = if prios.is_empty() {
        String::new()
    } else {
        format!(" (priority {})", prios.join(", "))
    };
    Some(Problem {
        value: Some(round2(pause)),
        threshold: Some(rules.pause_storm_per_s),
        unit: "per_second",
        ..port_problem(
            severity,
            ProblemKind::PauseStorm,
            dev,
            index,
            at,
            format!(
                "{dev} port {index}: pause storm on {netdev}, {} pause frames/s {way}{on}",
                crate::units::si(pause)
            ),
        )
    })
}

/// Discard and drop counters rising `netdev_discards_per_s` or faster, together.
fn discards(
    input: &Input<'_>,
    at: UnixMs,
    dev: &str,
    index: u32,
    netdev: &str,
    h: &NetdevHealth,
) -> Option<Problem> {
    let rules = input.rules;
    let total: f64 = h.discards.iter().map(|(_, r)| r).sum();
    if total < rules.netdev_discards_per_s {
        return None;
    }
    let names: Vec<String> = h
        .discards
        .iter()
        .map(|(c, r)| format!("{c} {}/s", crate::units::si(*r)))
        .collect();
    Some(Problem {
        value: Some(round2(total)),
        threshold: Some(rules.netdev_discards_per_s),
        unit: "per_second",
        ..port_problem(
            Severity::Warning,
            ProblemKind::NetdevDiscards,
            dev,
            index,
            at,
            format!(
                "{dev} port {index}: {netdev} discards packets, {}",
                names.join(", ")
            ),
        )
    })
}
