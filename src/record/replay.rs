//! `--replay FILE`: a recording as a `Source`, with random access for the
//! interactive view's step and seek.
//!
//! Opening scans the file once (frame positions and times, CRCs checked);
//! snapshots are decoded when asked for, so a long recording costs little
//! memory. Replayed snapshots say `source: replay`, and carry a warning when
//! they were recorded from the simulated host or when the file is damaged.

use super::error::RecordError;
use super::format::{FLAG_KEYFRAME, FRAME_HEADER_LEN};
use super::payload::{Parts, decode};
use super::read_at::ReadAt;
use super::scan::{RecordEntry, Scan, SessionInfo, scan};
use crate::model::{DetailScope, Snapshot, SourceKind, Warning, WarningKind};
use crate::source::{CollectError, CollectRequest, Source};
use std::fs::File;
use std::path::Path;

/// One replayed snapshot and the detail scope it was collected with.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub snapshot: Snapshot,
    pub details: DetailScope,
}

pub struct ReplaySource {
    bytes: Box<dyn ReadAt + Send>,
    path: String,
    scan: Scan,
    /// Said with every snapshot: damage found while opening.
    note: Option<String>,
    /// Next snapshot `collect` returns.
    next: usize,
    /// The parts of the last decoded snapshot, to decode the next one from.
    cache: Option<(usize, Parts)>,
}

impl std::fmt::Debug for ReplaySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplaySource")
            .field("path", &self.path)
            .field("records", &self.scan.records.len())
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl ReplaySource {
    pub fn open(path: &Path) -> Result<ReplaySource, RecordError> {
        let name = path.display().to_string();
        let file = open_regular(path).map_err(|e| RecordError::io(&name, "opening", e))?;
        ReplaySource::from_bytes(Box::new(file), name)
    }

    /// A recording held by anything readable at offsets (tests use bytes).
    pub fn from_bytes(
        bytes: Box<dyn ReadAt + Send>,
        path: String,
    ) -> Result<ReplaySource, RecordError> {
        let scan = scan(bytes.as_ref(), &path)?;
        let note = scan.note().map(|n| format!("{path}: {n}"));
        if scan.records.is_empty() {
            let why = match &note {
                Some(n) => format!("; {n}"),
                None => String::new(),
            };
            return Err(RecordError::NoSnapshots { path, why });
        }
        Ok(ReplaySource {
            bytes,
            path,
            scan,
            note,
            next: 0,
            cache: None,
        })
    }

    /// Intact snapshots in the recording (damaged ones are skipped).
    pub fn len(&self) -> usize {
        self.scan.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scan.records.is_empty()
    }

    /// Collection time (Unix ms) of every snapshot, in file order.
    pub fn timeline(&self) -> Vec<crate::model::UnixMs> {
        self.scan.records.iter().map(|r| r.time_ms).collect()
    }

    pub fn sessions(&self) -> &[SessionInfo] {
        &self.scan.sessions
    }

    /// What was wrong with the file, if anything (its intact frames are replayed).
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The restop version that created the file.
    pub fn written_by(&self) -> &str {
        &self.scan.written_by
    }

    /// Index of the snapshot the next `collect` returns.
    pub fn position(&self) -> usize {
        self.next
    }

    /// `collect` continues from snapshot `index`.
    pub fn seek(&mut self, index: usize) {
        self.next = index.min(self.len());
    }

    /// Snapshot `index` (0-based), as recorded.
    pub fn read(&mut self, index: usize) -> Result<Recorded, RecordError> {
        let Some(entry) = self.scan.records.get(index).copied() else {
            return Err(RecordError::Decode {
                path: self.path.clone(),
                offset: self.scan.good_end,
                detail: format!(
                    "there is no snapshot {} (the file has {})",
                    index + 1,
                    self.len()
                ),
            });
        };
        // Start from the last snapshot decoded when it is on the way,
        // otherwise from the keyframe this snapshot builds on.
        let (start, mut parts) = match self.cache.take() {
            Some((at, parts)) if at < index && self.keyframe_for(index) <= at => {
                (at + 1, Some(parts))
            }
            _ => (self.keyframe_for(index), None),
        };
        let mut last = None;
        for i in start..=index {
            let Some(e) = self.scan.records.get(i).copied() else {
                break;
            };
            let (meta, details, decoded) = self.decode_entry(&e, parts.take())?;
            parts = Some(decoded);
            last = Some((meta, details));
        }
        let (Some((meta, details)), Some(parts)) = (last, parts) else {
            return Err(RecordError::Decode {
                path: self.path.clone(),
                offset: entry.offset,
                detail: "nothing decoded".into(),
            });
        };
        self.cache = Some((index, parts.clone()));
        let mut snapshot = parts.into_snapshot(meta);
        self.label(&mut snapshot, &entry);
        Ok(Recorded { snapshot, details })
    }

    /// The latest keyframe at or before `index` (0 if there is none: the
    /// decode then says what is missing).
    fn keyframe_for(&self, index: usize) -> usize {
        self.scan
            .records
            .iter()
            .take(index + 1)
            .rposition(|r| r.flags & FLAG_KEYFRAME != 0)
            .unwrap_or(0)
    }

    fn decode_entry(
        &self,
        entry: &RecordEntry,
        previous: Option<Parts>,
    ) -> Result<(crate::model::Meta, DetailScope, Parts), RecordError> {
        let decode_error = |detail: String| RecordError::Decode {
            path: self.path.clone(),
            offset: entry.offset,
            detail,
        };
        let mut payload = vec![0u8; entry.payload_len as usize];
        self.bytes
            .read_exact_at(&mut payload, entry.offset + FRAME_HEADER_LEN as u64)
            .map_err(|e| RecordError::io(&self.path, "reading", e))?;
        // Checked when opening; checked again in case the file changed since.
        decode(&payload, entry.flags, previous).map_err(|e| {
            let by = &self.scan.written_by;
            decode_error(format!("{e} (recorded by restop {by})"))
        })
    }

    /// Marks a replayed snapshot as such, so it never passes for live data.
    fn label(&self, snapshot: &mut Snapshot, entry: &RecordEntry) {
        let recorded_from = entry
            .session
            .and_then(|s| self.scan.sessions.get(s))
            .map(|s| s.source);
        snapshot.meta.source = SourceKind::Replay;
        if recorded_from == Some(SourceKind::Demo) {
            snapshot.meta.warnings.push(Warning::new(
                WarningKind::Other,
                "recorded from the simulated host (--demo), not a real one",
            ));
        }
        if let Some(note) = &self.note {
            snapshot
                .meta
                .warnings
                .push(Warning::new(WarningKind::Other, note.clone()));
        }
    }
}

/// Opens a recording without blocking (a FIFO's open waits for a writer
/// that may never come) and refuses what is not a regular file: a replay
/// reads at offsets, and a FIFO or a device has none to read.
fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    let Some(what) = crate::file_kind::not_regular(kind) else {
        return Ok(file);
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {what}; a recording is a regular file"),
    ))
}

impl Source for ReplaySource {
    fn kind(&self) -> SourceKind {
        SourceKind::Replay
    }

    /// The next recorded snapshot, whatever the request: a recording has the
    /// details it was made with. `Exhausted` after the last one.
    fn collect(&mut self, _request: &CollectRequest) -> Result<Snapshot, CollectError> {
        if self.next >= self.len() {
            return Err(CollectError::Exhausted);
        }
        let index = self.next;
        self.next += 1;
        self.read(index)
            .map(|r| r.snapshot)
            .map_err(|e| CollectError::Replay(e.to_string()))
    }
}
