//! A snapshot frame's payload: the snapshot as JSON (the model's own serde
//! form), deflated. The four big lists (devices, processes, tallies, objects)
//! are left out when they are byte-for-byte what the previous snapshot frame
//! had: processes and error QPs rarely change from one tick to the next.
//! A keyframe carries everything; the writer makes one at the start of each
//! session and every `KEYFRAME_EVERY` snapshots, so a reader seeking to any
//! snapshot decodes at most that many frames.

use super::format::{FLAG_DEFLATE, FLAG_KEYFRAME};
use crate::model::{DetailScope, Device, Meta, Object, ProcessInfo, Snapshot, Tally};
use flate2::Compression;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

pub const KEYFRAME_EVERY: u32 = 60;

/// A payload inflating to more than this is not one restop wrote.
const MAX_INFLATED: u64 = 1 << 30;

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
    pub fn into_snapshot(self, meta: Meta) -> Snapshot {
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
    devices: Option<Vec<Device>>,
    processes: Option<Vec<ProcessInfo>>,
    tallies: Option<Vec<Tally>>,
    objects: Option<Vec<Object>>,
}

/// A decoded snapshot frame: its own meta and detail scope, and every part,
/// taken from `previous` (the parts of the snapshot frame before it) where
/// the frame left one out.
pub fn decode(
    payload: &[u8],
    flags: u8,
    previous: Option<Parts>,
) -> Result<(Meta, DetailScope, Parts), String> {
    let mut text = Vec::new();
    let json: &[u8] = if flags & FLAG_DEFLATE != 0 {
        DeflateDecoder::new(payload)
            .take(MAX_INFLATED + 1)
            .read_to_end(&mut text)
            .map_err(|e| format!("bad compressed data: {e}"))?;
        if text.len() as u64 > MAX_INFLATED {
            return Err("inflates to more than 1 GiB".into());
        }
        &text
    } else {
        payload
    };
    let frame: Frame = serde_json::from_slice(json).map_err(|e| e.to_string())?;
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
    Ok((frame.meta, frame.details, parts))
}
