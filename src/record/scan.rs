//! Reading a recording's structure: its header, and where each complete,
//! intact frame is. Payloads are checked (CRC) but not decoded here. The
//! walk stops at damage and asks what follows it: intact frames make it a
//! gap, nothing intact a torn tail (damage.rs says what each means).

use super::damage::{Ending, Gap};
use super::error::RecordError;
use super::format::{
    FILE_HEADER_FIXED, FLAG_KEYFRAME, FORMAT_VERSION, FixedHeader, FrameHeader, KIND_SESSION,
    KIND_SNAPSHOT, MAGIC, MAX_VERSION_LEN, file_header_crc_ok, parse_fixed_header,
};
use super::frame_check::{Damage, FrameAt, frame_at, next_intact_frame};
use super::payload::Lengths;
use super::read_at::ReadAt;
use crate::model::{Millis, SourceKind, UnixMs};
use serde::{Deserialize, Serialize};
use std::io;

/// Written at the start of every recording session (each `--record` run).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub restop_version: String,
    /// Where the session's snapshots came from (`live` or `demo`).
    pub source: SourceKind,
    pub interval_ms: Millis,
    /// Wall clock when recording began.
    pub started_at_ms: UnixMs,
}

/// Where one snapshot frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordEntry {
    pub offset: u64,
    pub payload_len: u32,
    pub flags: u8,
    /// The snapshot's collection time.
    pub time_ms: UnixMs,
    /// Index into `Scan::sessions`; `None` before any session frame.
    pub session: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    pub format_version: u16,
    /// The restop version that created the file.
    pub written_by: String,
    pub sessions: Vec<SessionInfo>,
    pub records: Vec<RecordEntry>,
    /// Damage with intact frames after it, in file order.
    pub gaps: Vec<Gap>,
    /// End of the last intact frame: where an append continues.
    pub good_end: u64,
    pub ending: Ending,
}

