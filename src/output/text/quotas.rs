//! The cgroup quotas section: which `rdma.max` limits bind the listed
//! processes, how full they are, and who is under them. Shown only when some
//! process has a quota, so hosts without the rdma controller see nothing new.

use super::layout::{clean, wrap_units};
use crate::model::consumers::Consumer;
use crate::model::limits::Quota;
use crate::units::{count, percent};
use std::collections::BTreeMap;

/// `(limiting cgroup, device, resource)` → the quota and its processes.
type Binding<'a> = BTreeMap<(String, String, &'static str), (&'a Quota, Vec<String>)>;

pub(super) fn quotas(consumers: &[Consumer], width: usize) -> Vec<String> {
    let mut bindings: Binding<'_> = BTreeMap::new();
    for c in consumers {
        let (Some(pid), Some(cgroup)) = (
            c.pid(),
            c.process.as_ref().and_then(|p| p.rdma_cgroup.as_ref()),
        ) else {
            continue;
        };
        for (device, q) in &cgroup.devices {
            for (resource, quota) in [("hca_handle", &q.hca_handle), ("hca_object", &q.hca_object)]
            {
                if quota.max.is_none() {
                    continue;
                }
                let entry = bindings
                    .entry((quota.cgroup.clone(), device.clone(), resource))
                    .or_insert((quota, Vec::new()));
                entry.1.push(format!("{pid} {}", clean(&c.name)));
            }
        }
    }
    if bindings.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!("CGROUP RDMA QUOTAS ({})", bindings.len())];
    for ((cgroup, device, resource), (quota, holders)) in &bindings {
        let used = match (quota.max, quota.ratio()) {
            (Some(max), Some(ratio)) => format!(
                "{}/{} ({})",
                count(quota.current),
                count(max),
                percent(ratio)
            ),
            _ => count(quota.current),
        };
        let head = vec![
            format!("{}:", clean(cgroup)),
            format!("{} {resource} {used}", clean(device)),
        ];
        lines.extend(wrap_units("  ", "    ", &head, " ", width));
        let mut units = vec!["under".to_string()];
        units.extend(holders.iter().map(|h| format!("{h},")));
        if let Some(last) = units.last_mut() {
            last.pop();
        }
        lines.extend(wrap_units("    ", "      ", &units, " ", width));
    }
    lines
}
