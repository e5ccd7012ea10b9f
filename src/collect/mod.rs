//! Reading the live host: netlink (via `nldev`), procfs and sysfs.
pub mod attribution;
pub mod cadence;
pub mod live;
pub mod procfs;
pub mod sysfs;
pub use live::{LiveOptions, LiveSource};
