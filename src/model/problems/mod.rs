//! What is wrong on the host: one ranked list of problems, built once per
//! snapshot from what the history and the snapshot already say, so every
//! front end (the interactive view, `--once`, `--json`, `--batch`, the
//! exporter) lists the same problems in the same order.
//!
//! Each problem has a severity, a kind, a subject (the host, a device, a
//! port, an owner, a cgroup), when it was first seen, the value that raised
//! it and the threshold it crossed, a one-line why, and what it opens (the
//! subject as a plain enum, for a view to map to a screen). The rules that
//! raise them are in `raise.rs`, their thresholds in `rules.rs`; none of the
//! readings is made here: usage comes from `model/limits`, leak verdicts,
//! ERROR-QP ages and the alerts from `model/history`, counter alerts from
//! `model/history/counter_rates.rs`. The history remembers when each problem was
//! first seen (`history/alert_ages.rs`), so a problem keeps its `since`
//! while it lasts and starts again when it comes back.

mod netdev;
#[cfg(test)]
mod netdev_tests;
mod raise;
mod rules;
#[cfg(test)]
mod tests;

pub use raise::{Input, raise};
pub use rules::ProblemRules;

use crate::model::filter::Filter;
use crate::model::{OwnerKey, UnixMs};
use std::cmp::Ordering;

/// How bad a problem is. Ordered: `Critical` is the greatest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth a look; nothing is failing yet.
    Notice,
    /// Something is failing or filling up.
    Warning,
    /// Something has failed or is about to run out.
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Critical, Severity::Warning, Severity::Notice];

    /// `critical`, `warning`, `notice`: JSON, metric labels, reports.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Notice => "notice",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// What kind of problem it is: one rule each (docs/user-guide.md, "Problems").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProblemKind {
    /// A device resource or a cgroup quota past `--warn`/`--crit`.
    Limit,
    /// An owner's count keeps rising over the trend window (the leak verdict).
    LeakSuspect,
    /// A process's count rose steadily, not (yet) a leak suspect.
    RisingOwner,
    /// A kernel owner's count keeps rising.
    KernelOwnerGrowing,
    /// QPs of one owner in ERR/SQE, escalating the longer they stay.
    ErrorQps,
    /// A NIC error counter keeps rising (retransmits, sequence errors, RNR NAKs, ...).
    NicErrors,
    /// Congestion counters (CNPs, ECN marks) keep rising.
    Congestion,
    /// The link went down (`link_downed` stepped).
    LinkFlap,
    /// A port that was ACTIVE is not.
    PortNotActive,
    /// A RoCE port's netdev sends or receives pause frames in a storm (PFC or 802.3x).
    PauseStorm,
    /// A RoCE port's netdev discards packets (`rx_discards_phy`, drops).
    NetdevDiscards,
    /// Objects whose owner could not be found.
    Unattributed,
    /// A process exited and its objects stayed behind.
    LeftBehind,
    /// Part of the collection failed (an object dump, a vanished device).
    CollectionPartial,
    /// The collection failed as a whole.
    CollectionFailed,
}

impl ProblemKind {
    pub const ALL: [ProblemKind; 15] = [
        ProblemKind::Limit,
        ProblemKind::LeakSuspect,
        ProblemKind::RisingOwner,
        ProblemKind::KernelOwnerGrowing,
        ProblemKind::ErrorQps,
        ProblemKind::NicErrors,
        ProblemKind::Congestion,
        ProblemKind::LinkFlap,
        ProblemKind::PortNotActive,
        ProblemKind::PauseStorm,
        ProblemKind::NetdevDiscards,
        ProblemKind::Unattributed,
        ProblemKind::LeftBehind,
        ProblemKind::CollectionPartial,
        ProblemKind::CollectionFailed,
    ];

    /// The name in JSON, metric labels and reports.
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Limit => "limit",
            ProblemKind::LeakSuspect => "leak_suspect",
            ProblemKind::RisingOwner => "rising_owner",
            ProblemKind::KernelOwnerGrowing => "kernel_owner_growing",
            ProblemKind::ErrorQps => "error_qps",
            ProblemKind::NicErrors => "nic_errors",
            ProblemKind::Congestion => "congestion",
            ProblemKind::LinkFlap => "link_flap",
            ProblemKind::PortNotActive => "port_not_active",
            ProblemKind::PauseStorm => "pause_storm",
            ProblemKind::NetdevDiscards => "netdev_discards",
            ProblemKind::Unattributed => "unattributed",
            ProblemKind::LeftBehind => "left_behind",
            ProblemKind::CollectionPartial => "collection_partial",
            ProblemKind::CollectionFailed => "collection_failed",
        }
    }
}

/// What a problem is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// The host as a whole (the collection).
    Host,
    Device {
        device: String,
    },
    Port {
        device: String,
        port: u32,
    },
    /// A process, a kernel owner or the unattributed row.
    Owner {
        owner: OwnerKey,
    },
    /// A cgroup `rdma` quota on one device.
    Cgroup {
        cgroup: String,
        device: String,
    },
}

