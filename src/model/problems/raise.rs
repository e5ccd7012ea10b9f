//! The rules: from one snapshot and what the history says about it, every
//! problem it raises (docs/user-guide.md, "Problems"). Each rule formats a
//! reading made elsewhere; none reads the data a second way.

use super::{Opens, Problem, ProblemKind, ProblemRules, Severity, Subject, rank};
use crate::model::counters::CounterClass;
use crate::model::device::grouped_order;
use crate::model::history::counter_rates::{CounterAlert, CounterAlertRules};
use crate::model::history::{AlertKind, Insights, plural, span_text};
use crate::model::limits::{Level, cgroup_limits, device_limits};
use crate::model::{Millis, OwnerKey, ResourceType, Snapshot, TypeCounts, UnixMs, WarningKind};
use std::collections::BTreeMap;

/// What the rules read.
pub struct Input<'a> {
    pub snapshot: &'a Snapshot,
    /// The history's reading of `snapshot`, unfiltered.
    pub insights: &'a Insights,
    /// Counters that keep rising, as of the snapshot, and the rule's thresholds.
    pub counter_alerts: &'a [CounterAlert],
    pub counter_rules: &'a CounterAlertRules,
    /// Ports not ACTIVE in the snapshot that the history saw ACTIVE.
    pub ports_down: &'a [(String, u32)],
    /// The smallest growth a leak verdict needs (`HistoryConfig::min_growth`).
    pub leak_min_growth: u64,
    pub rules: &'a ProblemRules,
}

/// Every problem `input` raises, ranked (`rank`), each since when its rule
/// says (the history then gives the first-seen time of its episode).
pub fn raise(input: &Input<'_>) -> Vec<Problem> {
    let at = input.snapshot.meta.collected_at_ms;
    let mut out = Vec::new();
    limits(input, at, &mut out);
    alerts(input, at, &mut out);
    rising_owners(input, at, &mut out);
    error_qps(input, &mut out);
    counters(input, at, &mut out);
    super::netdev::netdevs(input, at, &mut out);
    ports_down(input, at, &mut out);
    unattributed(input, at, &mut out);
    collection(input, at, &mut out);
    rank(&mut out);
    out
}

fn problem(
    severity: Severity,
    kind: ProblemKind,
    subject: Subject,
    subject_name: String,
    since_ms: UnixMs,
    why: String,
    opens: Opens,
) -> Problem {
    Problem {
        severity,
        kind,
        subject,
        subject_name,
        detail: None,
        since_ms,
        value: None,
        threshold: None,
        unit: "objects",
        why,
        opens,
        on_devices: Vec::new(),
    }
}

/// Usage past `--warn`/`--crit`: the `limit` warnings' readings.
fn limits(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    let t = &input.rules.limits;
    let crossed = |level: Level| match level {
        Level::Critical => (Severity::Critical, t.critical),
        _ => (Severity::Warning, t.warn),
    };
    let devices = grouped_order(&input.snapshot.devices);
    for l in device_limits(input.snapshot, &devices, t) {
        let (severity, threshold) = crossed(l.level);
        out.push(Problem {
            detail: Some(l.resource.name().to_string()),
            value: Some(l.ratio),
            threshold: Some(threshold),
            unit: "ratio",
            ..problem(
                severity,
                ProblemKind::Limit,
                Subject::Device {
                    device: l.device.clone(),
                },
                l.device.clone(),
                at,
                l.message(),
                Opens::Device {
                    device: l.device.clone(),
                },
            )
        });
    }
    for l in cgroup_limits(&input.snapshot.processes, t) {
        let (severity, threshold) = crossed(l.level);
        out.push(Problem {
            detail: Some(l.resource.to_string()),
            value: Some(l.ratio),
            threshold: Some(threshold),
            unit: "ratio",
            ..problem(
                severity,
                ProblemKind::Limit,
                Subject::Cgroup {
                    cgroup: l.cgroup.clone(),
                    device: l.device.clone(),
                },
                format!("cgroup {}", l.cgroup),
                at,
                l.message(),
                Opens::Owner {
                    owner: l.process.clone(),
                },
            )
        });
    }
}

