//! What can go wrong talking to the kernel, and what it means for a collection.

use crate::source::CollectError;
use nix::errno::Errno;
use std::io;
use std::time::Duration;

/// A failed nldev request. `op` is the nldev command (`RES_QP_GET`, ...).
#[derive(Debug, thiserror::Error)]
pub enum NlError {
    /// `socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA)` failed with
    /// EPROTONOSUPPORT/EAFNOSUPPORT: the kernel has no RDMA netlink at all.
    #[error("the kernel has no RDMA netlink support: {0}")]
    Unsupported(#[source] io::Error),
    /// The kernel answered with an error (`NLMSG_ERROR`, or an error in `NLMSG_DONE`).
    #[error("the kernel refused {op}: {}", Errno::from_raw(*errno).desc())]
    Kernel { op: &'static str, errno: i32 },
    /// No reply arrived within the receive timeout.
    #[error("no reply to {op} within {after:?}")]
    Timeout { op: &'static str, after: Duration },
    /// The reply could not be parsed (bad framing, unexpected message).
    #[error("malformed reply to {op}: {detail}")]
    Malformed { op: &'static str, detail: String },
    /// A socket call failed.
    #[error("netlink {op} failed: {source}")]
    Io {
        op: &'static str,
        #[source]
        source: io::Error,
    },
}

impl NlError {
    /// The kernel's errno, for [`NlError::Kernel`].
    pub fn errno(&self) -> Option<i32> {
        match self {
            NlError::Kernel { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// EPERM or EACCES from the kernel.
    pub fn is_permission(&self) -> bool {
        self.errno().is_some_and(is_permission_errno)
    }

    /// The device (or the object asked for) is gone: ENODEV, ENOENT, ENXIO, or
    /// EINVAL on a request naming a device (the kernel answers an unknown
    /// `DEV_INDEX` with EINVAL).
    pub fn is_no_device(&self) -> bool {
        let NlError::Kernel { op, errno } = self else {
            return false;
        };
        let e = *errno;
        e == Errno::ENODEV as i32
            || e == Errno::ENOENT as i32
            || e == Errno::ENXIO as i32
            || (e == Errno::EINVAL as i32 && is_device_scoped(op))
    }
}

fn is_permission_errno(e: i32) -> bool {
    e == Errno::EPERM as i32 || e == Errno::EACCES as i32
}

/// Whether the named command carries `DEV_INDEX` in restop's requests.
fn is_device_scoped(op: &str) -> bool {
    op == "PORT_GET" || (op.starts_with("RES_") && op != "RES_GET")
}

/// What an unprivileged caller may be missing, for the message.
const PERMISSION_HINT: &str = "listing RDMA resources needs no privilege on current kernels \
     (only MR/PD keys need CAP_NET_ADMIN), so a security policy (SELinux, AppArmor, a container \
     seccomp profile) or an old kernel is refusing NETLINK_RDMA; try running restop with \
     CAP_NET_ADMIN (as root, or `setcap cap_net_admin+ep`)";

impl From<NlError> for CollectError {
    fn from(e: NlError) -> CollectError {
        match e {
            NlError::Unsupported(source) => CollectError::NoRdmaSupport(source.to_string()),
            NlError::Kernel { op, errno } if is_permission_errno(errno) => {
                CollectError::PermissionDenied {
                    what: format!("nldev {op}"),
                    hint: PERMISSION_HINT.to_string(),
                }
            }
            NlError::Kernel { op, errno } => CollectError::Io {
                what: format!("nldev {op}"),
                source: io::Error::from_raw_os_error(errno),
            },
            NlError::Timeout { op, after } => CollectError::Timeout {
                what: format!("nldev {op}"),
                after,
            },
            NlError::Malformed { op, detail } => CollectError::Malformed {
                what: format!("nldev {op}"),
                detail,
            },
            NlError::Io { op, source } => CollectError::Io {
                what: format!("netlink {op}"),
                source,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(op: &'static str, errno: Errno) -> NlError {
        NlError::Kernel {
            op,
            errno: errno as i32,
        }
    }

    #[test]
    fn einval_means_no_device_only_for_device_requests() {
        assert!(kernel("RES_QP_GET", Errno::EINVAL).is_no_device());
        assert!(kernel("PORT_GET", Errno::EINVAL).is_no_device());
        assert!(!kernel("RES_GET", Errno::EINVAL).is_no_device());
        assert!(!kernel("GET", Errno::EINVAL).is_no_device());
        assert!(kernel("GET", Errno::ENODEV).is_no_device());
        assert!(kernel("RES_MR_GET", Errno::ENOENT).is_no_device());
        assert!(kernel("RES_MR_GET", Errno::ENXIO).is_no_device());
        assert!(!kernel("RES_MR_GET", Errno::EPERM).is_no_device());
    }

    #[test]
    fn permission_errors_map_to_permission_denied() {
        assert!(kernel("RES_MR_GET", Errno::EACCES).is_permission());
        let c: CollectError = kernel("RES_MR_GET", Errno::EPERM).into();
        match c {
            CollectError::PermissionDenied { what, hint } => {
                assert_eq!(what, "nldev RES_MR_GET");
                assert!(hint.contains("CAP_NET_ADMIN"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn other_errors_keep_their_meaning() {
        let c: CollectError =
            NlError::Unsupported(io::Error::from_raw_os_error(Errno::EPROTONOSUPPORT as i32))
                .into();
        assert!(matches!(c, CollectError::NoRdmaSupport(_)));
        let c: CollectError = NlError::Timeout {
            op: "RES_GET",
            after: Duration::from_secs(1),
        }
        .into();
        assert!(matches!(c, CollectError::Timeout { .. }));
        let c: CollectError = kernel("RES_QP_GET", Errno::EIO).into();
        match c {
            CollectError::Io { source, .. } => {
                assert_eq!(source.raw_os_error(), Some(Errno::EIO as i32))
            }
            other => panic!("unexpected {other:?}"),
        }
        let msg = kernel("RES_QP_GET", Errno::EINVAL).to_string();
        assert_eq!(msg, "the kernel refused RES_QP_GET: Invalid argument");
    }
}
