//! A zero-copy walker over netlink attributes (`struct nlattr` TLVs).
//!
//! Why not neli's attribute types: a 20,000-MR dump holds ~200,000
//! attributes, and neli copies every payload into its own `Vec` and builds a
//! `Vec` per nest before anything can be read; its handles also look
//! attributes up by first match, which cannot express repeated entries or
//! skip PAD. This walker borrows from the received datagram, masks the flag
//! bits, and reports framing faults as values instead of panicking.

use super::consts::{NLA_F_NESTED, NLA_HDRLEN, NLA_TYPE_MASK, align4};
use std::fmt;

/// One attribute, borrowed from the buffer it was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr<'a> {
    /// The attribute number with `NLA_F_NESTED` / `NLA_F_NET_BYTEORDER` masked off.
    pub kind: u16,
    /// Whether the sender set `NLA_F_NESTED` (it often does not for nests).
    pub nested_flag: bool,
    pub payload: &'a [u8],
}

/// A framing fault in a run of attributes, or a payload too short for its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TlvError {
    /// Fewer than 4 bytes left where an attribute header should be.
    TruncatedHeader { remaining: usize },
    /// `nla_len` smaller than the header itself.
    TooShort { kind: u16, len: u16 },
    /// `nla_len` runs past the end of the enclosing buffer.
    PastEnd {
        kind: u16,
        len: u16,
        remaining: usize,
    },
    /// The payload is shorter than the attribute's type needs.
    BadPayload { kind: u16, want: usize, got: usize },
}

impl fmt::Display for TlvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlvError::TruncatedHeader { remaining } => {
                write!(
                    f,
                    "{remaining} stray bytes where an attribute header should be"
                )
            }
            TlvError::TooShort { kind, len } => {
                write!(f, "attribute {kind} has length {len}, less than its header")
            }
            TlvError::PastEnd {
                kind,
                len,
                remaining,
            } => write!(
                f,
                "attribute {kind} has length {len} but only {remaining} bytes remain"
            ),
            TlvError::BadPayload { kind, want, got } => write!(
                f,
                "attribute {kind} carries {got} bytes, at least {want} expected"
            ),
        }
    }
}

/// Iterates the attributes in `buf`; stops after the first framing fault.
pub fn attrs(buf: &[u8]) -> Attrs<'_> {
    Attrs {
        rest: buf,
        failed: false,
    }
}

#[derive(Clone, Debug)]
pub struct Attrs<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Result<Attr<'a>, TlvError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let Some((header, _)) = rest.split_first_chunk::<NLA_HDRLEN>() else {
            self.failed = true;
            return Some(Err(TlvError::TruncatedHeader {
                remaining: rest.len(),
            }));
        };
        let len = u16::from_ne_bytes([header[0], header[1]]);
        let raw_type = u16::from_ne_bytes([header[2], header[3]]);
        let kind = raw_type & NLA_TYPE_MASK;
        let total = usize::from(len);
        if total < NLA_HDRLEN {
            self.failed = true;
            return Some(Err(TlvError::TooShort { kind, len }));
        }
        let Some(payload) = rest.get(NLA_HDRLEN..total) else {
            self.failed = true;
            return Some(Err(TlvError::PastEnd {
                kind,
                len,
                remaining: rest.len(),
            }));
        };
        // The last attribute of a buffer may omit its alignment padding.
        self.rest = rest.get(align4(total)..).unwrap_or(&[]);
        Some(Ok(Attr {
            kind,
            nested_flag: raw_type & NLA_F_NESTED != 0,
            payload,
        }))
    }
}

impl<'a> Attr<'a> {
    fn fixed<const N: usize>(&self) -> Result<[u8; N], TlvError> {
        self.payload
            .first_chunk::<N>()
            .copied()
            .ok_or(TlvError::BadPayload {
                kind: self.kind,
                want: N,
                got: self.payload.len(),
            })
    }

    pub fn u8(&self) -> Result<u8, TlvError> {
        self.fixed::<1>().map(|b| b[0])
    }

    pub fn u16(&self) -> Result<u16, TlvError> {
        self.fixed::<2>().map(u16::from_ne_bytes)
    }

    pub fn u32(&self) -> Result<u32, TlvError> {
        self.fixed::<4>().map(u32::from_ne_bytes)
    }

    pub fn u64(&self) -> Result<u64, TlvError> {
        self.fixed::<8>().map(u64::from_ne_bytes)
    }

    /// The bytes of a NUL-terminated string attribute, without the NUL.
    pub fn str_bytes(&self) -> &'a [u8] {
        match self.payload.iter().position(|&b| b == 0) {
            Some(end) => self.payload.get(..end).unwrap_or(self.payload),
            None => self.payload,
        }
    }

    /// A string attribute as an owned `String` (invalid UTF-8 is replaced).
    pub fn string(&self) -> String {
        String::from_utf8_lossy(self.str_bytes()).into_owned()
    }

    /// The attributes nested in this one.
    pub fn nested(&self) -> Attrs<'a> {
        attrs(self.payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(len: u16, kind: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&len.to_ne_bytes());
        v.extend_from_slice(&kind.to_ne_bytes());
        v.extend_from_slice(payload);
        while v.len() % 4 != 0 {
            v.push(0);
        }
        v
    }

    #[test]
    fn flags_are_masked_and_reported() {
        let buf = raw(8, 0x8000 | 19, &[0; 4]);
        let a = attrs(&buf).next().unwrap().unwrap();
        assert_eq!(a.kind, 19);
        assert!(a.nested_flag);
        let buf = raw(8, 0x4000 | 21, &7u32.to_ne_bytes());
        let a = attrs(&buf).next().unwrap().unwrap();
        assert_eq!((a.kind, a.u32()), (21, Ok(7)));
    }

    #[test]
    fn framing_faults_stop_the_walk() {
        let mut buf = raw(8, 1, &[1, 0, 0, 0]);
        buf.extend_from_slice(&raw(2, 1, &[]));
        let items: Vec<_> = attrs(&buf).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1], Err(TlvError::TooShort { kind: 1, len: 2 }));

        let buf = raw(200, 3, &[0; 4]);
        assert!(matches!(
            attrs(&buf).next(),
            Some(Err(TlvError::PastEnd { .. }))
        ));
        assert_eq!(
            attrs(&[1, 0]).next(),
            Some(Err(TlvError::TruncatedHeader { remaining: 2 }))
        );
    }

    #[test]
    fn unpadded_last_attribute_is_accepted() {
        let buf = [5u8, 0, 14, 0, 1];
        let a = attrs(&buf).next().unwrap().unwrap();
        assert_eq!(a.u8(), Ok(1));
        assert_eq!(attrs(&buf).count(), 1);
    }

    #[test]
    fn short_payloads_are_errors_not_panics() {
        let buf = raw(6, 6, &[1, 2]);
        let a = attrs(&buf).next().unwrap().unwrap();
        assert_eq!(
            a.u64(),
            Err(TlvError::BadPayload {
                kind: 6,
                want: 8,
                got: 2
            })
        );
    }

    #[test]
    fn strings_stop_at_nul() {
        let buf = raw(11, 2, b"rxe0\0\0\0");
        let a = attrs(&buf).next().unwrap().unwrap();
        assert_eq!(a.str_bytes(), b"rxe0");
        assert_eq!(a.string(), "rxe0");
    }
}