/// Leak suspects and objects left behind: the history's alerts.
fn alerts(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    for alert in &input.insights.alerts {
        let Some(owner) = alert.owner.clone() else {
            continue;
        };
        let since = alert.since_ms.unwrap_or(at);
        match alert.kind {
            AlertKind::LeakSuspect => {
                let trend = input.insights.owner(&owner);
                let growth = trend
                    .and_then(|t| t.suspects().map(|(_, tt)| tt.growth).max())
                    .unwrap_or(0);
                let kind = match owner {
                    OwnerKey::Kernel(_) => ProblemKind::KernelOwnerGrowing,
                    _ => ProblemKind::LeakSuspect,
                };
                out.push(Problem {
                    value: Some(growth as f64),
                    threshold: Some(input.leak_min_growth as f64),
                    ..problem(
                        Severity::Warning,
                        kind,
                        Subject::Owner {
                            owner: owner.clone(),
                        },
                        owner_name(input, &owner),
                        since,
                        format!("leak suspect: {}", alert.message),
                        Opens::Owner { owner },
                    )
                });
            }
            AlertKind::UnreleasedAfterExit => out.push(problem(
                Severity::Warning,
                ProblemKind::LeftBehind,
                Subject::Owner {
                    owner: owner.clone(),
                },
                owner_name(input, &owner),
                since,
                alert.message.clone(),
                Opens::Owner {
                    owner: OwnerKey::Unattributed,
                },
            )),
            // The ERROR-QP rule below lists every broken QP, lingering or not.
            AlertKind::ErrorQpLingering => {}
        }
    }
}

/// Owners whose counts rose steadily over the window without a leak
/// verdict (yet): a notice for processes, a warning-free note for kernel
/// owners that grow.
fn rising_owners(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    let rules = input.rules;
    for trend in input.insights.owners.values() {
        if trend.leak_suspect() || trend.owner == OwnerKey::Unattributed {
            continue;
        }
        let Some((t, tt)) = trend
            .types
            .iter()
            .filter(|(_, tt)| {
                tt.growth >= rules.rising_min_growth
                    && tt.monotonicity >= rules.rising_monotonicity
                    && tt.span_ms >= input.insights.min_span_ms
            })
            .max_by_key(|(_, tt)| tt.growth)
        else {
            continue;
        };
        let kind = match trend.owner {
            OwnerKey::Kernel(_) => ProblemKind::KernelOwnerGrowing,
            _ => ProblemKind::RisingOwner,
        };
        let name = owner_name(input, &trend.owner);
        let growth = u64::try_from(tt.growth).unwrap_or(0);
        out.push(Problem {
            detail: Some(t.name().to_string()),
            value: Some(tt.growth as f64),
            threshold: Some(rules.rising_min_growth as f64),
            ..problem(
                Severity::Notice,
                kind,
                Subject::Owner {
                    owner: trend.owner.clone(),
                },
                name.clone(),
                at.minus(tt.span_ms),
                format!(
                    "{name}: +{growth} {} in {}, rising steadily",
                    plural(*t, growth),
                    span_text(tt.span_ms)
                ),
                Opens::Owner {
                    owner: trend.owner.clone(),
                },
            )
        });
    }
}

/// One owner's QPs in ERR/SQE.
#[derive(Default)]
struct Broken {
    name: String,
    qps: usize,
    err: usize,
    sqe: usize,
    devices: Vec<String>,
    /// The oldest known age and when it was first seen.
    oldest: Option<(Millis, UnixMs)>,
    lower_bound: bool,
}