impl Scan {
    /// Everything a reader should be told about damage, if any.
    pub(crate) fn note(&self) -> Option<String> {
        let notes: Vec<String> = self
            .gaps
            .iter()
            .map(Gap::note)
            .chain(self.ending.note())
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// Reads the header and every intact frame of `bytes`. Errors only when the
/// file is not a readable recording at all; damage after the header is
/// reported in `Scan::gaps` and `Scan::ending`.
pub(crate) fn scan(bytes: &dyn ReadAt, path: &str) -> Result<Scan, RecordError> {
    scan_checking(bytes, path, Payloads::Decode)
}

/// How much of a snapshot frame the scan checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Payloads {
    /// That it decodes, as a reader needs (`--replay`).
    Decode,
    /// Only its CRC: where frames are is all an append needs to know.
    CrcOnly,
}

/// `scan`, checking snapshot payloads as `payloads` says.
pub(crate) fn scan_checking(
    bytes: &dyn ReadAt,
    path: &str,
    payloads: Payloads,
) -> Result<Scan, RecordError> {
    let io_error = |e| RecordError::io(path, "reading", e);
    let size = bytes.size().map_err(io_error)?;
    let (fixed, written_by) = read_header(bytes, size, path)?;
    let mut scan = Scan {
        format_version: fixed.format_version,
        written_by,
        sessions: Vec::new(),
        records: Vec::new(),
        gaps: Vec::new(),
        good_end: fixed.total_len() as u64,
        ending: Ending::Clean,
    };
    let mut payload = Vec::new();
    let mut offset = scan.good_end;
    // A decodable snapshot frame came before, for delta frames to build on:
    // the lengths of its lists.
    let mut base: Option<Lengths> = None;
    while offset < size {
        let damage = match frame_at(bytes, offset, size, &mut payload).map_err(io_error)? {
            FrameAt::Intact(header) => {
                match take_frame(&mut scan, &header, &payload, offset, &mut base, payloads) {
                    Ok(()) => {
                        let end = offset + header.frame_len();
                        scan.good_end = end;
                        offset = end;
                        continue;
                    }
                    Err(damage) => damage,
                }
            }
            FrameAt::Damaged(damage) => damage,
        };
        match next_intact_frame(bytes, offset + 1, size).map_err(io_error)? {
            Some(next) => {
                scan.gaps.push(Gap {
                    offset,
                    bytes: next - offset,
                    reason: damage.reason,
                    snapshots_skipped: 0,
                });
                offset = next;
                base = None;
                skip_to_keyframe(bytes, &mut scan, &mut offset, size, &mut payload)
                    .map_err(io_error)?;
            }
            None => {
                scan.ending = Ending::Torn {
                    offset,
                    bytes: size - offset,
                    reason: damage.reason,
                    incomplete: damage.incomplete,
                };
                break;
            }
        }
    }
    Ok(scan)
}

/// Records an intact frame. A session frame that does not parse, or a
/// snapshot frame that does not decode (its CRC matches, yet restop cannot
/// read it), is damage: skipped like a frame with a bad CRC.
fn take_frame(
    scan: &mut Scan,
    header: &FrameHeader,
    payload: &[u8],
    offset: u64,
    base: &mut Option<Lengths>,
    payloads: Payloads,
) -> Result<(), Damage> {
    match header.kind {
        KIND_SESSION => match serde_json::from_slice::<SessionInfo>(payload) {
            Ok(session) => scan.sessions.push(session),
            Err(e) => {
                return Err(Damage {
                    reason: format!("unreadable session header: {e}"),
                    incomplete: false,
                });
            }
        },
        KIND_SNAPSHOT => {
            let checked = match payloads {
                Payloads::Decode => super::payload::check(payload, header.flags, *base),
                // Not decoded: a base of unknown lengths.
                Payloads::CrcOnly => Ok(base.unwrap_or_default()),
            };
            match checked {
                Ok(lengths) => *base = Some(lengths),
                Err(e) => {
                    return Err(Damage {
                        reason: format!("cannot be decoded: {e}"),
                        incomplete: false,
                    });
                }
            }
            scan.records.push(RecordEntry {
                offset,
                payload_len: header.payload_len,
                flags: header.flags,
                time_ms: header.time_ms,
                session: scan.sessions.len().checked_sub(1),
            });
        }
        // A kind from a later restop: intact, so skipped.
        _ => {}
    }
    Ok(())
}

/// Right after a gap: steps over the intact snapshot frames that are not
/// keyframes (they build on what the gap lost), counting them in the gap.
/// Stops at a keyframe, a session frame, damage or the end.
fn skip_to_keyframe(
    bytes: &dyn ReadAt,
    scan: &mut Scan,
    offset: &mut u64,
    size: u64,
    payload: &mut Vec<u8>,
) -> io::Result<()> {
    while *offset < size {
        let FrameAt::Intact(header) = frame_at(bytes, *offset, size, payload)? else {
            return Ok(());
        };
        if header.kind != KIND_SNAPSHOT || header.flags & FLAG_KEYFRAME != 0 {
            return Ok(());
        }
        if let Some(gap) = scan.gaps.last_mut() {
            gap.snapshots_skipped += 1;
        }
        *offset += header.frame_len();
        scan.good_end = *offset;
    }
    Ok(())
}

fn read_header(
    bytes: &dyn ReadAt,
    size: u64,
    path: &str,
) -> Result<(FixedHeader, String), RecordError> {
    let read = |buf: &mut [u8], offset: u64| {
        bytes
            .read_exact_at(buf, offset)
            .map_err(|e| RecordError::io(path, "reading", e))
    };
    if size == 0 {
        return Err(RecordError::Empty { path: path.into() });
    }
    if size < FILE_HEADER_FIXED as u64 {
        let mut start = vec![0u8; size as usize];
        read(&mut start, 0)?;
        return Err(if MAGIC.starts_with(&start) || start.starts_with(&MAGIC) {
            RecordError::BadHeader {
                path: path.into(),
                reason: "incomplete".into(),
            }
        } else {
            RecordError::NotARecording { path: path.into() }
        });
    }
    let mut fixed_bytes = [0u8; FILE_HEADER_FIXED];
    read(&mut fixed_bytes, 0)?;
    let Some(fixed) = parse_fixed_header(&fixed_bytes) else {
        return Err(RecordError::NotARecording { path: path.into() });
    };
    let length_ok = fixed.version_len <= MAX_VERSION_LEN;
    let whole = length_ok && size >= fixed.total_len() as u64;
    let mut header = Vec::new();
    if whole {
        header.resize(fixed.total_len(), 0);
        read(&mut header, 0)?;
    }
    let written_by = header
        .get(FILE_HEADER_FIXED..FILE_HEADER_FIXED + fixed.version_len)
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_else(|| "unknown".into());
    if fixed.format_version != FORMAT_VERSION {
        return Err(RecordError::UnsupportedVersion {
            path: path.into(),
            found: fixed.format_version,
            supported: FORMAT_VERSION,
            written_by,
        });
    }
    let problem = if !length_ok {
        Some(format!(
            "corrupt (impossible version length {})",
            fixed.version_len
        ))
    } else if !whole {
        Some("incomplete".to_string())
    } else if !file_header_crc_ok(&header) {
        Some("corrupt (CRC mismatch)".to_string())
    } else {
        None
    };
    if let Some(reason) = problem {
        return Err(RecordError::BadHeader {
            path: path.into(),
            reason,
        });
    }
    Ok((fixed, written_by))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::format::{FRAME_HEADER_LEN, encode_file_header, encode_frame};

    fn session_frame() -> Vec<u8> {
        let info = SessionInfo {
            restop_version: "0.1.0".into(),
            source: SourceKind::Demo,
            interval_ms: Millis(1000),
            started_at_ms: UnixMs(5),
        };
        encode_frame(
            KIND_SESSION,
            0,
            UnixMs(5),
            &serde_json::to_vec(&info).unwrap(),
        )
        .unwrap()
    }

    fn file(frames: &[Vec<u8>]) -> Vec<u8> {
        let mut out = encode_file_header("0.1.0");
        for f in frames {
            out.extend_from_slice(f);
        }
        out
    }

    /// A snapshot payload that decodes (uncompressed JSON), `tag.len()`
    /// bytes longer than `payload_base()`.
    fn payload(tag: &[u8]) -> Vec<u8> {
        let meta = crate::model::Meta {
            source: SourceKind::Live,
            host: "h".into(),
            kernel: "k".into(),
            collected_at_ms: UnixMs(1),
            collect_us: 1,
            netns_mode: None,
            hidden_fields: Vec::new(),
            warnings: Vec::new(),
        };
        let mut text = format!(
            "{{\"details\":{},\"meta\":{},\"devices\":[],\"processes\":[],\"tallies\":[],\"objects\":[]}}",
            serde_json::to_string(&crate::model::DetailScope::ErrorsOnly).unwrap(),
            serde_json::to_string(&meta).unwrap()
        )
        .into_bytes();
        text.extend(std::iter::repeat_n(b' ', tag.len()));
        text
    }

    fn payload_base() -> usize {
        payload(b"").len()
    }

    fn snap(time: u64, tag: &[u8]) -> Vec<u8> {
        encode_frame(KIND_SNAPSHOT, 0, UnixMs(time), &payload(tag)).unwrap()
    }

    #[test]
    fn whole_file_lists_every_snapshot_frame() {
        let bytes = file(&[session_frame(), snap(10, b"a"), snap(20, b"bb")]);
        let s = scan(&bytes, "f").unwrap();
        assert_eq!(s.ending, Ending::Clean);
        assert_eq!(s.sessions.len(), 1);
        assert_eq!(
            s.records
                .iter()
                .map(|r| r.time_ms.as_u64())
                .collect::<Vec<_>>(),
            [10, 20]
        );
        assert_eq!(s.records[0].session, Some(0));
        assert_eq!(s.good_end, bytes.len() as u64);
    }

    #[test]
    fn unknown_frame_kinds_are_skipped() {
        let odd = encode_frame(77, 0, UnixMs(0), b"later").unwrap();
        let bytes = file(&[session_frame(), odd, snap(10, b"a")]);
        let s = scan(&bytes, "f").unwrap();
        assert_eq!(s.records.len(), 1);
        assert_eq!(s.ending, Ending::Clean);
    }

    #[test]
    fn a_torn_last_frame_is_incomplete_and_the_rest_is_kept() {
        let bytes = file(&[session_frame(), snap(10, b"a"), snap(20, b"bbbb")]);
        let cut = &bytes[..bytes.len() - 2];
        let s = scan(&cut.to_vec(), "f").unwrap();
        assert_eq!(s.records.len(), 1);
        assert!(matches!(
            s.ending,
            Ending::Torn {
                incomplete: true,
                ..
            }
        ));
        assert!(s.gaps.is_empty());
        assert!(s.ending.note().unwrap().contains("incomplete"));
    }

    #[test]
    fn a_flipped_byte_in_the_middle_is_a_gap_and_the_frames_after_it_are_kept() {
        let first = file(&[session_frame(), snap(10, b"a")]);
        let bad_at = first.len();
        let keyframe =
            encode_frame(KIND_SNAPSHOT, FLAG_KEYFRAME, UnixMs(40), &payload(b"k")).unwrap();
        let mut bytes = file(&[
            session_frame(),
            snap(10, b"a"),
            snap(20, b"bb"),
            snap(30, b"c"),
            keyframe,
        ]);
        bytes[bad_at + FRAME_HEADER_LEN] ^= 0xff;
        let s = scan(&bytes, "f").unwrap();
        assert_eq!(
            s.records
                .iter()
                .map(|r| r.time_ms.as_u64())
                .collect::<Vec<_>>(),
            [10, 40]
        );
        assert_eq!(s.gaps.len(), 1);
        assert_eq!(s.gaps[0].offset, bad_at as u64);
        assert_eq!(
            s.gaps[0].bytes,
            (FRAME_HEADER_LEN + payload_base() + 2) as u64
        );
        assert_eq!(s.gaps[0].snapshots_skipped, 1, "the delta frame after it");
        assert_eq!(s.ending, Ending::Clean);
        assert!(s.note().unwrap().starts_with(&format!(
            "record at offset {bad_at} is corrupt (CRC mismatch): {} bytes skipped",
            FRAME_HEADER_LEN + payload_base() + 2
        )));
    }

    #[test]
    fn a_length_past_the_end_with_frames_after_it_is_not_a_torn_tail() {
        let first = file(&[session_frame(), snap(10, b"a")]);
        let bad_at = first.len();
        let mut bytes = file(&[
            session_frame(),
            snap(10, b"a"),
            snap(20, b"bb"),
            snap(30, b"c"),
        ]);
        bytes[bad_at + 4] ^= 0x01; // the length grows by 64 KiB
        let s = scan(&bytes, "f").unwrap();
        assert_eq!(s.gaps.len(), 1);
        assert!(
            s.gaps[0].reason.contains("runs past the end"),
            "{:?}",
            s.gaps
        );
        assert_eq!(s.ending, Ending::Clean);
        assert_eq!(s.good_end, bytes.len() as u64);
    }

    #[test]
    fn foreign_empty_and_short_files() {
        let err = |b: &[u8]| scan(&b.to_vec(), "x").unwrap_err().to_string();
        assert_eq!(err(b""), "x is empty: not a restop recording");
        assert_eq!(
            err(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0"),
            "x is not a restop recording (bad magic at offset 0)"
        );
        assert_eq!(
            err(b"ab"),
            "x is not a restop recording (bad magic at offset 0)"
        );
        assert_eq!(
            err(b"RESTOP"),
            "x: the file header at offset 0 is incomplete"
        );
        let header = encode_file_header("0.1.0");
        assert_eq!(
            err(&header[..header.len() - 1]),
            "x: the file header at offset 0 is incomplete"
        );
        let mut bad = header.clone();
        bad[13] ^= 1;
        assert_eq!(
            err(&bad),
            "x: the file header at offset 0 is corrupt (CRC mismatch)"
        );
    }

    #[test]
    fn other_format_versions_are_named() {
        let mut header = encode_file_header("9.0.0");
        header[8] = 9;
        let e = scan(&header, "x").unwrap_err().to_string();
        assert_eq!(
            e,
            "x is a recording of format version 9 (written by restop 9.0.0); this restop reads version 1"
        );
    }

    #[test]
    fn an_impossible_length_is_corruption_not_a_wait_for_more() {
        let mut frame = snap(10, b"a");
        frame[2..6].copy_from_slice(&u32::MAX.to_le_bytes());
        let bytes = file(&[session_frame(), frame]);
        let s = scan(&bytes, "f").unwrap();
        assert!(s.ending.note().unwrap().contains("impossible length"));
    }
}
