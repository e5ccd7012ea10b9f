//! How request bytes reach the kernel and reply datagrams come back.
//!
//! [`super::NldevClient`] builds requests and parses replies; a transport
//! only moves bytes. The real one is [`super::SocketTransport`]; tests and
//! replays use [`super::ReplayTransport`].

use super::error::NlError;

/// Moves one request at a time and the datagrams answering it.
///
/// Contract: after [`Transport::send`] the transport delivers only datagrams
/// answering that request. When an exchange ends early (timeout, parse
/// error), the client calls [`Transport::abandon`], and whatever the kernel
/// still had to say about it must never reach a later request.
pub trait Transport {
    /// Sends one complete netlink message and starts a new exchange.
    /// `op` names the command, for errors.
    fn send(&mut self, op: &'static str, request: &[u8]) -> Result<(), NlError>;

    /// The next datagram of the current exchange (one or more netlink
    /// messages). Waits at most the transport's timeout, then fails with
    /// [`NlError::Timeout`].
    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError>;

    /// The current exchange ended before its last message: drop the rest.
    fn abandon(&mut self);

    /// Diagnostics since the last call (datagrams dropped as not from the
    /// kernel): for `RESTOP_DEBUG`, never errors.
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }
}
