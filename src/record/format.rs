//! The bytes of a recording: a file header, then frames (docs/recording.md).
//!
//! ```text
//! file header   "RESTOPRC"  format version (u16)  n (u16)  restop version (n bytes)  CRC-32 (u32)
//! frame         kind (u8)  flags (u8)  payload length (u32)  time (u64, Unix ms)  CRC-32 (u32)  payload
//! ```
//!
//! Integers are little-endian. A frame's CRC covers its first 14 bytes and its
//! payload, so a torn or overwritten frame is recognised as such.

use crate::model::UnixMs;

/// The first eight bytes of every recording.
pub(crate) const MAGIC: [u8; 8] = *b"RESTOPRC";

/// Bumped whenever a reader of the previous version could misread a file.
pub(crate) const FORMAT_VERSION: u16 = 1;

/// Magic, format version and the length of the restop version.
pub(crate) const FILE_HEADER_FIXED: usize = 12;

/// A longer "restop version" means the header is not what it claims to be.
pub(crate) const MAX_VERSION_LEN: usize = 64;

pub const FRAME_HEADER_LEN: usize = 18;

/// The bytes of the header the CRC covers (everything before the CRC).
const FRAME_CRC_COVERS: usize = 14;

/// Far above any real snapshot (a compressed snapshot of a host with 1000
/// processes is well under a megabyte); a larger length is corruption.
pub(crate) const MAX_PAYLOAD_LEN: u32 = 64 << 20;

/// Frame kinds. Unknown kinds with a good CRC are skipped, so later versions
/// can add frames without breaking older readers.
pub const KIND_SESSION: u8 = 1;
pub const KIND_SNAPSHOT: u8 = 2;

/// The payload is raw deflate (RFC 1951).
pub const FLAG_DEFLATE: u8 = 1;
/// The snapshot is complete in itself; other snapshot frames may leave out
/// parts that did not change since the previous snapshot frame.
pub const FLAG_KEYFRAME: u8 = 2;

