//! The real NETLINK_RDMA socket.

use super::consts::NLMSG_HDRLEN;
use super::error::NlError;
use super::transport::Transport;
use neli::consts::socket::{Msg, NlFamily};
use neli::socket::NlSocket;
use neli::utils::Groups;
use nix::errno::Errno;
use nix::sys::socket::{MsgFlags, NetlinkAddr, recvmsg, setsockopt, sockopt::ReceiveTimeout};
use nix::sys::time::TimeVal;
use std::io::{self, IoSliceMut};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

/// Receive buffer size. The kernel sizes dump messages to the largest read it
/// has seen, capped just under 32 KiB; doit replies fit in a page. 64 KiB
/// leaves room, and `MSG_TRUNC` still catches anything larger.
pub(crate) const RECV_BUFFER: usize = 64 * 1024;

/// Bounds of the receive timeout: `SO_RCVTIMEO` of zero would mean "forever".
const MIN_TIMEOUT: Duration = Duration::from_millis(1);
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// A whole exchange may take this many receive timeouts: enough for the
/// largest dumps (each datagram arrives well within one timeout), while a
/// kernel that never ends a dump still cannot hold restop forever.
const EXCHANGE_TIMEOUTS: u32 = 30;

/// A NETLINK_RDMA socket with a receive timeout.
///
/// Stale replies: a timed-out or abandoned exchange closes the socket, and
/// the next request opens a fresh one, so late answers to the old request go
/// to a socket that no longer exists. Datagrams whose sequence number is not
/// the current request's are dropped as well.
///
/// Spoofed replies: a process with CAP_NET_ADMIN can send datagrams to
/// restop's port. Only datagrams from the kernel (port 0) are read as
/// replies; others are dropped with a debug note ([`Transport::take_notes`]).
pub struct SocketTransport {
    /// Always NETLINK_RDMA, except in tests of the socket mechanics.
    family: NlFamily,
    /// The network namespace every socket is opened in (`nldev/netns.rs`);
    /// `None`: restop's own.
    netns: Option<std::path::PathBuf>,
    socket: Option<NlSocket>,
    timeout: Duration,
    buf: Vec<u8>,
    seq: Option<u32>,
    /// When the current exchange must be over.
    deadline: Option<Instant>,
    notes: Vec<String>,
}

/// At most this many notes wait for `take_notes` (a flood keeps the first).
const MAX_NOTES: usize = 16;

/// Only the kernel, port 0, answers requests; a datagram without a sender
/// address cannot be told apart from a forged one.
pub(crate) fn from_kernel(sender: Option<&NetlinkAddr>) -> bool {
    sender.is_some_and(|a| a.pid() == 0)
}

