//! `limit` warnings: resources at or past the warning threshold, on devices
//! and in cgroup `rdma` quotas. The readings (`DeviceLimit`, `CgroupLimit`)
//! are shared by the warnings and the problems list (`model/problems/`).

use super::super::consumers::owner_label;
use super::super::device::Device;
use super::super::owner::{OwnerKey, ProcessInfo};
use super::super::resource::ResourceType;
use super::super::snapshot::{Snapshot, Warning, WarningKind};
use super::thresholds::{Level, Thresholds};
use crate::units::{count, percent};
use std::collections::BTreeSet;

/// One resource of one device at or past the warning threshold: the
/// reading `limit` warnings and the problems list both format.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceLimit {
    pub device: String,
    pub resource: ResourceType,
    pub ratio: f64,
    pub current: u64,
    pub max: u64,
    pub level: Level,
    /// The largest holder, with the share of the current count it holds,
    /// when the object dumps know it.
    pub holder: Option<(OwnerKey, String, f64)>,
}

/// Every device resource at or above `thresholds.warn`, in the order the
/// devices are given, types in display order.
pub fn device_limits(
    snapshot: &Snapshot,
    devices: &[&Device],
    thresholds: &Thresholds,
) -> Vec<DeviceLimit> {
    let mut out = Vec::new();
    for device in devices {
        for t in ResourceType::ALL {
            let Some(entry) = device.usage.get(t) else {
                continue;
            };
            let (Some(ratio), Some(max)) = (entry.ratio(), entry.max) else {
                continue;
            };
            let level = thresholds.level(ratio);
            if level == Level::Normal {
                continue;
            }
            let holder = top_holder(snapshot, device.index, t)
                .filter(|_| entry.current > 0)
                .map(|(owner, held)| {
                    let share = (held as f64 / entry.current as f64).min(1.0);
                    let process = match &owner {
                        OwnerKey::Process(key) => snapshot.process(key),
                        _ => None,
                    };
                    let name = owner_label(&owner, process);
                    let who = match owner.pid() {
                        Some(pid) => format!("{name} (pid {pid})"),
                        None => name,
                    };
                    (owner, who, share)
                });
            out.push(DeviceLimit {
                device: device.name.clone(),
                resource: t,
                ratio,
                current: entry.current,
                max,
                level,
                holder,
            });
        }
    }
    out
}

impl DeviceLimit {
    /// `mlx5_3 mr at 96% of max (7840/8192, critical); finetune.py (pid 26730) holds 100%`.
    pub fn message(&self) -> String {
        let mut message = format!(
            "{} {} at {} of max ({}/{}, {})",
            self.device,
            self.resource.name(),
            percent(self.ratio),
            count(self.current),
            count(self.max),
            self.level.name()
        );
        if let Some((_, who, share)) = &self.holder {
            message.push_str(&format!("; {who} holds {}", percent(*share)));
        }
        message
    }
}

/// One warning per device and type at or above `thresholds.warn`, in the
/// order the devices are given, types in display order, naming the largest
/// holder when the object dumps know it:
/// `mlx5_3 mr at 96% of max (7840/8192, critical); finetune.py (pid 26730) holds 100%`.
pub fn device_warnings(
    snapshot: &Snapshot,
    devices: &[&Device],
    thresholds: &Thresholds,
) -> Vec<Warning> {
    device_limits(snapshot, devices, thresholds)
        .iter()
        .map(|l| Warning::new(WarningKind::Limit, l.message()))
        .collect()
}

/// The owner holding most objects of type `t` on a device (ties: the first
/// in owner order, so the message is stable).
fn top_holder(snapshot: &Snapshot, device: u32, t: ResourceType) -> Option<(OwnerKey, u64)> {
    let mut best: Option<(&OwnerKey, u64)> = None;
    for tally in snapshot.tallies.iter().filter(|x| x.device == device) {
        let n = tally.counts.get(t);
        let better = match best {
            None => n > 0,
            Some((owner, m)) => n > m || (n == m && &tally.owner < owner),
        };
        if better {
            best = Some((&tally.owner, n));
        }
    }
    best.map(|(o, n)| (o.clone(), n))
}

/// One cgroup `rdma` quota at or past the warning threshold, with the
/// first process it binds.
#[derive(Clone, Debug, PartialEq)]
pub struct CgroupLimit {
    pub cgroup: String,
    pub device: String,
    /// `hca_handle` or `hca_object`.
    pub resource: &'static str,
    pub ratio: f64,
    pub current: u64,
    pub max: u64,
    pub level: Level,
    pub process: OwnerKey,
}

impl CgroupLimit {
    /// `cgroup /pod1: hca_object on mlx5_0 at 99% of rdma.max (1990/2000, critical)`.
    pub fn message(&self) -> String {
        format!(
            "cgroup {}: {} on {} at {} of rdma.max ({}/{}, {})",
            self.cgroup,
            self.resource,
            self.device,
            percent(self.ratio),
            count(self.current),
            count(self.max),
            self.level.name()
        )
    }
}

