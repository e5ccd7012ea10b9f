//! Replies recorded earlier, played back in order: for tests and replays.

use super::consts::{NLMSG_DONE, NLMSG_ERROR};
use super::error::NlError;
use super::msg::messages;
use super::transport::Transport;
use std::collections::VecDeque;
use std::time::Duration;

/// Answers each request with the next recorded reply, ignoring what was
/// asked (requests are kept for inspection). Sequence numbers are not
/// checked, so captures from other tools replay as they are. When a reply
/// runs out before its end, `recv` fails with [`NlError::Timeout`], as a
/// silent kernel would.
#[derive(Clone, Debug, Default)]
pub struct ReplayTransport {
    replies: VecDeque<VecDeque<Vec<u8>>>,
    current: VecDeque<Vec<u8>>,
    last: Vec<u8>,
    sent: Vec<Vec<u8>>,
}

impl ReplayTransport {
    /// One reply per request, each delivered as a single datagram.
    pub fn new<I>(replies: I) -> ReplayTransport
    where
        I: IntoIterator<Item = Vec<u8>>,
    {
        ReplayTransport::from_datagrams(replies.into_iter().map(|r| vec![r]))
    }

    /// One reply per request, each given as the datagrams it arrives in.
    pub fn from_datagrams<I, D>(replies: I) -> ReplayTransport
    where
        I: IntoIterator<Item = D>,
        D: IntoIterator<Item = Vec<u8>>,
    {
        ReplayTransport {
            replies: replies
                .into_iter()
                .map(|r| r.into_iter().collect())
                .collect(),
            ..ReplayTransport::default()
        }
    }

    /// Replays a capture (concatenated datagrams, like `rx.bin`): it is cut
    /// into replies with [`split_replies`], and each message becomes its own
    /// datagram.
    pub fn from_capture(rx: &[u8]) -> ReplayTransport {
        ReplayTransport::from_datagrams(split_replies(rx).into_iter().map(|r| split_messages(&r)))
    }

    /// The requests sent so far, oldest first.
    pub fn sent(&self) -> &[Vec<u8>] {
        &self.sent
    }

    /// Replies not yet started.
    pub fn remaining(&self) -> usize {
        self.replies.len()
    }
}

impl Transport for ReplayTransport {
    fn send(&mut self, _op: &'static str, request: &[u8]) -> Result<(), NlError> {
        self.sent.push(request.to_vec());
        self.current = self.replies.pop_front().unwrap_or_default();
        Ok(())
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        match self.current.pop_front() {
            Some(datagram) => {
                self.last = datagram;
                Ok(&self.last)
            }
            None => Err(NlError::Timeout {
                op,
                after: Duration::ZERO,
            }),
        }
    }

    fn abandon(&mut self) {
        self.current.clear();
    }
}

/// Cuts concatenated reply bytes into one reply per request: a reply ends
/// with `NLMSG_DONE` or `NLMSG_ERROR` (an ACK or a failure). Bytes after the
/// last end, or after a framing fault, form a final unterminated reply.
pub fn split_replies(rx: &[u8]) -> Vec<Vec<u8>> {
    let mut replies = Vec::new();
    let mut start: usize = 0;
    let mut offset: usize = 0;
    for m in messages(rx) {
        let Ok(m) = m else { break };
        offset = offset.saturating_add(super::consts::align4(m.header.len as usize));
        if matches!(m.header.kind, NLMSG_DONE | NLMSG_ERROR) {
            let end = offset.min(rx.len());
            replies.push(rx.get(start..end).unwrap_or_default().to_vec());
            start = end;
        }
    }
    if start < rx.len() {
        replies.push(rx.get(start..).unwrap_or_default().to_vec());
    }
    replies
}

/// Cuts a reply into its messages (a faulty tail stays one piece).
pub fn split_messages(reply: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut offset: usize = 0;
    for m in messages(reply) {
        let Ok(m) = m else { break };
        let end = offset
            .saturating_add(super::consts::align4(m.header.len as usize))
            .min(reply.len());
        out.push(reply.get(offset..end).unwrap_or_default().to_vec());
        offset = end;
    }
    if offset < reply.len() {
        out.push(reply.get(offset..).unwrap_or_default().to_vec());
    }
    out
}
