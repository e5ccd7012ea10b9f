//! A snapshot frame's payload: the snapshot as JSON (the model's own serde
//! form), deflated. The four big lists (devices, processes, tallies, objects)
//! are left out when they are byte-for-byte what the previous snapshot frame
//! had: processes and error QPs rarely change from one tick to the next.
//! A keyframe carries everything; the writer makes one at the start of each
//! session and every `KEYFRAME_EVERY` snapshots, so a reader seeking to any
//! snapshot decodes at most that many frames.

use super::format::{FLAG_DEFLATE, FLAG_KEYFRAME};
use super::limits::{self, CountingReader};
use crate::model::{DetailScope, Device, Meta, Object, ProcessInfo, Snapshot, Tally};
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use serde::{Deserialize, Serialize};
use std::io::Write;

pub(crate) const KEYFRAME_EVERY: u32 = 60;

/// A payload inflating to more than this is not one restop wrote (a host
/// with 10 000 processes and every object in detail is far below).
pub(crate) const MAX_INFLATED: u64 = 64 << 20;

const PART_NAMES: [&str; 4] = ["devices", "processes", "tallies", "objects"];

/// The parts of a snapshot a frame may leave out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parts {
    pub devices: Vec<Device>,
    pub processes: Vec<ProcessInfo>,
    pub tallies: Vec<Tally>,
    pub objects: Vec<Object>,
}

impl Parts {
    pub(crate) fn into_snapshot(self, meta: Meta) -> Snapshot {
        Snapshot {
            meta,
            devices: self.devices,
            processes: self.processes,
            tallies: self.tallies,
            objects: self.objects,
        }
    }
}

/// One encoded snapshot, not yet known to be on disk.
#[derive(Debug)]
pub struct Encoded {
    pub payload: Vec<u8>,
    pub flags: u8,
    parts: [Vec<u8>; 4],
}

/// Remembers what the previous written frame held, to leave out what repeats.
#[derive(Debug, Default)]
pub struct PayloadEncoder {
    previous: Option<[Vec<u8>; 4]>,
    since_keyframe: u32,
}

impl PayloadEncoder {
    pub fn encode(&self, snapshot: &Snapshot, details: &DetailScope) -> Result<Encoded, String> {
        // What a reader would refuse is never written.
        limits::check_meta(&snapshot.meta)?;
        limits::check_devices(&snapshot.devices)?;
        limits::check_processes(&snapshot.processes)?;
        limits::check_entries([
            snapshot.devices.len(),
            snapshot.processes.len(),
            snapshot.tallies.len(),
            snapshot.objects.len(),
        ])?;
        let parts = [
            json(&snapshot.devices)?,
            json(&snapshot.processes)?,
            json(&snapshot.tallies)?,
            json(&snapshot.objects)?,
        ];
        let previous = self
            .previous
            .as_ref()
            .filter(|_| self.since_keyframe < KEYFRAME_EVERY);
        let mut text = Vec::with_capacity(parts.iter().map(Vec::len).sum::<usize>() + 512);
        text.extend_from_slice(b"{\"details\":");
        text.extend_from_slice(&json(details)?);
        text.extend_from_slice(b",\"meta\":");
        text.extend_from_slice(&json(&snapshot.meta)?);
        for (i, part) in parts.iter().enumerate() {
            if previous.is_some_and(|p| &p[i] == part) {
                continue;
            }
            text.extend_from_slice(b",\"");
            text.extend_from_slice(PART_NAMES[i].as_bytes());
            text.extend_from_slice(b"\":");
            text.extend_from_slice(part);
        }
        text.push(b'}');
        if text.len() as u64 > MAX_INFLATED {
            return Err(format!(
                "the snapshot is {} bytes of JSON, more than the {} MiB a record may hold",
                text.len(),
                MAX_INFLATED >> 20
            ));
        }
        let mut deflate = DeflateEncoder::new(Vec::new(), Compression::default());
        let payload = deflate
            .write_all(&text)
            .and_then(|()| deflate.finish())
            .map_err(|e| e.to_string())?;
        let keyframe = if previous.is_none() { FLAG_KEYFRAME } else { 0 };
        Ok(Encoded {
            payload,
            flags: FLAG_DEFLATE | keyframe,
            parts,
        })
    }