/// QPs in ERR/SQE, one problem per owner, escalating with the oldest's age.
fn error_qps(input: &Input<'_>, out: &mut Vec<Problem>) {
    let at = input.insights.at_ms;
    let rules = input.rules;
    let mut owners: BTreeMap<OwnerKey, Broken> = BTreeMap::new();
    for e in &input.insights.error_qps {
        let b = owners.entry(e.qp.qp.owner.clone()).or_default();
        b.name = owner_name(input, &e.qp.qp.owner);
        b.qps += 1;
        match e.qp.qp.state {
            crate::model::QpState::Sqe => b.sqe += 1,
            _ => b.err += 1,
        }
        if !b.devices.contains(&e.qp.device) {
            b.devices.push(e.qp.device.clone());
        }
        let (ms, first) = match e.age {
            Some(age) => {
                b.lower_bound |= age.lower_bound;
                (age.ms, age.first_seen_ms)
            }
            None => (Millis::ZERO, at),
        };
        if b.oldest.is_none_or(|(old, _)| ms > old) {
            b.oldest = Some((ms, first));
        }
    }
    let secs = |d: std::time::Duration| d.as_secs_f64();
    for (owner, b) in owners {
        let (age, first) = b.oldest.unwrap_or((Millis::ZERO, at));
        let age_d = age.as_duration();
        if age_d < rules.error_qp_notice_after && !b.lower_bound {
            continue;
        }
        let (severity, threshold) = if age_d >= rules.error_qp_critical_after {
            (Severity::Critical, rules.error_qp_critical_after)
        } else if age_d >= rules.error_qp_linger {
            (Severity::Warning, rules.error_qp_linger)
        } else {
            (Severity::Notice, rules.error_qp_notice_after)
        };
        let states = match (b.err, b.sqe) {
            (_, 0) => "ERR".to_string(),
            (0, _) => "SQE".to_string(),
            (e, s) => format!("ERR ({e}) and SQE ({s})"),
        };
        let qps = if b.qps == 1 {
            "1 QP".to_string()
        } else {
            format!("{} QPs", b.qps)
        };
        let how_long = if b.lower_bound && age < Millis(1_000) {
            "age unknown (already broken when restop started)".to_string()
        } else if b.lower_bound {
            format!(
                "for at least {} (already broken when restop started)",
                span_text(age)
            )
        } else {
            format!("for {}", span_text(age))
        };
        let oldest = if b.qps == 1 || age < Millis(1_000) {
            ""
        } else {
            "the oldest "
        };
        out.push(Problem {
            value: Some(age.as_secs_f64()),
            threshold: Some(secs(threshold)),
            unit: "seconds",
            on_devices: b.devices.clone(),
            ..problem(
                severity,
                ProblemKind::ErrorQps,
                Subject::Owner {
                    owner: owner.clone(),
                },
                b.name.clone(),
                first,
                format!(
                    "{qps} of {} in {states} on {}, {oldest}{how_long}",
                    b.name,
                    b.devices.join(", ")
                ),
                Opens::ErrorQps { owner },
            )
        });
    }
}

/// Error counters that keep rising (one problem each), congestion counters
/// (one problem per port: a CNP storm moves several at once) and link flaps.
fn counters(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    let rules = input.rules;
    let mut congested: BTreeMap<(&str, u32), Vec<&CounterAlert>> = BTreeMap::new();
    for a in input.counter_alerts {
        let class = a.class();
        if class == CounterClass::Congestion && !a.is_flap() {
            congested.entry((&a.device, a.port)).or_default().push(a);
            continue;
        }
        let (kind, severity, value, threshold, unit) = if a.is_flap() {
            (
                ProblemKind::LinkFlap,
                Severity::Warning,
                None,
                None,
                "events",
            )
        } else {
            let s = if a.per_s >= rules.error_critical_per_s {
                Severity::Critical
            } else {
                Severity::Warning
            };
            let threshold = input.counter_rules.threshold_per_s(class);
            (
                ProblemKind::NicErrors,
                s,
                Some(round2(a.per_s)),
                Some(threshold),
                "per_second",
            )
        };
        out.push(Problem {
            detail: Some(a.counter.clone()),
            value,
            threshold,
            unit,
            ..port_problem(severity, kind, &a.device, a.port, at, a.message.clone())
        });
    }
    for ((device, port), alerts) in congested {
        let Some(top) = alerts.iter().max_by(|a, b| a.per_s.total_cmp(&b.per_s)) else {
            continue;
        };
        let severity = if top.per_s >= rules.congestion_storm_per_s {
            Severity::Warning
        } else {
            Severity::Notice
        };
        let word = if severity == Severity::Warning {
            "congestion storm"
        } else {
            "congestion"
        };
        let names: Vec<String> = alerts
            .iter()
            .map(|a| format!("{} {}/s", a.counter, crate::units::si(a.per_s)))
            .collect();
        out.push(Problem {
            detail: None,
            value: Some(round2(top.per_s)),
            threshold: Some(
                input
                    .counter_rules
                    .threshold_per_s(CounterClass::Congestion),
            ),
            unit: "per_second",
            ..port_problem(
                severity,
                ProblemKind::Congestion,
                device,
                port,
                at,
                format!("{device} port {port}: {word}, {}", names.join(", ")),
            )
        });
    }
}