/// Every limited cgroup quota at or above `thresholds.warn`, each once
/// however many processes it binds.
pub fn cgroup_limits<'a>(
    processes: impl IntoIterator<Item = &'a ProcessInfo>,
    thresholds: &Thresholds,
) -> Vec<CgroupLimit> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for p in processes {
        let Some(cgroup) = p.rdma_cgroup.as_ref() else {
            continue;
        };
        for (device, quota) in &cgroup.devices {
            for (resource, q) in [
                ("hca_handle", &quota.hca_handle),
                ("hca_object", &quota.hca_object),
            ] {
                let (Some(ratio), Some(max)) = (q.ratio(), q.max) else {
                    continue;
                };
                let level = thresholds.level(ratio);
                if level == Level::Normal || !seen.insert((q.cgroup.clone(), device, resource)) {
                    continue;
                }
                out.push(CgroupLimit {
                    cgroup: q.cgroup.clone(),
                    device: device.clone(),
                    resource,
                    ratio,
                    current: q.current,
                    max,
                    level,
                    process: OwnerKey::Process(p.key),
                });
            }
        }
    }
    out
}

/// One warning per limited cgroup quota at or above `thresholds.warn`, each
/// said once however many processes it binds:
/// `cgroup /pod1: hca_object on mlx5_0 at 99% of rdma.max (1990/2000, critical)`.
pub fn cgroup_warnings<'a>(
    processes: impl IntoIterator<Item = &'a ProcessInfo>,
    thresholds: &Thresholds,
) -> Vec<Warning> {
    cgroup_limits(processes, thresholds)
        .iter()
        .map(|l| Warning::new(WarningKind::Limit, l.message()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::limits::{DeviceQuota, Quota, RdmaCgroup};
    use crate::model::{ProcessKey, UsageEntry};

    fn device(name: &str, usage: &[(ResourceType, u64, Option<u64>)]) -> Device {
        let mut d = Device::new(0, name);
        for (t, current, max) in usage {
            d.usage.set(
                *t,
                UsageEntry {
                    current: *current,
                    max: *max,
                    max_source: None,
                },
            );
        }
        d
    }

    #[test]
    fn warns_at_and_above_the_thresholds_only() {
        let a = device(
            "mlx5_2",
            &[
                (ResourceType::Qp, 1711, Some(2048)),
                (ResourceType::Mr, 10, Some(2048)),
                (ResourceType::CmId, 5000, None),
            ],
        );
        let b = device("mlx5_3", &[(ResourceType::Mr, 7840, Some(8192))]);
        let snapshot = empty_snapshot();
        let w = device_warnings(&snapshot, &[&a, &b], &Thresholds::default());
        let messages: Vec<&str> = w.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "mlx5_2 qp at 84% of max (1711/2048, warning)",
                "mlx5_3 mr at 96% of max (7840/8192, critical)"
            ]
        );
        assert!(w.iter().all(|w| w.kind == WarningKind::Limit));
        let strict = Thresholds::from_percent(97.0, 99.0).unwrap();
        assert!(device_warnings(&snapshot, &[&a, &b], &strict).is_empty());
    }

    fn empty_snapshot() -> Snapshot {
        Snapshot::empty(crate::model::SourceKind::Replay, crate::model::UnixMs(0))
    }

    #[test]
    fn the_largest_holder_is_named() {
        let d = device("mlx5_3", &[(ResourceType::Mr, 100, Some(100))]);
        let key = ProcessKey {
            pid: 26730,
            start_time: 1,
        };
        let mut p = ProcessInfo::unknown(key);
        p.comm = "pt_main_thread".into();
        p.cmdline = vec!["python3".into(), "finetune.py".into()];
        let mut snapshot = empty_snapshot();
        snapshot.processes.push(p);
        let tally = |owner: OwnerKey, n| {
            let mut t = crate::model::Tally::new(owner, 0);
            t.counts.add(ResourceType::Mr, n);
            t
        };
        snapshot.tallies = vec![
            tally(OwnerKey::Kernel("ib_core".into()), 10),
            tally(OwnerKey::Process(key), 90),
        ];
        let w = device_warnings(&snapshot, &[&d], &Thresholds::default());
        assert_eq!(
            w[0].message,
            "mlx5_3 mr at 100% of max (100/100, critical); finetune.py (pid 26730) holds 90%"
        );
    }

    #[test]
    fn a_shared_cgroup_quota_is_told_once() {
        let quota = |current, max| Quota {
            current,
            max,
            cgroup: "/pod1".into(),
        };
        let cgroup = RdmaCgroup {
            path: "/pod1/c1".into(),
            devices: [(
                "mlx5_0".to_string(),
                DeviceQuota {
                    hca_handle: quota(2, Some(2)),
                    hca_object: quota(10, Some(2000)),
                },
            )]
            .into_iter()
            .collect(),
        };
        let mut p1 = ProcessInfo::unknown(ProcessKey {
            pid: 1,
            start_time: 1,
        });
        p1.rdma_cgroup = Some(Box::new(cgroup));
        let mut p2 = p1.clone();
        p2.key.pid = 2;
        let w = cgroup_warnings([&p1, &p2], &Thresholds::default());
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].message,
            "cgroup /pod1: hca_handle on mlx5_0 at 100% of rdma.max (2/2, critical)"
        );
    }
}
