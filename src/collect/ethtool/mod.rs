//! The kernel's ethtool statistics of a netdev: the standard groups over
//! ethtool netlink (`netlink.rs`) and the driver's named statistics over
//! the `SIOCETHTOOL` ioctl (`ioctl.rs`). `collect::netdev` reads both for
//! every RoCE port's netdev.

pub(crate) mod ioctl;
pub(crate) mod netlink;
