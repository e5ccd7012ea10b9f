//! Reading the live host: netlink (via `nldev`), procfs and sysfs.
pub mod live;
pub use live::{LiveOptions, LiveSource};
