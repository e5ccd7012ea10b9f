//! Damaged, foreign and empty files: reading never panics, keeps every
//! intact snapshot before the damage, and says where the damage is.

use crate::support::recording::{Sample, demo_recording};
use proptest::prelude::*;
use restop::model::{DetailScope, SourceKind};
use restop::record::{RecordError, RecordWriter, ReplaySource};
use std::sync::OnceLock;
use std::time::Duration;

/// A recording of five demo snapshots, and where each snapshot frame starts.
fn sample() -> &'static Sample {
    static SAMPLE: OnceLock<Sample> = OnceLock::new();
    SAMPLE.get_or_init(|| demo_recording(2, 5))
}

fn open(bytes: Vec<u8>) -> Result<ReplaySource, RecordError> {
    ReplaySource::from_bytes(Box::new(bytes), "f.rec".into())
}

/// Reads every snapshot the scan found; none may panic, all must decode.
fn read_all(replay: &mut ReplaySource) -> usize {
    for i in 0..replay.len() {
        replay.read(i).unwrap();
    }
    replay.len()
}

#[test]
fn a_cut_anywhere_in_the_last_record_keeps_the_four_before_it() {
    let s = sample();
    let last = s.starts[4] as usize;
    for cut in last..s.bytes.len() {
        let mut replay = open(s.bytes[..cut].to_vec()).unwrap();
        assert_eq!(read_all(&mut replay), 4, "cut at {cut}");
        let note = replay.note().map(str::to_string);
        if cut == last {
            assert_eq!(note, None, "a cut between records is a whole file");
        } else {
            assert_eq!(
                note.unwrap(),
                format!(
                    "f.rec: the last record (offset {last}, {} bytes) is incomplete and was \
                     ignored: restop stopped while writing it",
                    cut - last
                )
            );
        }
        // The note travels with every replayed snapshot.
        let snapshot = replay.read(0).unwrap().snapshot;
        assert_eq!(
            snapshot
                .meta
                .warnings
                .iter()
                .any(|w| w.message.contains("incomplete")),
            cut != last
        );
    }
}

#[test]
fn a_cut_at_every_byte_of_the_file_never_panics() {
    let s = sample();
    for cut in 0..s.bytes.len() {
        // Snapshot frames that end at or before the cut are whole.
        let whole = (0..s.starts.len())
            .filter(|&i| {
                let end = s.starts.get(i + 1).copied().unwrap_or(s.bytes.len() as u64);
                end <= cut as u64
            })
            .count();
        match open(s.bytes[..cut].to_vec()) {
            Ok(replay) => assert_eq!(replay.len(), whole, "cut at {cut}"),
            Err(e) => {
                assert_eq!(whole, 0, "cut at {cut}: {e}");
                assert!(e.to_string().starts_with("f.rec"), "{e}");
            }
        }
    }
}

#[test]
fn a_corrupt_byte_in_the_middle_is_skipped_and_says_where_and_how_much() {
    let s = sample();
    let mut bytes = s.bytes.clone();
    let third = s.starts[2];
    bytes[third as usize + 30] ^= 0x5a;
    let mut replay = open(bytes).unwrap();
    // The two after it leave out parts of the lost one: skipped too.
    assert_eq!(read_all(&mut replay), 2);
    let fourth = s.starts[3];
    assert_eq!(
        replay.note().unwrap(),
        format!(
            "f.rec: record at offset {third} is corrupt (CRC mismatch): {} bytes skipped, \
             reading resumed at offset {fourth} (2 snapshots after it skipped too: they build \
             on the lost record)",
            fourth - third
        )
    );
}

#[test]
fn a_corrupt_first_record_leaves_nothing_to_replay() {
    let s = sample();
    let mut bytes = s.bytes.clone();
    let first = s.starts[0];
    bytes[first as usize + 20] ^= 1;
    let err = open(bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "f.rec holds no snapshot; f.rec: record at offset {first} is corrupt (CRC mismatch): \
             {} bytes skipped, reading resumed at offset {} (4 snapshots after it skipped too: \
             they build on the lost record)",
            s.starts[1] - first,
            s.starts[1]
        )
    );
}

