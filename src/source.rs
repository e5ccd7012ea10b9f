//! The seam between where snapshots come from (live kernel, demo, replay) and
//! everything that shows them.

use crate::model::{DetailScope, Snapshot, SourceKind};
use std::time::Duration;

/// What the consumer of snapshots wants from the next collection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollectRequest {
    /// Which objects to keep in detail (ERROR QPs always are).
    pub details: DetailScope,
    /// Run object dumps now even if their cadence says they are not due.
    pub force_objects: bool,
}

/// A producer of snapshots.
pub trait Source: Send {
    /// Live, demo or replay: what the header and the JSON `meta.source` say the data is.
    fn kind(&self) -> SourceKind;

    /// Collects one snapshot. Partial failures (one device's dump failing, an
    /// owner vanishing) are warnings inside the snapshot; an `Err` means
    /// nothing useful could be collected.
    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError>;
}

/// Why a whole collection failed. Each message says what the user can do.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The NETLINK_RDMA socket could not be opened or the kernel does not
    /// know the family; the text is the OS error.
    #[error(
        "this kernel has no RDMA netlink support ({0}): no RDMA devices can be read here.\n\
         Check that the kernel has CONFIG_INFINIBAND and that ib_core is loaded, \
         or run `restop --demo` to explore restop with a simulated host"
    )]
    NoRdmaSupport(String),
    #[error("permission denied by the kernel for {what}: {hint}")]
    /// The kernel answered EPERM/EACCES.
    PermissionDenied {
        /// The request refused (`RES_QP_GET dump`, ...).
        what: String,
        /// What the user can do about it (capabilities, root).
        hint: String,
    },
    #[error("the kernel did not answer a {what} request within {after:?}")]
    /// No reply within the socket's timeout.
    Timeout {
        /// The request that went unanswered.
        what: String,
        /// How long restop waited.
        after: Duration,
    },
    #[error("the kernel's reply to {what} could not be parsed: {detail}")]
    /// A reply that does not parse as nldev attributes.
    Malformed {
        /// The request whose reply it was.
        what: String,
        /// What was wrong with it, from the parser.
        detail: String,
    },
    #[error("netlink {what} failed: {source}")]
    /// Any other socket error.
    Io {
        /// The request being sent or read.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A recording that cannot be read at this point; the text names the file and the frame.
    #[error("{0}")]
    Replay(String),
    /// A replay or a bounded source has nothing more to give.
    #[error("no more snapshots")]
    Exhausted,
}
