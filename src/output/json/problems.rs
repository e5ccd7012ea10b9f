//! The `problems` array of the `--json` document and of every `--batch
//! --json` line (docs/json.md, "problems[]"): the model's problems
//! (`model/problems/`) as readers of the document see them, in rank order.

use crate::model::problems::{Opens, Problem, Subject};
use crate::model::{OwnerKey, UnixMs};
use crate::output::rfc3339;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ProblemView {
    pub severity: &'static str,
    pub kind: &'static str,
    pub subject: SubjectView,
    pub detail: Option<String>,
    pub since: String,
    pub since_ms: UnixMs,
    pub age_s: f64,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    pub unit: &'static str,
    pub why: String,
    pub opens: OpensView,
}

/// What a problem is about; keys that do not apply to its kind are `null`.
#[derive(Debug, Serialize)]
pub struct SubjectView {
    /// `host`, `device`, `port`, `process`, `kernel`, `unattributed`, `cgroup`.
    pub kind: &'static str,
    pub name: String,
    pub device: Option<String>,
    pub port: Option<u32>,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    pub cgroup: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct OpensView {
    /// `device`, `port_counters`, `owner`, `error_qps`, `nothing`.
    pub kind: &'static str,
    pub device: Option<String>,
    pub port: Option<u32>,
    /// The owner whose drill-down or ERROR QPs it opens.
    pub owner: Option<OwnerView>,
}

#[derive(Debug, Serialize)]
pub struct OwnerView {
    /// `process`, `kernel` or `unattributed`.
    pub kind: &'static str,
    pub pid: Option<u32>,
    pub start_time: Option<u64>,
    /// The kernel module, for a kernel owner.
    pub module: Option<String>,
}

/// Every problem's view, as of `at_ms` (the snapshot's time).
pub(crate) fn problems(problems: &[Problem], at_ms: UnixMs) -> Vec<ProblemView> {
    problems.iter().map(|p| view(p, at_ms)).collect()
}

fn view(p: &Problem, at_ms: UnixMs) -> ProblemView {
    ProblemView {
        severity: p.severity.name(),
        kind: p.kind.name(),
        subject: subject(&p.subject, &p.subject_name),
        detail: p.detail.clone(),
        since: rfc3339::from_unix_ms(p.since_ms),
        since_ms: p.since_ms,
        age_s: at_ms.since(p.since_ms).as_secs_f64(),
        value: p.value,
        threshold: p.threshold,
        unit: p.unit,
        why: p.why.clone(),
        opens: opens(&p.opens),
    }
}

fn subject(s: &Subject, name: &str) -> SubjectView {
    let owner = s.owner().map(owner);
    SubjectView {
        kind: s.kind(),
        name: name.to_string(),
        device: s.device().map(str::to_string),
        port: s.port(),
        pid: owner.as_ref().and_then(|o| o.pid),
        start_time: owner.as_ref().and_then(|o| o.start_time),
        cgroup: match s {
            Subject::Cgroup { cgroup, .. } => Some(cgroup.clone()),
            _ => None,
        },
    }
}

fn opens(o: &Opens) -> OpensView {
    let (device, port, who) = match o {
        Opens::Device { device } => (Some(device.clone()), None, None),
        Opens::PortCounters { device, port } => (Some(device.clone()), Some(*port), None),
        Opens::Owner { owner: o } | Opens::ErrorQps { owner: o } => (None, None, Some(owner(o))),
        Opens::Nothing => (None, None, None),
    };
    OpensView {
        kind: o.name(),
        device,
        port,
        owner: who,
    }
}

fn owner(o: &OwnerKey) -> OwnerView {
    match o {
        OwnerKey::Process(k) => OwnerView {
            kind: "process",
            pid: Some(k.pid),
            start_time: Some(k.start_time),
            module: None,
        },
        OwnerKey::Kernel(name) => OwnerView {
            kind: "kernel",
            pid: None,
            start_time: None,
            module: Some(name.clone()),
        },
        OwnerKey::Unattributed => OwnerView {
            kind: "unattributed",
            pid: None,
            start_time: None,
            module: None,
        },
    }
}