    /// `encoded` is on disk: later frames may refer to it.
    pub fn commit(&mut self, encoded: Encoded) {
        if encoded.flags & FLAG_KEYFRAME != 0 {
            self.since_keyframe = 0;
        }
        self.since_keyframe += 1;
        self.previous = Some(encoded.parts);
    }
}

fn json<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
struct Frame {
    details: DetailScope,
    meta: Meta,
    #[serde(default, deserialize_with = "limits::devices")]
    devices: Option<Vec<Device>>,
    #[serde(default, deserialize_with = "limits::processes")]
    processes: Option<Vec<ProcessInfo>>,
    #[serde(default, deserialize_with = "limits::tallies")]
    tallies: Option<Vec<Tally>>,
    #[serde(default, deserialize_with = "limits::objects")]
    objects: Option<Vec<Object>>,
}

/// Inflates and parses a snapshot frame's payload, within the bounds.
fn parse(payload: &[u8], flags: u8) -> Result<Frame, String> {
    let parsed: Result<Frame, serde_json::Error> = if flags & FLAG_DEFLATE != 0 {
        let mut reader = CountingReader::new(DeflateDecoder::new(payload), MAX_INFLATED);
        let parsed = serde_json::from_reader(std::io::BufReader::new(&mut reader));
        if reader.over_limit() {
            return Err(format!("inflates to more than {} MiB", MAX_INFLATED >> 20));
        }
        parsed
    } else if payload.len() as u64 > MAX_INFLATED {
        return Err(format!("more than {} MiB", MAX_INFLATED >> 20));
    } else {
        serde_json::from_slice(payload)
    };
    let frame = parsed.map_err(|e| {
        if e.is_io() {
            format!("bad compressed data: {e}")
        } else {
            e.to_string()
        }
    })?;
    limits::check_meta(&frame.meta)?;
    if let Some(devices) = &frame.devices {
        limits::check_devices(devices)?;
    }
    if let Some(processes) = &frame.processes {
        limits::check_processes(processes)?;
    }
    Ok(frame)
}

/// How many entries each of the four lists of a snapshot holds.
pub(crate) type Lengths = [usize; 4];

/// Whether a snapshot frame (its CRC already checked) can be decoded:
/// `base` holds the list lengths of the earlier snapshot frame it may build
/// on, when that one was decodable. The scan uses this so that a frame
/// restop cannot read is damage like any other, skipped up to the next
/// keyframe; the lengths of this frame's snapshot are returned for the next.
pub fn check(payload: &[u8], flags: u8, base: Option<Lengths>) -> Result<Lengths, String> {
    let frame = parse(payload, flags)?;
    let own = [
        frame.devices.as_ref().map(Vec::len),
        frame.processes.as_ref().map(Vec::len),
        frame.tallies.as_ref().map(Vec::len),
        frame.objects.as_ref().map(Vec::len),
    ];
    let mut lengths = [0; 4];
    for (i, len) in own.into_iter().enumerate() {
        lengths[i] = match (len, base) {
            (Some(n), _) => n,
            (None, Some(base)) => base[i],
            (None, None) => {
                return Err(format!(
                    "its {} are those of an earlier record, and there is none",
                    PART_NAMES[i]
                ));
            }
        };
    }
    limits::check_entries(lengths)?;
    Ok(lengths)
}

