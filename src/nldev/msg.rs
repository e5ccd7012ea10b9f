//! Splits a received datagram into netlink messages and classifies them.
//!
//! Like [`super::attr`], this borrows from the datagram: no copy per message,
//! and every length is checked before it is used.

use super::consts::{
    NLMSG_DONE, NLMSG_ERROR, NLMSG_HDRLEN, NLMSG_MIN_TYPE, NLMSG_NOOP, RDMA_NL_NLDEV, align4,
    client_of,
};
use std::fmt;

/// `struct nlmsghdr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub len: u32,
    pub kind: u16,
    pub flags: u16,
    pub seq: u32,
    pub pid: u32,
}

/// One message: its header and the bytes after it (`nlmsg_len - 16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    pub header: Header,
    pub payload: &'a [u8],
}

/// What a message means to a request/reply exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply<'a> {
    /// An nldev message carrying attributes.
    Data(Message<'a>),
    /// `NLMSG_DONE`: the end of a dump; `errno` is 0 on success.
    Done { errno: i32 },
    /// `NLMSG_ERROR`: an ACK when `errno` is 0, a failure otherwise.
    Error { errno: i32 },
    /// `NLMSG_NOOP`: ignored.
    Noop,
}

/// A fault in message framing, or a message restop cannot classify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    TruncatedHeader {
        remaining: usize,
    },
    LengthTooSmall {
        len: u32,
    },
    PastEnd {
        len: u32,
        remaining: usize,
    },
    /// `NLMSG_ERROR` without its 4-byte error code.
    ShortError {
        len: usize,
    },
    /// A control type other than NOOP/ERROR/DONE (e.g. OVERRUN), or a message
    /// of another netlink client.
    UnexpectedType {
        kind: u16,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TruncatedHeader { remaining } => {
                write!(
                    f,
                    "{remaining} stray bytes where a message header should be"
                )
            }
            FrameError::LengthTooSmall { len } => {
                write!(f, "message length {len} is less than its header")
            }
            FrameError::PastEnd { len, remaining } => write!(
                f,
                "message length {len} runs past the datagram ({remaining} bytes left)"
            ),
            FrameError::ShortError { len } => {
                write!(f, "error message with a {len}-byte payload")
            }
            FrameError::UnexpectedType { kind } => {
                write!(f, "unexpected message type {kind:#x}")
            }
        }
    }
}

/// Iterates the messages of one datagram; stops after the first fault.
pub fn messages(datagram: &[u8]) -> Messages<'_> {
    Messages {
        rest: datagram,
        failed: false,
    }
}

#[derive(Clone, Debug)]
pub struct Messages<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>, FrameError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let Some((h, _)) = rest.split_first_chunk::<NLMSG_HDRLEN>() else {
            self.failed = true;
            return Some(Err(FrameError::TruncatedHeader {
                remaining: rest.len(),
            }));
        };
        let header = Header {
            len: u32::from_ne_bytes([h[0], h[1], h[2], h[3]]),
            kind: u16::from_ne_bytes([h[4], h[5]]),
            flags: u16::from_ne_bytes([h[6], h[7]]),
            seq: u32::from_ne_bytes([h[8], h[9], h[10], h[11]]),
            pid: u32::from_ne_bytes([h[12], h[13], h[14], h[15]]),
        };
        let total = usize::try_from(header.len).unwrap_or(usize::MAX);
        if total < NLMSG_HDRLEN {
            self.failed = true;
            return Some(Err(FrameError::LengthTooSmall { len: header.len }));
        }
        let Some(payload) = rest.get(NLMSG_HDRLEN..total) else {
            self.failed = true;
            return Some(Err(FrameError::PastEnd {
                len: header.len,
                remaining: rest.len(),
            }));
        };
        self.rest = rest.get(align4(total)..).unwrap_or(&[]);
        Some(Ok(Message { header, payload }))
    }
}

impl<'a> Message<'a> {
    /// Classifies the message for the exchange it belongs to.
    pub fn reply(&self) -> Result<Reply<'a>, FrameError> {
        match self.header.kind {
            NLMSG_NOOP => Ok(Reply::Noop),
            // Old kernels may end a dump with an empty DONE: treat it as success.
            NLMSG_DONE => Ok(Reply::Done {
                errno: self.error_code().map(errno_of).unwrap_or(0),
            }),
            NLMSG_ERROR => match self.error_code() {
                Some(code) => Ok(Reply::Error {
                    errno: errno_of(code),
                }),
                None => Err(FrameError::ShortError {
                    len: self.payload.len(),
                }),
            },
            kind if kind >= NLMSG_MIN_TYPE && client_of(kind) == RDMA_NL_NLDEV => {
                Ok(Reply::Data(*self))
            }
            kind => Err(FrameError::UnexpectedType { kind }),
        }
    }

    /// The leading `int error` of DONE and ERROR payloads.
    fn error_code(&self) -> Option<i32> {
        self.payload
            .first_chunk::<4>()
            .map(|b| i32::from_ne_bytes(*b))
    }
}

/// The kernel sends `-errno`; restop keeps errno positive.
fn errno_of(code: i32) -> i32 {
    if code < 0 {
        code.saturating_neg()
    } else {
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(kind: u16, payload: &[u8]) -> Vec<u8> {
        let len = (NLMSG_HDRLEN + payload.len()) as u32;
        let mut v = Vec::new();
        v.extend_from_slice(&len.to_ne_bytes());
        v.extend_from_slice(&kind.to_ne_bytes());
        v.extend_from_slice(&[0; 10]);
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn done_and_error_carry_positive_errno() {
        let d = msg(NLMSG_DONE, &(-1i32).to_ne_bytes());
        let m = messages(&d).next().unwrap().unwrap();
        assert_eq!(m.reply(), Ok(Reply::Done { errno: 1 }));
        let e = msg(NLMSG_ERROR, &(-22i32).to_ne_bytes());
        let m = messages(&e).next().unwrap().unwrap();
        assert_eq!(m.reply(), Ok(Reply::Error { errno: 22 }));
        let bare = msg(NLMSG_DONE, &[]);
        let m = messages(&bare).next().unwrap().unwrap();
        assert_eq!(m.reply(), Ok(Reply::Done { errno: 0 }));
    }

    #[test]
    fn foreign_and_overrun_types_are_rejected() {
        for kind in [4u16, 0x10, (4 << 10) + 1] {
            let d = msg(kind, &[]);
            let m = messages(&d).next().unwrap().unwrap();
            assert_eq!(m.reply(), Err(FrameError::UnexpectedType { kind }));
        }
    }

    #[test]
    fn bad_lengths_are_errors() {
        let mut d = msg(NLMSG_DONE, &[0; 4]);
        d[0] = 8;
        assert_eq!(
            messages(&d).next(),
            Some(Err(FrameError::LengthTooSmall { len: 8 }))
        );
        d[0] = 200;
        assert!(matches!(
            messages(&d).next(),
            Some(Err(FrameError::PastEnd { .. }))
        ));
        assert!(matches!(
            messages(&d[..10]).next(),
            Some(Err(FrameError::TruncatedHeader { remaining: 10 }))
        ));
    }
}
