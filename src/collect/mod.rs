//! Reading the live host: netlink (via `nldev`), procfs and sysfs.
pub(crate) mod attribution;
pub(crate) mod cadence;
pub(crate) mod cgroup_rdma;
pub(crate) mod counters;
pub(crate) mod ethtool;
pub(crate) mod live;
pub(crate) mod monitor;
pub(crate) mod netdev;
pub mod netns;
pub mod procfs;
pub(crate) mod stalled;
pub(crate) mod sysfs;
pub mod verbs;
pub use live::{LiveOptions, LiveSource};