/// A decoded snapshot frame: its own meta and detail scope, and every part,
/// taken from `previous` (the parts of the snapshot frame before it) where
/// the frame left one out. The JSON is parsed as it inflates, never held
/// whole, and refused past `MAX_INFLATED` bytes or the entry limits of
/// `limits`, so a hostile file cannot make the reader take more memory than
/// the largest real snapshot would.
pub fn decode(
    payload: &[u8],
    flags: u8,
    previous: Option<Parts>,
) -> Result<(Meta, DetailScope, Parts), String> {
    let frame = parse(payload, flags)?;
    fn part<T>(
        own: Option<Vec<T>>,
        previous: Option<Vec<T>>,
        name: &str,
    ) -> Result<Vec<T>, String> {
        own.or(previous)
            .ok_or_else(|| format!("its {name} are those of an earlier record, and there is none"))
    }
    let (devices, processes, tallies, objects) = match previous {
        Some(p) => (
            Some(p.devices),
            Some(p.processes),
            Some(p.tallies),
            Some(p.objects),
        ),
        None => (None, None, None, None),
    };
    let parts = Parts {
        devices: part(frame.devices, devices, "devices")?,
        processes: part(frame.processes, processes, "processes")?,
        tallies: part(frame.tallies, tallies, "tallies")?,
        objects: part(frame.objects, objects, "objects")?,
    };
    limits::check_entries([
        parts.devices.len(),
        parts.processes.len(),
        parts.tallies.len(),
        parts.objects.len(),
    ])?;
    Ok((frame.meta, frame.details, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ProcessInfo, ProcessKey, SourceKind, UnixMs};
    use std::io::Read;

    fn snapshot(at: u64, processes: usize) -> Snapshot {
        Snapshot {
            meta: Meta {
                source: SourceKind::Live,
                host: "h".into(),
                kernel: "k".into(),
                collected_at_ms: UnixMs(at),
                collect_us: 1,
                netns_mode: None,
                hidden_fields: Vec::new(),
                warnings: Vec::new(),
            },
            devices: Vec::new(),
            processes: (0..processes)
                .map(|pid| {
                    ProcessInfo::unknown(ProcessKey {
                        pid: pid as u32,
                        start_time: 7,
                    })
                })
                .collect(),
            tallies: Vec::new(),
            objects: Vec::new(),
        }
    }

    fn inflate(payload: &[u8]) -> String {
        let mut text = String::new();
        DeflateDecoder::new(payload)
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    #[test]
    fn unchanged_parts_are_left_out_until_the_next_keyframe() {
        let mut encoder = PayloadEncoder::default();
        let details = DetailScope::ErrorsOnly;
        let first = encoder.encode(&snapshot(1, 3), &details).unwrap();
        assert_eq!(first.flags, FLAG_DEFLATE | FLAG_KEYFRAME);
        assert!(inflate(&first.payload).contains("\"processes\":["));
        let (_, _, parts) = decode(&first.payload, first.flags, None).unwrap();
        encoder.commit(first);

        let second = encoder.encode(&snapshot(2, 3), &details).unwrap();
        assert_eq!(second.flags, FLAG_DEFLATE);
        let text = inflate(&second.payload);
        assert!(!text.contains("\"processes\""), "{text}");
        assert!(
            decode(&second.payload, second.flags, None).is_err(),
            "needs its predecessor"
        );
        let (meta, _, decoded) =
            decode(&second.payload, second.flags, Some(parts.clone())).unwrap();
        assert_eq!(meta.collected_at_ms, UnixMs(2));
        assert_eq!(decoded, parts);
        encoder.commit(second);

        let changed = encoder.encode(&snapshot(3, 4), &details).unwrap();
        assert!(inflate(&changed.payload).contains("\"processes\":["));
        encoder.commit(changed);
    }

    #[test]
    fn a_keyframe_every_so_many_snapshots() {
        let mut encoder = PayloadEncoder::default();
        let mut keyframes = Vec::new();
        for i in 0..=2 * KEYFRAME_EVERY {
            let encoded = encoder
                .encode(&snapshot(u64::from(i), 2), &DetailScope::ErrorsOnly)
                .unwrap();
            if encoded.flags & FLAG_KEYFRAME != 0 {
                keyframes.push(i);
            }
            encoder.commit(encoded);
        }
        assert_eq!(keyframes, [0, KEYFRAME_EVERY, 2 * KEYFRAME_EVERY]);
    }

    #[test]
    fn garbage_payloads_are_errors() {
        assert!(decode(b"\x00\x01garbage", FLAG_DEFLATE, None).is_err());
        assert!(decode(b"{\"details\":1}", 0, None).is_err());
        assert!(decode(b"", FLAG_DEFLATE | FLAG_KEYFRAME, None).is_err());
    }
}
