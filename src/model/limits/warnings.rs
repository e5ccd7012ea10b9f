//! `limit` warnings: resources at or past the warning threshold, on devices
//! and in cgroup `rdma` quotas.

use super::super::device::Device;
use super::super::owner::ProcessInfo;
use super::super::resource::ResourceType;
use super::super::snapshot::{Warning, WarningKind};
use super::thresholds::{Level, Thresholds};
use crate::units::{count, percent};
use std::collections::BTreeSet;

/// One warning per device and type at or above `thresholds.warn`, in the
/// order the devices are given, types in display order:
/// `mlx5_3 mr at 96% of max (7840/8192, critical)`.
pub fn device_warnings(devices: &[&Device], thresholds: &Thresholds) -> Vec<Warning> {
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
            out.push(Warning::new(
                WarningKind::Limit,
                format!(
                    "{} {} at {} of max ({}/{}, {})",
                    device.name,
                    t.name(),
                    percent(ratio),
                    count(entry.current),
                    count(max),
                    level.name()
                ),
            ));
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
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for cgroup in processes.into_iter().filter_map(|p| p.rdma_cgroup.as_ref()) {
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
                out.push(Warning::new(
                    WarningKind::Limit,
                    format!(
                        "cgroup {}: {resource} on {device} at {} of rdma.max ({}/{}, {})",
                        q.cgroup,
                        percent(ratio),
                        count(q.current),
                        count(max),
                        level.name()
                    ),
                ));
            }
        }
    }
    out
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
        let w = device_warnings(&[&a, &b], &Thresholds::default());
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
        assert!(device_warnings(&[&a, &b], &strict).is_empty());
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
        p1.rdma_cgroup = Some(cgroup);
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
