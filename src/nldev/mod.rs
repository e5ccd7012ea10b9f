//! The NETLINK_RDMA "nldev" client: what `rdma dev/link/resource/system show`
//! ask the kernel, turned into `model` records.
//!
//! Layers, bottom up:
//! - [`consts`]: command and attribute numbers.
//! - [`attr`], [`msg`]: zero-copy walkers over attributes and messages.
//!   neli serialises requests and owns the socket, but its parsing copies
//!   every attribute, builds a `Vec` per nest, looks attributes up by first
//!   match and reads one buffer at a time; a dump of 20,000 MRs is ~200,000
//!   attributes, and entries repeat inside tables. The walkers borrow from
//!   the received datagram, skip PAD and unknown attributes, mask the nest
//!   flags, and turn every framing fault into an error value.
//! - [`entry`], [`objects`], [`device`], [`summary`], [`sockaddr`]: replies →
//!   records.
//! - [`transport`] ([`SocketTransport`], [`ReplayTransport`]) moves bytes;
//!   [`NldevClient`] runs one request/reply exchange at a time over it.
//! - [`event`]: the device events (`MONITOR`) of kernels from 6.12 on.
//! - [`fixture`]: builds reply bytes by hand for tests.
//!
//! See `docs/netlink.md` for what is sent and the robustness rules.

pub mod attr;
pub(crate) mod client;
pub mod consts;
pub(crate) mod dedup;
pub mod device;
pub mod entry;
pub(crate) mod error;
pub mod event;
pub mod fixture;
pub mod msg;
pub(crate) mod netns;
pub mod objects;
pub mod replay;
pub(crate) mod request;
pub mod sockaddr;
pub(crate) mod socket;
pub mod stat;
pub(crate) mod stat_client;
pub(crate) mod summary;
pub(crate) mod transport;

pub use client::{DumpStats, NldevClient};
pub use device::{DeviceInfo, PortInfo, SysInfo};
pub use error::NlError;
pub use event::{DeviceEvent, EventKind};
pub use replay::ReplayTransport;
pub use socket::SocketTransport;
pub use summary::DeviceSummary;
pub use transport::Transport;
