//! From a snapshot and the exporter's health to one exposition document.
//! A pure function: the collector calls it once per collection, scrapes only
//! copy its result.
//!
//! Each metric family is written by its own small function, in catalog order;
//! a new family (leak suspects, say) is a new catalog entry and one more
//! function here.

use super::catalog;
use super::device_labels::{DeviceLabels, NetnsByName};
use super::exposition::{Format, Writer};
use super::health::{self, Health};
use super::top_owners::{LabelledOwners, OwnerLabels, OwnerOptions, Ranked};
use crate::model::consumers::{Consumer, consumers};
use crate::model::device::grouped_order;
use crate::model::filter::Filter;
use crate::model::problems::{Problem, Subject, counts};
use crate::model::{Device, PortState, QpState, ResourceType, Snapshot, StateCounts};
use std::collections::BTreeMap;
use std::time::Duration;

/// Per device name: how long its oldest QP in ERR/SQE has been in that state.
/// Filled in by whatever watches QPs across collections; without it the
/// family is not written at all (an unknown age is not zero).
pub type ErrorQpAges = BTreeMap<String, Duration>;

/// Everything one rendering needs.
pub struct RenderInput<'a> {
    /// The last successful snapshot; `None` when the last collection failed,
    /// so stale numbers are never served as current (only health is).
    pub snapshot: Option<&'a Snapshot>,
    pub health: &'a Health,
    /// Owners per type in per-owner metrics (`--top`).
    pub top: usize,
    pub error_qp_ages: Option<&'a ErrorQpAges>,
    /// Leak suspects judged from the history; `None` when no history is kept.
    pub leak_suspects: Option<&'a [LeakSuspect]>,
}

/// One owner and type whose count keeps rising.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakSuspect {
    /// Empty for kernel owners and the unattributed bucket.
    pub pid: String,
    pub name: String,
    pub resource: ResourceType,
}

pub fn render(input: &RenderInput<'_>, format: Format) -> String {
    render_with(input, format, &OwnerOptions::default())
}

/// [`render`] with per-owner series made as `owners` says (grouping, `pid` label).
pub fn render_with(input: &RenderInput<'_>, format: Format, owners: &OwnerOptions) -> String {
    render_with_problems(input, format, owners, None)
}

/// [`render_with`] and, when given, the problems list (`restop_problems`,
/// `restop_problem`), after the leak suspects.
pub fn render_with_problems(
    input: &RenderInput<'_>,
    format: Format,
    owners: &OwnerOptions,
    problems: Option<&[Problem]>,
) -> String {
    let mut w = Writer::new(format);
    write_health(&mut w, input.health);
    if let Some(snapshot) = input.snapshot {
        write_snapshot_warnings(&mut w, snapshot);
        let devices = grouped_order(&snapshot.devices);
        write_device_info(&mut w, &devices);
        write_ports(&mut w, &devices);
        write_usage(&mut w, &devices);
        write_limits_unread(&mut w, &devices);
        write_qp_states(&mut w, snapshot, &devices);
        super::counter_families::write_counters(&mut w, &devices);
        super::counter_families::write_bound_counters(&mut w, snapshot, owners.pid_label);
        let netns = NetnsByName::of(snapshot);
        if let Some(ages) = input.error_qp_ages {
            write_error_qp_ages(&mut w, ages, &netns);
        }
        if let Some(suspects) = input.leak_suspects {
            write_leak_suspects(&mut w, suspects, owners.pid_label);
        }
        if let Some(problems) = problems {
            write_problems(&mut w, problems, &netns);
        }
        write_owners(
            &mut w,
            &consumers(snapshot, &Filter::default()),
            input.top,
            owners,
        );
    } else if let Some(problems) = problems {
        // A failed collection: health and the problem that says so (of no device).
        write_problems(&mut w, problems, &NetnsByName::default());
    }
    w.finish()
}

/// `restop_problem` series at most: a host with hundreds of broken owners
/// still exposes a bounded document (`restop_problems` counts them all).
const MAX_PROBLEM_SERIES: usize = 100;