pub(super) fn port_problem(
    severity: Severity,
    kind: ProblemKind,
    device: &str,
    port: u32,
    at: UnixMs,
    why: String,
) -> Problem {
    problem(
        severity,
        kind,
        Subject::Port {
            device: device.to_string(),
            port,
        },
        format!("{device} port {port}"),
        at,
        why,
        Opens::PortCounters {
            device: device.to_string(),
            port,
        },
    )
}

pub(super) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Ports that were ACTIVE and are not.
fn ports_down(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    for (device, port) in input.ports_down {
        let state = input
            .snapshot
            .devices
            .iter()
            .find(|d| &d.name == device)
            .and_then(|d| d.ports.iter().find(|p| p.index == *port))
            .and_then(|p| p.state)
            .map(|s| s.to_string())
            .unwrap_or_else(|| "not ACTIVE".into());
        out.push(Problem {
            unit: "events",
            ..problem(
                Severity::Critical,
                ProblemKind::PortNotActive,
                Subject::Port {
                    device: device.clone(),
                    port: *port,
                },
                format!("{device} port {port}"),
                at,
                format!("{device} port {port} is {state}; it was ACTIVE"),
                Opens::PortCounters {
                    device: device.clone(),
                    port: *port,
                },
            )
        });
    }
}

/// Objects without an owner, unless a process's exit already explains them.
fn unattributed(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    if out.iter().any(|p| p.kind == ProblemKind::LeftBehind) {
        return;
    }
    let mut counts = TypeCounts::default();
    for tally in input
        .snapshot
        .tallies
        .iter()
        .filter(|t| t.owner == OwnerKey::Unattributed)
    {
        for t in ResourceType::ALL {
            counts.add(t, tally.counts.get(t));
        }
    }
    let total = counts.total();
    if total == 0 {
        return;
    }
    out.push(Problem {
        value: Some(total as f64),
        threshold: Some(0.0),
        ..problem(
            Severity::Notice,
            ProblemKind::Unattributed,
            Subject::Owner {
                owner: OwnerKey::Unattributed,
            },
            "(unattributed)".into(),
            at,
            format!(
                "{} without an owner (their creating thread exited)",
                crate::model::history::counts_text(&counts)
            ),
            Opens::Owner {
                owner: OwnerKey::Unattributed,
            },
        )
    });
}

/// Object dumps that failed and devices that vanished during the collection.
fn collection(input: &Input<'_>, at: UnixMs, out: &mut Vec<Problem>) {
    for d in &input.snapshot.devices {
        if d.objects.errors.is_empty() {
            continue;
        }
        let types: Vec<&str> = d.objects.errors.iter().map(|(t, _)| t.name()).collect();
        let first = d
            .objects
            .errors
            .first()
            .map(|(_, m)| m.as_str())
            .unwrap_or("");
        out.push(Problem {
            value: Some(types.len() as f64),
            threshold: Some(0.0),
            unit: "events",
            ..problem(
                Severity::Warning,
                ProblemKind::CollectionPartial,
                Subject::Device {
                    device: d.name.clone(),
                },
                d.name.clone(),
                at,
                format!(
                    "{}: the {} dump failed ({first}); its counts are from before",
                    d.name,
                    types.join(", ")
                ),
                Opens::Device {
                    device: d.name.clone(),
                },
            )
        });
    }
    for w in &input.snapshot.meta.warnings {
        if w.kind != WarningKind::DeviceVanished {
            continue;
        }
        out.push(Problem {
            detail: Some(w.message.clone()),
            unit: "events",
            ..problem(
                Severity::Notice,
                ProblemKind::CollectionPartial,
                Subject::Host,
                "host".into(),
                at,
                w.message.clone(),
                Opens::Nothing,
            )
        });
    }
}

/// `leaky_svc (pid 3377)`, `[nvme_rdma]`, `(unattributed)`.
fn owner_name(input: &Input<'_>, owner: &OwnerKey) -> String {
    let process = match owner {
        OwnerKey::Process(key) => input.snapshot.process(key),
        _ => None,
    };
    let name = crate::model::consumers::owner_label(owner, process);
    match owner.pid() {
        Some(pid) if name != format!("pid {pid}") => format!("{name} (pid {pid})"),
        _ => name,
    }
}
