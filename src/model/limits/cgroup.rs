//! Quotas of the cgroup `rdma` controller, as they apply to one process.
//!
//! The controller charges every user-space context (`hca_handle`) and object
//! (`hca_object`) to the creating task's cgroup *and all its ancestors*; a
//! charge fails as soon as any of them would exceed its `rdma.max`. So the
//! quota that matters for a process is, per device and resource, the one with
//! the least headroom anywhere on its path to the root.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One resource of one device in one cgroup: what is charged, and the limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quota {
    /// Charged to the cgroup named by `cgroup` (it and its descendants).
    pub current: u64,
    /// `rdma.max`; `None` when it is `max` (no limit anywhere on the path).
    pub max: Option<u64>,
    /// The cgroup whose limit this is (the process's own when there is none).
    pub cgroup: String,
}

impl Quota {
    /// Fraction of the quota in use, when a limit is set. A limit of 0 is
    /// a real limit (nothing may be created): full as soon as asked.
    pub fn ratio(&self) -> Option<f64> {
        match self.max {
            Some(0) => Some(1.0),
            Some(max) => Some(self.current as f64 / max as f64),
            None => None,
        }
    }

    /// How many more may be charged before the limit refuses.
    pub fn headroom(&self) -> Option<u64> {
        self.max.map(|m| m.saturating_sub(self.current))
    }
}

/// Both resources the controller knows, for one device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceQuota {
    /// Device contexts (one per `ibv_open_device`).
    pub hca_handle: Quota,
    /// Every other verbs object (QP, CQ, MR, PD, SRQ, AH, ...).
    pub hca_object: Quota,
}

impl DeviceQuota {
    /// The fuller of the two, for a one-number summary.
    pub fn worst(&self) -> (&'static str, &Quota) {
        let h = self.hca_handle.ratio().unwrap_or(-1.0);
        let o = self.hca_object.ratio().unwrap_or(-1.0);
        if h > o {
            ("hca_handle", &self.hca_handle)
        } else {
            ("hca_object", &self.hca_object)
        }
    }
}

/// The `rdma` quotas that bind one process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RdmaCgroup {
    /// The process's own cgroup (`/kubepods.slice/...`), as `/proc/<pid>/cgroup` names it.
    pub path: String,
    /// Devices with a limit somewhere on the path, by device name.
    pub devices: BTreeMap<String, DeviceQuota>,
}

impl RdmaCgroup {
    /// The fullest limited quota: (device, resource, quota).
    pub fn fullest(&self) -> Option<(&str, &'static str, &Quota)> {
        self.devices
            .iter()
            .flat_map(|(dev, q)| {
                [
                    (dev.as_str(), "hca_handle", &q.hca_handle),
                    (dev.as_str(), "hca_object", &q.hca_object),
                ]
            })
            .filter(|(_, _, q)| q.max.is_some())
            .max_by(|a, b| {
                let ra = a.2.ratio().unwrap_or(0.0);
                let rb = b.2.ratio().unwrap_or(0.0);
                ra.total_cmp(&rb)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(current: u64, max: Option<u64>) -> Quota {
        Quota {
            current,
            max,
            cgroup: "/a".into(),
        }
    }

    #[test]
    fn ratio_and_headroom() {
        assert_eq!(q(5, Some(10)).ratio(), Some(0.5));
        assert_eq!(q(5, None).ratio(), None);
        assert_eq!(q(0, Some(0)).ratio(), Some(1.0));
        assert_eq!(q(12, Some(10)).headroom(), Some(0));
    }

    #[test]
    fn fullest_picks_the_highest_ratio() {
        let mut devices = BTreeMap::new();
        devices.insert(
            "mlx5_0".to_string(),
            DeviceQuota {
                hca_handle: q(1, Some(4)),
                hca_object: q(90, Some(100)),
            },
        );
        devices.insert(
            "mlx5_1".to_string(),
            DeviceQuota {
                hca_handle: q(1, None),
                hca_object: q(10, Some(100)),
            },
        );
        let c = RdmaCgroup {
            path: "/a".into(),
            devices,
        };
        let (dev, res, quota) = c.fullest().unwrap();
        assert_eq!((dev, res, quota.current), ("mlx5_0", "hca_object", 90));
        assert_eq!(c.devices["mlx5_0"].worst().0, "hca_object");
    }
}
