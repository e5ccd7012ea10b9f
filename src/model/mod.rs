//! Plain data and pure functions: what was observed, and how it adds up.
//! Nothing here reads the system or draws anything.

pub(crate) mod consumer_table;
pub mod consumers;
pub(crate) mod consumers_growth;
pub(crate) mod consumers_qp_states;
pub mod counters;
pub(crate) mod device;
pub(crate) mod enums;
pub(crate) mod error_qp_table;
pub mod error_qps;
pub mod filter;
pub mod history;
pub mod limits;
pub(crate) mod netns;
pub(crate) mod objects;
pub(crate) mod owner;
pub mod owner_group;
pub mod problems;
pub(crate) mod resource;
pub mod snapshot;
pub(crate) mod tally;
pub mod time;

pub use device::{Device, DumpStatus, LimitSource, LimitsUnread, Port, Usage, UsageEntry};
pub use enums::{
    CmState, PhysState, PollContext, PortState, QpState, QpType, SrqType, StateCounts,
};
pub use limits::{Level, ObjectLimits, RdmaCgroup, Thresholds};
pub use netns::{DeviceNetns, NetnsOwner};
pub use objects::{CmId, Cq, Ctx, Mr, MrKeys, Object, Pd, Qp, Srq};
pub use owner::{Container, KubeNames, OwnerKey, ProcessInfo, ProcessKey, ReportedOwner, Runtime};
pub use resource::{ResourceType, TypeCounts};
pub use snapshot::{Meta, NetnsMode, Snapshot, SourceKind, Tally, Warning, WarningKind};
pub use tally::{DetailScope, ObjectAccumulator};
pub use time::{Millis, UnixMs};
