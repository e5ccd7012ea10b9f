//! Limits: how full each resource is against its maximum, the thresholds
//! that turn fullness into warnings, each process's share of its devices, and
//! the quotas of the cgroup `rdma` controller. Pure data and functions; where
//! each number comes from is described in docs/limits.md.

pub(crate) mod cgroup;
pub(crate) mod share;
pub(crate) mod thresholds;
pub(crate) mod warnings;

pub use cgroup::{DeviceQuota, Quota, RdmaCgroup};
pub use share::{Share, ShareIndex, process_shares};
pub use thresholds::{Level, Thresholds};
pub use warnings::{
    CgroupLimit, DeviceLimit, cgroup_limits, cgroup_warnings, device_limits, device_warnings,
};

use serde::{Deserialize, Serialize};

/// Per-object limits of a device, from the verbs device attributes: how big
/// one QP, CQ or MR may be (as opposed to how many there may be). Shown in
/// details; a field is `None` when the device reported 0 or nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLimits {
    /// `max_qp_wr`: work requests per QP queue.
    pub max_qp_wr: Option<u64>,
    /// `max_cqe`: entries per CQ.
    pub max_cqe: Option<u64>,
    /// `max_mr_size`: bytes one MR may cover.
    pub max_mr_size: Option<u64>,
}