/// The file header for a recording written by this restop `version`.
pub fn encode_file_header(version: &str) -> Vec<u8> {
    let version = truncate_at_char(version, MAX_VERSION_LEN);
    let mut out = Vec::with_capacity(FILE_HEADER_FIXED + version.len() + 4);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    // At most MAX_VERSION_LEN bytes: always fits.
    out.extend_from_slice(&(version.len() as u16).to_le_bytes());
    out.extend_from_slice(version.as_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

fn truncate_at_char(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The fixed part of the file header, read before the version string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FixedHeader {
    pub format_version: u16,
    pub version_len: usize,
}

impl FixedHeader {
    /// Bytes of the whole file header, CRC included.
    pub(crate) fn total_len(&self) -> usize {
        FILE_HEADER_FIXED + self.version_len + 4
    }
}

/// Reads the fixed part of the header; `None` when the magic is wrong.
pub(crate) fn parse_fixed_header(bytes: &[u8; FILE_HEADER_FIXED]) -> Option<FixedHeader> {
    if bytes[..8] != MAGIC {
        return None;
    }
    Some(FixedHeader {
        format_version: u16::from_le_bytes([bytes[8], bytes[9]]),
        version_len: usize::from(u16::from_le_bytes([bytes[10], bytes[11]])),
    })
}

/// Whether `bytes` (the whole header, CRC last) carries a matching CRC.
pub(crate) fn file_header_crc_ok(bytes: &[u8]) -> bool {
    match bytes.len().checked_sub(4) {
        Some(split) => {
            let (covered, crc) = bytes.split_at(split);
            crc32fast::hash(covered).to_le_bytes() == crc
        }
        None => false,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    pub kind: u8,
    pub flags: u8,
    pub payload_len: u32,
    /// When the snapshot was collected, or when the session began.
    pub time_ms: UnixMs,
    pub crc: u32,
}

impl FrameHeader {
    pub fn parse(bytes: &[u8; FRAME_HEADER_LEN]) -> FrameHeader {
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let mut time = [0u8; 8];
        time.copy_from_slice(&bytes[6..14]);
        FrameHeader {
            kind: bytes[0],
            flags: bytes[1],
            payload_len: u32_at(2),
            time_ms: UnixMs(u64::from_le_bytes(time)),
            crc: u32_at(14),
        }
    }

    fn covered_bytes(&self) -> [u8; FRAME_CRC_COVERS] {
        let mut out = [0u8; FRAME_CRC_COVERS];
        out[0] = self.kind;
        out[1] = self.flags;
        out[2..6].copy_from_slice(&self.payload_len.to_le_bytes());
        out[6..14].copy_from_slice(&self.time_ms.as_u64().to_le_bytes());
        out
    }

    /// The CRC this header and `payload` should carry.
    pub(crate) fn expected_crc(&self, payload: &[u8]) -> u32 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&self.covered_bytes());
        hasher.update(payload);
        hasher.finalize()
    }

    /// Bytes of the whole frame.
    pub fn frame_len(&self) -> u64 {
        FRAME_HEADER_LEN as u64 + u64::from(self.payload_len)
    }
}

/// One complete frame, ready to be written with a single `write`.
/// `None` when the payload is too large to be a frame.
pub fn encode_frame(kind: u8, flags: u8, time_ms: UnixMs, payload: &[u8]) -> Option<Vec<u8>> {
    let payload_len = u32::try_from(payload.len())
        .ok()
        .filter(|len| *len <= MAX_PAYLOAD_LEN)?;
    let mut header = FrameHeader {
        kind,
        flags,
        payload_len,
        time_ms,
        crc: 0,
    };
    header.crc = header.expected_crc(payload);
    let mut out = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    out.extend_from_slice(&header.covered_bytes());
    out.extend_from_slice(&header.crc.to_le_bytes());
    out.extend_from_slice(payload);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_header_round_trip() {
        let bytes = encode_file_header("0.1.0");
        let fixed: [u8; FILE_HEADER_FIXED] = bytes[..FILE_HEADER_FIXED].try_into().unwrap();
        let h = parse_fixed_header(&fixed).unwrap();
        assert_eq!(h.format_version, FORMAT_VERSION);
        assert_eq!(h.version_len, 5);
        assert_eq!(h.total_len(), bytes.len());
        assert!(file_header_crc_ok(&bytes));
        let mut bad = bytes.clone();
        bad[12] ^= 1;
        assert!(!file_header_crc_ok(&bad));
    }

    #[test]
    fn a_foreign_magic_is_refused() {
        assert_eq!(parse_fixed_header(b"GIF89a\0\0\0\0\0\0"), None);
    }

    #[test]
    fn frame_round_trip_and_crc_covers_header_and_payload() {
        let frame = encode_frame(KIND_SNAPSHOT, FLAG_DEFLATE, UnixMs(1234), b"hello").unwrap();
        assert_eq!(frame.len(), FRAME_HEADER_LEN + 5);
        let head: [u8; FRAME_HEADER_LEN] = frame[..FRAME_HEADER_LEN].try_into().unwrap();
        let h = FrameHeader::parse(&head);
        assert_eq!(
            (h.kind, h.flags, h.payload_len, h.time_ms),
            (KIND_SNAPSHOT, FLAG_DEFLATE, 5, UnixMs(1234))
        );
        assert_eq!(h.crc, h.expected_crc(b"hello"));
        assert_ne!(h.crc, h.expected_crc(b"hellp"));
        let other_time = FrameHeader {
            time_ms: UnixMs(1235),
            ..h
        };
        assert_ne!(h.crc, other_time.expected_crc(b"hello"));
    }

    #[test]
    fn long_versions_are_cut_on_a_character_boundary() {
        let long = "é".repeat(40);
        let bytes = encode_file_header(&long);
        let fixed: [u8; FILE_HEADER_FIXED] = bytes[..FILE_HEADER_FIXED].try_into().unwrap();
        let h = parse_fixed_header(&fixed).unwrap();
        assert!(h.version_len <= MAX_VERSION_LEN);
        assert!(
            std::str::from_utf8(&bytes[FILE_HEADER_FIXED..FILE_HEADER_FIXED + h.version_len])
                .is_ok()
        );
    }
}
