//! The real NETLINK_RDMA socket.

use super::consts::NLMSG_HDRLEN;
use super::error::NlError;
use super::transport::Transport;
use neli::consts::socket::{Msg, NlFamily};
use neli::socket::NlSocket;
use neli::utils::Groups;
use nix::errno::Errno;
use nix::sys::socket::{setsockopt, sockopt::ReceiveTimeout};
use nix::sys::time::TimeVal;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

/// Receive buffer size. The kernel sizes dump messages to the largest read it
/// has seen, capped just under 32 KiB; doit replies fit in a page. 64 KiB
/// leaves room, and `MSG_TRUNC` still catches anything larger.
pub const RECV_BUFFER: usize = 64 * 1024;

/// Bounds of the receive timeout: `SO_RCVTIMEO` of zero would mean "forever".
const MIN_TIMEOUT: Duration = Duration::from_millis(1);
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// A NETLINK_RDMA socket with a receive timeout.
///
/// Stale replies: a timed-out or abandoned exchange closes the socket, and
/// the next request opens a fresh one, so late answers to the old request go
/// to a socket that no longer exists. Datagrams whose sequence number is not
/// the current request's are dropped as well.
pub struct SocketTransport {
    socket: Option<NlSocket>,
    timeout: Duration,
    buf: Vec<u8>,
    seq: Option<u32>,
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
        let timeout = timeout.clamp(MIN_TIMEOUT, MAX_TIMEOUT);
        let socket = connect(timeout)?;
        Ok(SocketTransport {
            socket: Some(socket),
            timeout,
            buf: vec![0; RECV_BUFFER],
            seq: None,
        })
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

fn connect(timeout: Duration) -> Result<NlSocket, NlError> {
    let socket = NlSocket::connect(NlFamily::Rdma, None, Groups::empty()).map_err(|e| {
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
            None => connect(self.timeout)?,
        };
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
            // MSG_TRUNC makes recv return the datagram's full length, so an
            // oversized datagram is detected instead of silently cut.
            match socket.recv(&mut self.buf[..], Msg::TRUNC) {
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
    }
}