/// Counts by severity, then one series per problem and device it is on, in
/// rank order (an owner's ERROR QPs on two devices are two series, so an
/// alert routes by device as it does for a device's own problems). Labels
/// carry no pid, so a restarted process does not start new series; problems
/// that then coincide are one series (the value is 1 either way).
fn write_problems(w: &mut Writer, problems: &[Problem], netns: &NetnsByName<'_>) {
    for (severity, n) in counts(problems) {
        w.sample(&catalog::PROBLEMS, &[severity.name()], n as u64);
    }
    let mut written = std::collections::BTreeSet::new();
    for p in problems {
        let port = p.subject.port().map(|p| p.to_string()).unwrap_or_default();
        let name = match &p.subject {
            Subject::Owner { owner } => owner_name_without_pid(&p.subject_name, owner),
            Subject::Cgroup { cgroup, .. } => cgroup.clone(),
            _ => String::new(),
        };
        let mut devices = p.devices();
        if devices.is_empty() {
            devices.push("");
        }
        for device in devices {
            if written.len() >= MAX_PROBLEM_SERIES {
                return;
            }
            let detail = p.detail.as_deref().unwrap_or_default();
            let key = [p.kind.name(), p.severity.name(), p.subject.kind(), device]
                .map(String::from)
                .into_iter()
                .chain([port.clone(), name.clone(), detail.to_string()]);
            if !written.insert(key.collect::<Vec<_>>()) {
                continue;
            }
            let labels = [
                ("kind", p.kind.name()),
                ("severity", p.severity.name()),
                ("subject", p.subject.kind()),
                ("port", port.as_str()),
                ("name", name.as_str()),
                ("detail", detail),
            ];
            w.device_sample(&catalog::PROBLEM, &netns.labels(device), &labels, 1u64);
        }
    }
}

/// `leaky_svc (pid 3377)` is `leaky_svc`.
fn owner_name_without_pid(name: &str, owner: &crate::model::OwnerKey) -> String {
    match owner.pid() {
        Some(pid) => name
            .strip_suffix(&format!(" (pid {pid})"))
            .unwrap_or(name)
            .to_string(),
        None => name.to_string(),
    }
}

fn write_health(w: &mut Writer, h: &Health) {
    use super::build_info::{REVISION, RUSTC_VERSION, TARGET, VERSION};
    w.sample(
        &catalog::BUILD_INFO,
        &[VERSION, REVISION, RUSTC_VERSION, TARGET],
        1u64,
    );
    w.sample(
        &catalog::UP,
        &[health::source_name(h.source)],
        u64::from(h.up),
    );
    if let Some(present) = h.rdma_present {
        w.sample(&catalog::RDMA_PRESENT, &[], u64::from(present));
    }
    w.sample(&catalog::COLLECTIONS, &[], h.collections);
    for (kind, n) in &h.errors {
        w.sample(&catalog::COLLECTION_ERRORS, &[kind], *n);
    }
    w.sample(
        &catalog::COLLECTION_DURATION,
        &[],
        h.last_duration.as_secs_f64(),
    );
    if let Some(at) = h.last_success {
        w.sample(&catalog::LAST_SUCCESS, &[], at.as_u64() as f64 / 1000.0);
    }
}

fn write_snapshot_warnings(w: &mut Writer, snapshot: &Snapshot) {
    for kind in health::warning_kinds() {
        let n = snapshot
            .meta
            .warnings
            .iter()
            .filter(|warning| warning.kind == kind)
            .count();
        w.sample(
            &catalog::SNAPSHOT_WARNINGS,
            &[health::warning_kind_name(kind)],
            n as u64,
        );
    }
}

/// `netns` and `pod` (whose namespace it is, when known) only on a device of
/// another network namespace (`device_labels.rs`): `pod` is a fact of the
/// device, joined to its other series on `device` and `netns`.
fn write_device_info(w: &mut Writer, devices: &[&Device]) {
    for d in devices {
        let pod = d
            .netns
            .as_ref()
            .and_then(|ns| ns.owner.as_ref()?.pod.as_deref());
        let mut labels = vec![
            ("node_type", d.node_type.as_deref().unwrap_or("")),
            ("protocol", d.protocol.as_deref().unwrap_or("")),
            ("pf", d.pf.as_deref().unwrap_or("")),
            ("pci", d.pci.as_deref().unwrap_or("")),
            ("firmware_version", d.fw_version.as_deref().unwrap_or("")),
        ];
        if let Some(pod) = pod {
            labels.push(("pod", pod));
        }
        w.device_sample(&catalog::DEVICE_INFO, &DeviceLabels::of(d), &labels, 1u64);
    }
}

fn write_ports(w: &mut Writer, devices: &[&Device]) {
    for d in devices {
        let device = DeviceLabels::of(d);
        for port in &d.ports {
            let active = port.state == Some(PortState::Active);
            let index = port.index.to_string();
            let labels = [
                ("port", index.as_str()),
                ("netdev", port.netdev.as_deref().unwrap_or("")),
            ];
            w.device_sample(&catalog::PORT_ACTIVE, &device, &labels, u64::from(active));
        }
    }
}

fn write_usage(w: &mut Writer, devices: &[&Device]) {
    let devices: Vec<(&Device, DeviceLabels)> =
        devices.iter().map(|d| (*d, DeviceLabels::of(d))).collect();
    // Types missing from a device's summary (older kernels) are left out, never zero.
    for (d, device) in &devices {
        for (t, entry) in &d.usage.0 {
            let labels = [("type", t.name())];
            w.device_sample(&catalog::RESOURCES, device, &labels, entry.current);
        }
    }
    for (d, device) in &devices {
        for (t, entry) in &d.usage.0 {
            if let Some(max) = entry.max {
                let labels = [("type", t.name())];
                w.device_sample(&catalog::RESOURCES_MAX, device, &labels, max);
            }
        }
    }
    for (d, device) in &devices {
        for (t, entry) in &d.usage.0 {
            if let Some(ratio) = entry.ratio() {
                let labels = [("type", t.name())];
                w.device_sample(&catalog::RESOURCES_USAGE, device, &labels, ratio);
            }
        }
    }
}

