//! restop's `--json` document, read into the shapes of [`super::rdma`] so the
//! two can be compared. Read leniently: a missing key is the schema check's
//! business, here it just counts as empty.

use super::rdma::{ErrorQp, TYPES, Tally};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
pub struct ProcessRow {
    pub name: String,
    pub comm: String,
    /// (tid, comm) of creating threads other than the main thread.
    pub threads: Vec<(u32, String)>,
    pub tally: Tally,
}

#[derive(Clone, Debug, Default)]
pub struct RestopView {
    /// Device names, in restop's order.
    pub devices: Vec<String>,
    /// `meta.hidden_fields`.
    pub hidden_fields: Vec<String>,
    /// `meta.warnings` as (kind, message).
    pub warnings: Vec<(String, String)>,
    /// (device, type) → usage current.
    pub usage: BTreeMap<(String, String), u64>,
    /// (device, type) → usage max, where restop knows it.
    pub usage_max: BTreeMap<(String, String), u64>,
    /// pid → row; a pid listed twice is recorded in `duplicate_pids`.
    pub processes: BTreeMap<u32, ProcessRow>,
    pub duplicate_pids: Vec<u32>,
    pub kernel: BTreeMap<String, Tally>,
    pub unattributed: Tally,
    pub error_qps: BTreeSet<ErrorQp>,
    /// lqpn and device → the `owner` label restop gave the error QP.
    pub error_qp_owner: BTreeMap<(String, u64), String>,
}

fn tally(v: &Value) -> Tally {
    let mut t = Tally::default();
    for kind in TYPES {
        if let Some(n) = v
            .pointer(&format!("/counts/{kind}"))
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
        {
            t.counts.insert(kind.to_string(), n);
        }
    }
    t.mr_bytes = v.get("mr_bytes").and_then(Value::as_u64).unwrap_or(0);
    if let Some(states) = v.get("qp_states").and_then(Value::as_object) {
        for (state, n) in states {
            if let Some(n) = n.as_u64().filter(|n| *n > 0) {
                t.qp_states.insert(state.clone(), n);
            }
        }
    }
    for dev in v
        .get("devices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(dev) = dev.as_str() {
            t.devices.insert(dev.to_string());
        }
    }
    t
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

impl RestopView {
    pub fn from_json(doc: &Value) -> RestopView {
        let mut view = RestopView::default();
        let list = |key: &str| {
            doc.get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        if let Some(meta) = doc.get("meta") {
            view.hidden_fields = meta
                .get("hidden_fields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect();
            view.warnings = meta
                .get("warnings")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|w| (str_of(w, "kind"), str_of(w, "message")))
                .collect();
        }
        for dev in list("devices") {
            let name = str_of(&dev, "name");
            view.devices.push(name.clone());
            for kind in TYPES {
                let usage = dev.pointer(&format!("/usage/{kind}"));
                if let Some(cur) = usage.and_then(|u| u.get("current")).and_then(Value::as_u64) {
                    view.usage.insert((name.clone(), kind.to_string()), cur);
                }
                if let Some(max) = usage.and_then(|u| u.get("max")).and_then(Value::as_u64) {
                    view.usage_max.insert((name.clone(), kind.to_string()), max);
                }
            }
        }
        for p in list("processes") {
            let Some(pid) = p
                .get("pid")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
            else {
                continue;
            };
            let threads = p
                .get("threads")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| {
                    let tid = t.get("tid").and_then(Value::as_u64)?;
                    Some((u32::try_from(tid).ok()?, str_of(t, "comm")))
                })
                .collect();
            let row = ProcessRow {
                name: str_of(&p, "name"),
                comm: str_of(&p, "comm"),
                threads,
                tally: tally(&p),
            };
            if view.processes.insert(pid, row).is_some() {
                view.duplicate_pids.push(pid);
            }
        }
        for k in list("kernel") {
            view.kernel.insert(str_of(&k, "name"), tally(&k));
        }
        if let Some(u) = doc.get("unattributed") {
            view.unattributed = tally(u);
        }
        for q in list("error_qps") {
            let dev = str_of(&q, "device");
            let lqpn = q.get("lqpn").and_then(Value::as_u64).unwrap_or(u64::MAX);
            let pid = q
                .get("pid")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok());
            view.error_qp_owner
                .insert((dev.clone(), lqpn), str_of(&q, "owner"));
            view.error_qps.insert(ErrorQp { dev, lqpn, pid });
        }
        view
    }

    /// Whether a warning of `kind` was given.
    pub fn warned(&self, kind: &str) -> bool {
        self.warnings.iter().any(|(k, _)| k == kind)
    }

    /// The per-type sum over every owner row (processes, kernel, unattributed).
    pub fn total(&self, kind: &str) -> u64 {
        self.processes
            .values()
            .map(|p| p.tally.count(kind))
            .sum::<u64>()
            + self.kernel.values().map(|k| k.count(kind)).sum::<u64>()
            + self.unattributed.count(kind)
    }
}