impl Subject {
    /// `host`, `device`, `port`, `process`, `kernel`, `unattributed`, `cgroup`.
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Host => "host",
            Subject::Device { .. } => "device",
            Subject::Port { .. } => "port",
            Subject::Owner {
                owner: OwnerKey::Process(_),
            } => "process",
            Subject::Owner {
                owner: OwnerKey::Kernel(_),
            } => "kernel",
            Subject::Owner {
                owner: OwnerKey::Unattributed,
            } => "unattributed",
            Subject::Cgroup { .. } => "cgroup",
        }
    }

    /// The device it is on, when it is on one.
    pub fn device(&self) -> Option<&str> {
        match self {
            Subject::Device { device }
            | Subject::Port { device, .. }
            | Subject::Cgroup { device, .. } => Some(device),
            _ => None,
        }
    }

    pub fn port(&self) -> Option<u32> {
        match self {
            Subject::Port { port, .. } => Some(*port),
            _ => None,
        }
    }

    pub fn owner(&self) -> Option<&OwnerKey> {
        match self {
            Subject::Owner { owner } => Some(owner),
            _ => None,
        }
    }
}

/// What selecting a problem opens: its subject, named plainly; the
/// interactive view maps each to a screen.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Opens {
    /// The device view.
    Device { device: String },
    /// The counters of one port.
    PortCounters { device: String, port: u32 },
    /// The drill-down of an owner (a process, a kernel owner, the unattributed row).
    Owner { owner: OwnerKey },
    /// The ERROR-QP list, filtered to one owner.
    ErrorQps { owner: OwnerKey },
    /// Nothing more to show than the problem itself (the collection).
    Nothing,
}

impl Opens {
    /// `device`, `port_counters`, `owner`, `error_qps`, `nothing`.
    pub fn name(&self) -> &'static str {
        match self {
            Opens::Device { .. } => "device",
            Opens::PortCounters { .. } => "port_counters",
            Opens::Owner { .. } => "owner",
            Opens::ErrorQps { .. } => "error_qps",
            Opens::Nothing => "nothing",
        }
    }
}

/// One thing that is wrong. See the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub severity: Severity,
    pub kind: ProblemKind,
    pub subject: Subject,
    /// The subject's name for people: `mlx5_1 port 1`, `leaky_svc (pid 3377)`.
    pub subject_name: String,
    /// What of the subject, when a subject can have several of a kind: the
    /// counter (`out_of_sequence`), the resource type (`mr`), the quota
    /// (`hca_object`).
    pub detail: Option<String>,
    /// When it was first seen: the start the rule gave it on the first
    /// snapshot that raised it, kept while it lasts.
    pub since_ms: UnixMs,
    /// What raised it and the threshold it crossed, in `unit`; `None` when
    /// the rule has no number (a port not ACTIVE, a failed collection).
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// `ratio`, `per_second`, `seconds`, `objects`, `events`.
    pub unit: &'static str,
    /// One line for people, the subject included.
    pub why: String,
    pub opens: Opens,
    /// The devices it is on when its subject is not one: the devices of an
    /// owner's ERROR QPs (empty otherwise; `devices()` reads both).
    pub on_devices: Vec<String>,
}

/// What identifies one problem across snapshots: its kind, its subject and
/// what of the subject.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ProblemKey {
    pub kind: ProblemKind,
    pub subject: Subject,
    pub detail: Option<String>,
}

impl Problem {
    pub fn key(&self) -> ProblemKey {
        ProblemKey {
            kind: self.kind,
            subject: self.subject.clone(),
            detail: self.detail.clone(),
        }
    }

    /// The problem of a collection that failed as a whole: no snapshot says
    /// anything else (the interactive view and the exporter add it).
    pub fn collection_failed(message: &str, since_ms: UnixMs) -> Problem {
        Problem {
            severity: Severity::Critical,
            kind: ProblemKind::CollectionFailed,
            subject: Subject::Host,
            subject_name: "host".into(),
            detail: None,
            since_ms,
            value: None,
            threshold: None,
            unit: "events",
            why: format!("collection failed: {message}"),
            opens: Opens::Nothing,
            on_devices: Vec::new(),
        }
    }

    /// The devices it is on: its subject's device, else the devices it was
    /// raised on (an owner's ERROR QPs on two devices are on both); empty
    /// for a problem of no device.
    pub fn devices(&self) -> Vec<&str> {
        match self.subject.device() {
            Some(device) => vec![device],
            None => self.on_devices.iter().map(String::as_str).collect(),
        }
    }

    /// Whether a view under `filter` lists it: a device filter keeps the
    /// problems of the devices it shows (and those of no device), `--pid`
    /// those of that process (and those of no owner); a `--type` without
    /// QPs leaves the ERROR-QP problems out.
    pub fn shown_by(&self, filter: &Filter) -> bool {
        // With --type leaving QPs out, broken QPs are not what is asked about.
        if self.kind == ProblemKind::ErrorQps && !filter.shows_type(crate::model::ResourceType::Qp)
        {
            return false;
        }
        if let Some(device) = self.subject.device()
            && !filter.shows_device(device)
        {
            return false;
        }
        if let (Some(pid), Some(owner)) = (filter.pid, self.subject.owner())
            && owner.pid() != Some(pid)
        {
            return false;
        }
        true
    }
}

/// The list's order: most severe first, then the oldest, then by kind,
/// subject and detail, so problems of the same severity and age never swap
/// places between refreshes.
pub fn rank(problems: &mut [Problem]) {
    problems.sort_by(compare);
}

fn compare(a: &Problem, b: &Problem) -> Ordering {
    b.severity
        .cmp(&a.severity)
        .then(a.since_ms.cmp(&b.since_ms))
        .then_with(|| a.key().cmp(&b.key()))
}

/// Problems by severity, most severe first: `(critical, warning, notice)`.
pub fn counts(problems: &[Problem]) -> [(Severity, usize); 3] {
    Severity::ALL.map(|s| (s, problems.iter().filter(|p| p.severity == s).count()))
}
