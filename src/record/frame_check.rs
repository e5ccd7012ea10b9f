//! Telling an intact frame from damage, and finding the next intact frame
//! after damage. A scan uses this to decide whether damage is a torn tail
//! (nothing intact follows it: restop stopped while writing) or corruption
//! inside the file (intact frames follow: never cut off, never appended to).

use super::format::{
    FLAG_DEFLATE, FLAG_KEYFRAME, FRAME_HEADER_LEN, FrameHeader, KIND_SESSION, KIND_SNAPSHOT,
    MAX_PAYLOAD_LEN,
};
use super::read_at::ReadAt;
use std::io;

/// What is at one offset of a recording.
#[derive(Debug)]
pub(crate) enum FrameAt {
    /// An intact frame; its payload was read into the caller's buffer.
    Intact(FrameHeader),
    /// Not an intact frame.
    Damaged(Damage),
}

/// Why the bytes at an offset are not an intact frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Damage {
    pub reason: String,
    /// The frame is cut short (what a write stopped half-way leaves).
    pub incomplete: bool,
}

fn damaged(reason: String, incomplete: bool) -> FrameAt {
    FrameAt::Damaged(Damage { reason, incomplete })
}

/// Checks the frame at `offset` (which is below `size`), leaving its payload
/// in `payload` when it is intact.
pub(crate) fn frame_at(
    bytes: &dyn ReadAt,
    offset: u64,
    size: u64,
    payload: &mut Vec<u8>,
) -> io::Result<FrameAt> {
    let remaining = size.saturating_sub(offset);
    if remaining < FRAME_HEADER_LEN as u64 {
        return Ok(damaged(
            format!("only {remaining} bytes, less than a record header"),
            true,
        ));
    }
    let mut head = [0u8; FRAME_HEADER_LEN];
    bytes.read_exact_at(&mut head, offset)?;
    let header = FrameHeader::parse(&head);
    if header.payload_len > MAX_PAYLOAD_LEN {
        return Ok(damaged(
            format!("impossible length {}", header.payload_len),
            false,
        ));
    }
    if header.frame_len() > remaining {
        return Ok(damaged(
            format!(
                "its length {} runs past the end of the file",
                header.payload_len
            ),
            true,
        ));
    }
    payload.resize(header.payload_len as usize, 0);
    bytes.read_exact_at(payload, offset + FRAME_HEADER_LEN as u64)?;
    if header.expected_crc(payload) != header.crc {
        return Ok(damaged("CRC mismatch".into(), false));
    }
    Ok(FrameAt::Intact(header))
}

/// Bytes looked at per read while searching for the next frame.
const WINDOW: usize = 64 << 10;

/// A header restop could have written: a known kind with known flags and a
/// length that fits in the file. Only such headers are CRC-checked, so the
/// search costs about one pass over the bytes.
fn plausible(head: &[u8], at: u64, size: u64) -> Option<FrameHeader> {
    let head: &[u8; FRAME_HEADER_LEN] = head.get(..FRAME_HEADER_LEN)?.try_into().ok()?;
    let header = FrameHeader::parse(head);
    let known = match header.kind {
        KIND_SESSION => header.flags == 0,
        KIND_SNAPSHOT => header.flags & !(FLAG_DEFLATE | FLAG_KEYFRAME) == 0,
        _ => false,
    };
    let fits = header.payload_len <= MAX_PAYLOAD_LEN
        && at
            .checked_add(header.frame_len())
            .is_some_and(|end| end <= size);
    (known && fits).then_some(header)
}

/// The offset of the first intact session or snapshot frame at or after
/// `from`, if there is one. Frames of kinds this restop does not know are not
/// searched for (they are skipped only when reached on a frame boundary).
pub(crate) fn next_intact_frame(
    bytes: &dyn ReadAt,
    from: u64,
    size: u64,
) -> io::Result<Option<u64>> {
    let mut window = Vec::with_capacity(WINDOW + FRAME_HEADER_LEN);
    let mut payload = Vec::new();
    let mut start = from;
    while start.saturating_add(FRAME_HEADER_LEN as u64) <= size {
        let len = (size - start).min((WINDOW + FRAME_HEADER_LEN) as u64) as usize;
        window.resize(len, 0);
        bytes.read_exact_at(&mut window, start)?;
        let candidates = len.saturating_sub(FRAME_HEADER_LEN - 1).min(WINDOW);
        for i in 0..candidates {
            let at = start + i as u64;
            let Some(rest) = window.get(i..) else { break };
            if plausible(rest, at, size).is_some()
                && matches!(frame_at(bytes, at, size, &mut payload)?, FrameAt::Intact(_))
            {
                return Ok(Some(at));
            }
        }
        start += candidates.max(1) as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::UnixMs;
    use crate::record::format::encode_frame;

    #[test]
    fn the_next_frame_is_found_after_garbage() {
        let mut bytes = vec![0x55u8; 1000];
        bytes.extend(encode_frame(KIND_SNAPSHOT, FLAG_DEFLATE, UnixMs(3), b"abc").unwrap());
        assert_eq!(
            next_intact_frame(&bytes, 0, bytes.len() as u64).unwrap(),
            Some(1000)
        );
        assert_eq!(
            next_intact_frame(&bytes, 1001, bytes.len() as u64).unwrap(),
            None
        );
    }

    #[test]
    fn a_frame_across_a_window_boundary_is_found() {
        let mut bytes = vec![0u8; WINDOW - 5];
        bytes.extend(encode_frame(KIND_SESSION, 0, UnixMs(3), b"{}").unwrap());
        assert_eq!(
            next_intact_frame(&bytes, 0, bytes.len() as u64).unwrap(),
            Some(WINDOW as u64 - 5)
        );
    }

    #[test]
    fn a_header_without_its_payload_is_not_a_frame() {
        let frame = encode_frame(KIND_SNAPSHOT, 0, UnixMs(3), b"abcdef").unwrap();
        let cut = frame[..frame.len() - 1].to_vec();
        assert_eq!(next_intact_frame(&cut, 0, cut.len() as u64).unwrap(), None);
    }
}