impl std::fmt::Debug for SocketTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SocketTransport")
            .field("open", &self.socket.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl SocketTransport {
    /// Opens the socket now, so a kernel without RDMA netlink is reported
    /// at once as [`NlError::Unsupported`].
    pub fn open(timeout: Duration) -> Result<SocketTransport, NlError> {
        SocketTransport::open_family(NlFamily::Rdma, timeout)
    }

    /// A generic netlink socket (`NETLINK_GENERIC`) with the same timeout,
    /// sender and sequence checks, for the ethtool family (`collect::ethtool`).
    pub fn open_generic(timeout: Duration) -> Result<SocketTransport, NlError> {
        SocketTransport::open_family(NlFamily::Generic, timeout)
    }

    /// Opens the socket in another network namespace (a `/proc/PID/ns/net` or
    /// `/var/run/netns/NAME` file); a socket opened again after a timeout is
    /// opened there too. Needs CAP_SYS_ADMIN.
    pub fn open_in_netns(
        netns: &std::path::Path,
        timeout: Duration,
    ) -> Result<SocketTransport, NlError> {
        SocketTransport::open_at(NlFamily::Rdma, Some(netns.to_path_buf()), timeout)
    }

    fn open_family(family: NlFamily, timeout: Duration) -> Result<SocketTransport, NlError> {
        SocketTransport::open_at(family, None, timeout)
    }

    fn open_at(
        family: NlFamily,
        netns: Option<std::path::PathBuf>,
        timeout: Duration,
    ) -> Result<SocketTransport, NlError> {
        let timeout = timeout.clamp(MIN_TIMEOUT, MAX_TIMEOUT);
        let socket = connect_in(family, netns.as_deref(), timeout)?;
        Ok(SocketTransport {
            family,
            netns,
            socket: Some(socket),
            timeout,
            buf: vec![0; RECV_BUFFER],
            seq: None,
            deadline: None,
            notes: Vec::new(),
        })
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// [`connect`] in restop's own network namespace, or in `netns`.
fn connect_in(
    family: NlFamily,
    netns: Option<&std::path::Path>,
    timeout: Duration,
) -> Result<NlSocket, NlError> {
    match netns {
        None => connect(family, timeout),
        Some(path) => super::netns::in_netns(path, || {
            connect(family, timeout).map_err(|e| io::Error::other(e.to_string()))
        })
        .map_err(|source| NlError::Io {
            op: "setns",
            source,
        }),
    }
}

fn connect(family: NlFamily, timeout: Duration) -> Result<NlSocket, NlError> {
    connect_groups(family, Groups::empty(), timeout)
}

/// A socket of `family` that has joined the multicast `groups`, with a
/// receive timeout (the device events' socket joins `RDMA_NL_GROUP_NOTIFY`).
pub(crate) fn connect_groups(
    family: NlFamily,
    groups: Groups,
    timeout: Duration,
) -> Result<NlSocket, NlError> {
    let timeout = timeout.clamp(MIN_TIMEOUT, MAX_TIMEOUT);
    let socket = NlSocket::connect(family, None, groups).map_err(|e| {
        match e.raw_os_error().map(Errno::from_raw) {
            Some(Errno::EPROTONOSUPPORT | Errno::EAFNOSUPPORT) => NlError::Unsupported(e),
            _ => NlError::Io {
                op: "socket",
                source: e,
            },
        }
    })?;
    // SAFETY: the descriptor is owned by `socket`, which outlives this borrow.
    let fd = unsafe { BorrowedFd::borrow_raw(socket.as_raw_fd()) };
    // Both parts are small: the timeout is clamped to MAX_TIMEOUT.
    let tv = TimeVal::new(timeout.as_secs() as _, timeout.subsec_micros() as _);
    setsockopt(&fd, ReceiveTimeout, &tv).map_err(|e| NlError::Io {
        op: "setsockopt(SO_RCVTIMEO)",
        source: e.into(),
    })?;
    Ok(socket)
}

impl Transport for SocketTransport {
    fn send(&mut self, op: &'static str, request: &[u8]) -> Result<(), NlError> {
        let socket = match self.socket.take() {
            Some(s) => s,
            None => connect_in(self.family, self.netns.as_deref(), self.timeout)?,
        };
        self.deadline = Instant::now().checked_add(self.timeout.saturating_mul(EXCHANGE_TIMEOUTS));
        self.seq = request
            .get(8..12)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes);
        loop {
            match socket.send(request, Msg::empty()) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(NlError::Io { op, source }),
            }
        }
        self.socket = Some(socket);
        Ok(())
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        let Some(socket) = self.socket.as_ref() else {
            // Abandoned since the last send: nothing of this exchange can arrive.
            return Err(NlError::Io {
                op,
                source: io::Error::new(io::ErrorKind::NotConnected, "no request in progress"),
            });
        };
        let len = loop {
            if self.deadline.is_some_and(|d| Instant::now() > d) {
                self.abandon();
                return Err(NlError::Timeout {
                    op,
                    after: self.timeout.saturating_mul(EXCHANGE_TIMEOUTS),
                });
            }
            match receive(socket.as_raw_fd(), &mut self.buf) {
                Ok((_, sender)) if !from_kernel(sender.as_ref()) => {
                    if self.notes.len() < MAX_NOTES {
                        let port = sender.map_or_else(|| "unknown".into(), |a| a.pid().to_string());
                        self.notes.push(format!(
                            "{op}: dropped a netlink datagram from port {port}, not the kernel"
                        ));
                    }
                    continue;
                }
                Ok((len, _)) => {
                    if len > self.buf.len() {
                        self.abandon();
                        return Err(NlError::Malformed {
                            op,
                            detail: format!(
                                "a {len}-byte datagram exceeds the {RECV_BUFFER}-byte receive buffer"
                            ),
                        });
                    }
                    let seq = self
                        .buf
                        .get(8..12)
                        .and_then(|b| b.try_into().ok())
                        .map(u32::from_ne_bytes);
                    if len >= NLMSG_HDRLEN && self.seq.is_some() && seq != self.seq {
                        continue; // a late answer to an earlier request
                    }
                    break len;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    self.abandon();
                    return Err(NlError::Timeout {
                        op,
                        after: self.timeout,
                    });
                }
                Err(source) => {
                    self.abandon();
                    return Err(NlError::Io { op, source });
                }
            }
        };
        Ok(self.buf.get(..len).unwrap_or(&[]))
    }

    fn abandon(&mut self) {
        self.socket = None;
        self.seq = None;
        self.deadline = None;
    }

    fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

/// One datagram into `buf` with its sender. `MSG_TRUNC` makes the length the
/// datagram's full one, so an oversized datagram is detected, not cut.
pub(crate) fn receive(
    fd: std::os::fd::RawFd,
    buf: &mut [u8],
) -> io::Result<(usize, Option<NetlinkAddr>)> {
    let mut iov = [IoSliceMut::new(buf)];
    let msg = recvmsg::<NetlinkAddr>(fd, &mut iov, None, MsgFlags::MSG_TRUNC)?;
    Ok((msg.bytes, msg.address))
}

#[cfg(test)]
mod tests {
    //! The socket mechanics over NETLINK_ROUTE, which every Linux host has:
    //! the same code paths as NETLINK_RDMA, without needing RDMA.
    use super::*;
    use crate::nldev::msg::messages;
    use std::time::Instant;

    const RTM_GETLINK: u16 = 18;

    /// An `RTM_GETLINK` dump request (header + empty `ifinfomsg`).
    fn getlink_dump(seq: u32) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&32u32.to_ne_bytes());
        v.extend_from_slice(&RTM_GETLINK.to_ne_bytes());
        v.extend_from_slice(&0x301u16.to_ne_bytes());
        v.extend_from_slice(&seq.to_ne_bytes());
        v.extend_from_slice(&0u32.to_ne_bytes());
        v.extend_from_slice(&[0; 16]);
        v
    }

    fn route(timeout: Duration) -> Option<SocketTransport> {
        // Sandboxes without netlink at all skip these tests.
        SocketTransport::open_family(NlFamily::Route, timeout).ok()
    }

    fn seqs(datagram: &[u8]) -> Vec<u32> {
        messages(datagram).map(|m| m.unwrap().header.seq).collect()
    }

    #[test]
    fn a_silent_kernel_times_out_and_the_socket_is_replaced() {
        let Some(mut t) = route(Duration::from_millis(50)) else {
            return;
        };
        let started = Instant::now();
        let err = t.recv("GET").unwrap_err();
        assert!(
            matches!(err, NlError::Timeout { op: "GET", after } if after == Duration::from_millis(50))
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(t.socket.is_none());
        // The next request opens a fresh socket and is answered.
        t.send("GET", &getlink_dump(1)).unwrap();
        assert_eq!(seqs(t.recv("GET").unwrap())[0], 1);
    }

    /// An acknowledged `RTM_GETLINK` doit for the loopback device.
    fn getlink_lo(seq: u32) -> Vec<u8> {
        let mut v = getlink_dump(seq);
        v[6..8].copy_from_slice(&0x5u16.to_ne_bytes()); // REQUEST | ACK
        v[20..24].copy_from_slice(&1i32.to_ne_bytes()); // ifi_index = 1
        v
    }

    #[test]
    fn replies_to_an_earlier_request_are_dropped() {
        let Some(mut t) = route(Duration::from_millis(500)) else {
            return;
        };
        // The answer to request 7 is never read: request 8 on the same
        // socket must only ever see its own reply.
        t.send("GET", &getlink_lo(7)).unwrap();
        t.send("GET", &getlink_lo(8)).unwrap();
        let mut acked = false;
        while !acked {
            let datagram = t.recv("GET").unwrap();
            for m in messages(datagram) {
                let m = m.unwrap();
                assert_eq!(m.header.seq, 8);
                acked |= m.header.kind == crate::nldev::consts::NLMSG_ERROR;
            }
        }
    }

    #[test]
    fn an_exchange_that_never_ends_is_cut_off() {
        let Some(mut t) = route(Duration::from_millis(10)) else {
            return;
        };
        t.send("GET", &getlink_lo(3)).unwrap();
        t.deadline = Some(Instant::now());
        std::thread::sleep(Duration::from_millis(2));
        let err = t.recv("GET").unwrap_err();
        assert!(
            matches!(err, NlError::Timeout { after, .. } if after == Duration::from_millis(300))
        );
        assert!(t.socket.is_none());
    }

    #[test]
    fn only_the_kernel_port_is_a_sender() {
        assert!(from_kernel(Some(&NetlinkAddr::new(0, 0))));
        assert!(!from_kernel(Some(&NetlinkAddr::new(4242, 0))));
        assert!(!from_kernel(None));
    }

    #[test]
    fn a_forged_reply_from_another_socket_is_dropped() {
        let Some(mut t) = route(Duration::from_millis(500)) else {
            return;
        };
        let Ok(forger) = NlSocket::connect(NlFamily::Route, None, Groups::empty()) else {
            return;
        };
        let fd = t.socket.as_ref().unwrap().as_raw_fd();
        let ours: NetlinkAddr = nix::sys::socket::getsockname(fd).unwrap();
        // NLMSG_DONE with the sequence number of the request to come.
        let mut forged = Vec::new();
        forged.extend_from_slice(&20u32.to_ne_bytes());
        forged.extend_from_slice(&crate::nldev::consts::NLMSG_DONE.to_ne_bytes());
        forged.extend_from_slice(&0x2u16.to_ne_bytes());
        forged.extend_from_slice(&9u32.to_ne_bytes());
        forged.extend_from_slice(&0u32.to_ne_bytes());
        forged.extend_from_slice(&0i32.to_ne_bytes());
        let sent = nix::sys::socket::sendto(
            forger.as_raw_fd(),
            &forged,
            &NetlinkAddr::new(ours.pid(), 0),
            nix::sys::socket::MsgFlags::empty(),
        );
        if sent.is_err() {
            // Sending to a user port needs CAP_NET_ADMIN: nothing to forge here.
            return;
        }
        t.send("GET", &getlink_lo(9)).unwrap();
        let first = messages(t.recv("GET").unwrap()).next().unwrap().unwrap();
        assert_eq!(first.header.seq, 9);
        assert_eq!(first.header.kind, 16, "RTM_NEWLINK from the kernel first");
        let notes = t.take_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains(&format!("port {}", forger.pid().unwrap())),
            "{notes:?}"
        );
    }

    #[test]
    fn timeouts_are_clamped() {
        let Some(t) = route(Duration::ZERO) else {
            return;
        };
        assert_eq!(t.timeout(), MIN_TIMEOUT);
    }
}