/// Why a device's maxima are missing, so that absent usage ratios (and limit
/// alerts that cannot fire) are explained, not silent.
fn write_limits_unread(w: &mut Writer, devices: &[&Device]) {
    for d in devices {
        if let Some(reason) = d.limits_unread {
            let labels = [("reason", reason.name())];
            w.device_sample(
                &catalog::DEVICE_LIMITS_UNREAD,
                &DeviceLabels::of(d),
                &labels,
                1u64,
            );
        }
    }
}

/// QP states come from the object dumps (the summary has no states), so a
/// device whose objects were never dumped has no state series.
fn write_qp_states(w: &mut Writer, snapshot: &Snapshot, devices: &[&Device]) {
    let mut per_device = crate::model::device::qp_states_by_device(snapshot);
    let dumped: Vec<(DeviceLabels, StateCounts)> = devices
        .iter()
        .filter(|d| d.objects.collected_at_ms.is_some())
        .map(|d| {
            let states = per_device.remove(&d.index).unwrap_or_default();
            (DeviceLabels::of(d), states)
        })
        .collect();
    for (d, states) in &dumped {
        for state in QpState::KNOWN {
            let labels = [("state", state.name())];
            w.device_sample(&catalog::QUEUE_PAIRS, d, &labels, states.get(state));
        }
        let unknown: u64 = states
            .iter()
            .filter(|(s, _)| matches!(s, QpState::Unknown(_)))
            .map(|(_, n)| n)
            .sum();
        if unknown > 0 {
            let labels = [("state", "UNKNOWN")];
            w.device_sample(&catalog::QUEUE_PAIRS, d, &labels, unknown);
        }
    }
    for (d, states) in &dumped {
        w.device_sample(&catalog::ERROR_QUEUE_PAIRS, d, &[], states.errors());
    }
}

fn write_error_qp_ages(w: &mut Writer, ages: &ErrorQpAges, netns: &NetnsByName<'_>) {
    for (device, age) in ages {
        w.device_sample(
            &catalog::ERROR_QUEUE_PAIR_OLDEST_AGE,
            &netns.labels(device),
            &[],
            age.as_secs_f64(),
        );
    }
}

/// One series per suspect owner and type; without `pid_label`, per name and type (suspects
/// that then coincide are one series: the value is 1 either way).
fn write_leak_suspects(w: &mut Writer, suspects: &[LeakSuspect], pid_label: bool) {
    w.sample(&catalog::LEAK_SUSPECTS, &[], suspects.len() as u64);
    let mut written = std::collections::BTreeSet::new();
    for s in suspects {
        let pid = if pid_label { s.pid.as_str() } else { "" };
        if !written.insert((pid, s.name.as_str(), s.resource)) {
            continue;
        }
        let mut labels = vec![("pid", pid), ("name", s.name.as_str())];
        if !pid_label {
            labels.remove(0);
        }
        labels.push(("type", s.resource.name()));
        w.sample_labeled(&catalog::PROCESS_LEAK_SUSPECT, &labels, 1u64);
    }
}

fn write_owners(w: &mut Writer, rows: &[Consumer], top: usize, owners: &OwnerOptions) {
    // Grouped and labelled once for the eight rankings.
    let labelled = LabelledOwners::of(rows, owners);
    for t in ResourceType::ALL {
        let ranked = labelled.top_by(top, |c| c.counts.get(t));
        write_ranked(
            w,
            &catalog::PROCESS_RESOURCES,
            &ranked,
            Some(t.name()),
            owners,
        );
    }
    let ranked = labelled.top_by(top, |c| c.mr_bytes);
    write_ranked(w, &catalog::PROCESS_MR_BYTES, &ranked, None, owners);
}

/// The top owners, then the remainder (always written, 0 included, so the
/// series does not come and go).
fn write_ranked(
    w: &mut Writer,
    family: &'static catalog::Family,
    ranked: &Ranked,
    type_label: Option<&str>,
    owners: &OwnerOptions,
) {
    let other = OwnerLabels::other();
    let rows = ranked
        .top
        .iter()
        .map(|(labels, v)| (labels, *v))
        .chain(std::iter::once((&other, ranked.other)));
    for (labels, value) in rows {
        let mut pairs = labels.pairs(owners.pid_label);
        if let Some(t) = type_label {
            pairs.push(("type", t));
        }
        w.sample_labeled(family, &pairs, value);
    }
}
