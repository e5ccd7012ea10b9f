//! Builds nldev reply bytes by hand, in the kernel's layout: for tests of
//! the parser and of anything that consumes [`super::ReplayTransport`].
//!
//! ```
//! use restop::nldev::fixture::{Attrs, dump_reply};
//! use restop::nldev::consts::{attr, cmd};
//! let msg = Attrs::new().u32(attr::DEV_INDEX, 0).string(attr::DEV_NAME, "mlx5_0");
//! let bytes = dump_reply(cmd::GET, &[msg]);
//! assert_eq!(bytes.len(), 36 + 20);
//! ```

use super::consts::{
    NLA_F_NESTED, NLM_F_MULTI, NLMSG_DONE, NLMSG_ERROR, NLMSG_HDRLEN, align4, attr, nldev_type,
};
use std::net::SocketAddr;

/// A run of attributes, built in order; each is padded to 4 bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs(Vec<u8>);

impl Attrs {
    pub fn new() -> Attrs {
        Attrs(Vec::new())
    }

    /// Any attribute: `kind` is written as given (flags included).
    pub fn bytes(mut self, kind: u16, payload: &[u8]) -> Attrs {
        let len = u16::try_from(4 + payload.len()).unwrap_or(u16::MAX);
        self.0.extend_from_slice(&len.to_ne_bytes());
        self.0.extend_from_slice(&kind.to_ne_bytes());
        self.0.extend_from_slice(payload);
        self.0.resize(align4(self.0.len()), 0);
        self
    }

    pub fn u8(self, kind: u16, v: u8) -> Attrs {
        self.bytes(kind, &[v])
    }

    pub fn u32(self, kind: u16, v: u32) -> Attrs {
        self.bytes(kind, &v.to_ne_bytes())
    }

    pub fn u64(self, kind: u16, v: u64) -> Attrs {
        self.bytes(kind, &v.to_ne_bytes())
    }

    /// A PAD attribute (type 0, no payload), as `nla_put_u64_64bit` inserts
    /// before a u64 on some architectures.
    pub fn pad(self) -> Attrs {
        self.bytes(attr::PAD, &[])
    }

    /// A NUL-terminated string.
    pub fn string(self, kind: u16, s: &str) -> Attrs {
        let mut payload = s.as_bytes().to_vec();
        payload.push(0);
        self.bytes(kind, &payload)
    }

    /// A nest without `NLA_F_NESTED`, as `nla_nest_start_noflag` writes.
    pub fn nest(self, kind: u16, inner: Attrs) -> Attrs {
        self.bytes(kind, &inner.0)
    }

    /// A nest with `NLA_F_NESTED` set, as `nla_nest_start` writes.
    pub fn nest_flagged(self, kind: u16, inner: Attrs) -> Attrs {
        self.bytes(kind | NLA_F_NESTED, &inner.0)
    }

    /// Appends bytes as they are (for malformed input).
    pub fn raw(mut self, bytes: &[u8]) -> Attrs {
        self.0.extend_from_slice(bytes);
        self
    }

    /// Owner attributes: `Some(pid)` → RES_PID, else `kern` → RES_KERN_NAME.
    pub fn owner(self, pid: Option<u32>, kern: Option<&str>) -> Attrs {
        match (pid, kern) {
            (Some(pid), _) => self.u32(attr::RES_PID, pid),
            (None, Some(name)) => self.string(attr::RES_KERN_NAME, name),
            (None, None) => self,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

/// One netlink message with the given header fields and payload.
pub fn message(kind: u16, flags: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(NLMSG_HDRLEN + payload.len()).unwrap_or(u32::MAX);
    let mut v = Vec::with_capacity(align4(NLMSG_HDRLEN + payload.len()));
    v.extend_from_slice(&len.to_ne_bytes());
    v.extend_from_slice(&kind.to_ne_bytes());
    v.extend_from_slice(&flags.to_ne_bytes());
    v.extend_from_slice(&seq.to_ne_bytes());
    v.extend_from_slice(&0u32.to_ne_bytes());
    v.extend_from_slice(payload);
    v.resize(align4(v.len()), 0);
    v
}

/// One dump message (`NLM_F_MULTI`) of nldev command `op`.
pub fn dump_message(op: u16, attrs: &Attrs) -> Vec<u8> {
    message(nldev_type(op), NLM_F_MULTI, 0, attrs.as_bytes())
}

/// A doit reply message (flags 0) of nldev command `op`.
pub(crate) fn doit_message(op: u16, attrs: &Attrs) -> Vec<u8> {
    message(nldev_type(op), 0, 0, attrs.as_bytes())
}

/// `NLMSG_DONE` carrying `-errno` (0 for success).
pub fn done(errno: i32) -> Vec<u8> {
    message(
        NLMSG_DONE,
        NLM_F_MULTI,
        0,
        &errno.wrapping_neg().to_ne_bytes(),
    )
}

/// `NLMSG_ERROR` carrying `-errno` and, like the kernel, the request header
/// (here zeroed); `errno` 0 is an ACK.
pub fn error(errno: i32) -> Vec<u8> {
    let mut payload = errno.wrapping_neg().to_ne_bytes().to_vec();
    payload.extend_from_slice(&[0; NLMSG_HDRLEN]);
    message(NLMSG_ERROR, 0, 0, &payload)
}

/// A complete dump reply: one message per element, then `NLMSG_DONE(0)`.
pub fn dump_reply(op: u16, msgs: &[Attrs]) -> Vec<u8> {
    let mut v: Vec<u8> = msgs.iter().flat_map(|m| dump_message(op, m)).collect();
    v.extend(done(0));
    v
}

/// A complete doit reply: the message, then the ACK.
pub fn doit_reply(op: u16, msg: &Attrs) -> Vec<u8> {
    let mut v = doit_message(op, msg);
    v.extend(error(0));
    v
}

/// A 128-byte `sockaddr_storage` holding `addr`, as CM_ID entries carry it.
pub fn sockaddr_storage(addr: SocketAddr) -> Vec<u8> {
    let mut v = vec![0u8; 128];
    let mut put = |at: usize, bytes: &[u8]| {
        if let Some(slot) = v.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
    };
    match addr {
        SocketAddr::V4(a) => {
            put(0, &2u16.to_ne_bytes());
            put(2, &a.port().to_be_bytes());
            put(4, &a.ip().octets());
        }
        SocketAddr::V6(a) => {
            put(0, &10u16.to_ne_bytes());
            put(2, &a.port().to_be_bytes());
            put(4, &a.flowinfo().to_be_bytes());
            put(8, &a.ip().octets());
            put(24, &a.scope_id().to_ne_bytes());
        }
    }
    v
}
