//! Reading the live host: netlink (via `nldev`), procfs and sysfs.
pub mod attribution;
pub mod cadence;
pub mod cgroup_rdma;
pub mod counters;
pub mod ethtool;
pub mod live;
pub mod monitor;
pub mod netdev;
pub mod netns;
pub mod procfs;
pub mod sysfs;
pub mod verbs;
pub use live::{LiveOptions, LiveSource};