#[test]
fn foreign_empty_and_header_only_files_get_clear_errors() {
    let err = |bytes: &[u8]| open(bytes.to_vec()).unwrap_err().to_string();
    assert_eq!(err(b""), "f.rec is empty: not a restop recording");
    assert_eq!(
        err(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        "f.rec is not a restop recording (bad magic at offset 0)"
    );
    assert_eq!(
        err(b"{\"schema_version\":1}\n"),
        "f.rec is not a restop recording (bad magic at offset 0)"
    );
    let s = sample();
    // Header and session frame, no snapshot.
    assert_eq!(
        err(&s.bytes[..s.starts[0] as usize]),
        "f.rec holds no snapshot"
    );
}

#[test]
fn the_file_header_names_its_problem() {
    let s = sample();
    let mut bytes = s.bytes.clone();
    bytes[9] = 2; // format version 2 (little-endian u16 at offset 8)
    bytes[8] = 0;
    assert_eq!(
        open(bytes).unwrap_err().to_string(),
        "f.rec is a recording of format version 512 (written by restop 0.1.0); this restop \
         reads version 1"
    );
    let mut bytes = s.bytes.clone();
    bytes[13] ^= 1; // inside the restop version
    assert_eq!(
        open(bytes).unwrap_err().to_string(),
        "f.rec: the file header at offset 0 is corrupt (CRC mismatch)"
    );
}

#[test]
fn recording_continues_after_a_torn_last_record_but_not_after_damage() {
    let s = sample();
    let dir = tempfile::tempdir().unwrap();

    // Torn: cut off, then appended to.
    let torn = dir.path().join("torn.rec");
    let cut = s.starts[4] as usize + 7;
    std::fs::write(&torn, &s.bytes[..cut]).unwrap();
    let mut writer = RecordWriter::open(&torn, SourceKind::Demo, Duration::from_secs(1)).unwrap();
    let snapshot = open(s.bytes.clone()).unwrap().read(4).unwrap().snapshot;
    writer.append(&snapshot, &DetailScope::ErrorsOnly).unwrap();
    drop(writer);
    let mut replay = ReplaySource::open(&torn).unwrap();
    assert_eq!(replay.note(), None);
    assert_eq!(read_all(&mut replay), 5);
    assert_eq!(replay.sessions().len(), 2);

    // Damaged in the middle: refused, and the file is left as it was.
    let damaged = dir.path().join("damaged.rec");
    let mut bytes = s.bytes.clone();
    bytes[s.starts[1] as usize + 25] ^= 0xff;
    std::fs::write(&damaged, &bytes).unwrap();
    let err = RecordWriter::open(&damaged, SourceKind::Demo, Duration::from_secs(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: record at offset {} is corrupt (CRC mismatch) and more data follows; restop \
             does not append after a damaged record: record to another file",
            damaged.display(),
            s.starts[1]
        )
    );
    assert_eq!(std::fs::read(&damaged).unwrap(), bytes);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any byte of the file changed to anything: reading gives an error or
    /// some snapshots, never a panic, and never more snapshots than were written.
    #[test]
    fn random_damage_never_panics(at in 0usize..100_000, value in any::<u8>(), cut in 0usize..100_000) {
        let s = sample();
        let mut bytes = s.bytes.clone();
        let at = at % bytes.len();
        bytes[at] = value;
        let cut = bytes.len() - cut % (bytes.len() / 4);
        bytes.truncate(cut);
        if let Ok(mut replay) = open(bytes) {
            prop_assert!(replay.len() <= 5);
            for i in 0..replay.len() {
                let _ = replay.read(i);
            }
        }
    }
}
