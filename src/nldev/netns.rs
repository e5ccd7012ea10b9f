//! Opening a socket in another network namespace.
//!
//! A netlink socket belongs to the network namespace of the thread that
//! created it, for its whole life: the kernel serves every request on it in
//! that namespace (`sock_net(skb->sk)` in `drivers/infiniband/core/nldev.c`).
//! So a short-lived thread enters the namespace (`setns(2)` with
//! `CLONE_NEWNET`, which needs CAP_SYS_ADMIN), creates the socket and ends;
//! restop's own threads never leave their namespace, and the socket is used
//! from any of them afterwards.

use std::fs::File;
use std::io;
use std::path::Path;

/// Runs `open` on a thread inside the network namespace `netns` names (a
/// `/proc/PID/ns/net` or `/var/run/netns/NAME` file) and returns its result.
pub(crate) fn in_netns<R: Send>(
    netns: &Path,
    open: impl FnOnce() -> io::Result<R> + Send,
) -> io::Result<R> {
    let ns = File::open(netns)?;
    std::thread::scope(|scope| {
        let entered = std::thread::Builder::new()
            .name("restop-netns".into())
            .spawn_scoped(scope, move || {
                nix::sched::setns(&ns, nix::sched::CloneFlags::CLONE_NEWNET)
                    .map_err(io::Error::from)?;
                open()
            })?;
        entered
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the namespace thread panicked")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_namespace_file_is_an_error() {
        let err = in_netns(Path::new("/nonexistent/ns/net"), || Ok(())).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_file_that_is_no_namespace_is_refused() {
        // setns(2) refuses a descriptor that is not a namespace (EINVAL), or
        // EPERM without CAP_SYS_ADMIN: never a panic, never the caller's thread.
        let before = std::fs::read_link("/proc/thread-self/ns/net").ok();
        assert!(in_netns(Path::new("/proc/self/status"), || Ok(())).is_err());
        assert_eq!(std::fs::read_link("/proc/thread-self/ns/net").ok(), before);
    }

    #[test]
    fn our_own_namespace_can_be_entered_with_the_capability() {
        // Entering one's own namespace needs CAP_SYS_ADMIN too: skipped without it.
        if let Ok(ours) = in_netns(Path::new("/proc/self/ns/net"), || {
            std::fs::read_link("/proc/thread-self/ns/net")
        }) {
            assert_eq!(Some(ours), std::fs::read_link("/proc/self/ns/net").ok());
        }
    }
}
