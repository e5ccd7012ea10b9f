//! Recordings under abuse: flipped bits with and without a CRC fix-up,
//! truncation at every frame boundary and inside frames, zip bombs and
//! amplification. Whatever the damage, reading never panics, a torn tail is
//! the only thing `--record` ever cuts off, damage inside the file is
//! skipped with its offset and size, and no snapshot that could be replayed
//! before a `--record` is lost by it.

use crate::support::recording::{Sample, demo_recording};
use restop::model::SourceKind;
use restop::record::format::{FLAG_DEFLATE, FLAG_KEYFRAME, KIND_SNAPSHOT, encode_frame};
use restop::record::{RecordWriter, ReplaySource};
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// Eighty demo snapshots (two keyframes), and where each snapshot frame starts.
fn sample() -> &'static Sample {
    static SAMPLE: OnceLock<Sample> = OnceLock::new();
    SAMPLE.get_or_init(|| demo_recording(3, 80))
}

fn replay(bytes: &[u8]) -> Option<ReplaySource> {
    ReplaySource::from_bytes(Box::new(bytes.to_vec()), "f.rec".into()).ok()
}

fn replayable(bytes: &[u8]) -> usize {
    replay(bytes).map_or(0, |r| r.len())
}

/// Runs what `--record FILE` does on opening; returns the file afterwards.
fn record_onto(path: &Path, bytes: &[u8]) -> (Result<(), String>, Vec<u8>) {
    std::fs::write(path, bytes).unwrap();
    let opened = RecordWriter::open(path, SourceKind::Demo, Duration::from_secs(1))
        .map(drop)
        .map_err(|e| e.to_string());
    (opened, std::fs::read(path).unwrap())
}

/// A small deterministic generator: the same mutations on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Defect: a length that ran past the end of the file in the middle was taken
/// for a torn tail, and `--record` cut 80 snapshots down to the first few.
#[test]
fn a_flipped_length_bit_in_the_middle_is_refused_and_the_file_left_whole() {
    let s = sample();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.rec");
    for frame in [1usize, 10, 40, 78] {
        for bit in [0u8, 3, 7] {
            let at = s.starts[frame] as usize;
            let mut bytes = s.bytes.clone();
            // The third byte of the length: it grows by a multiple of 64 KiB.
            bytes[at + 4] ^= 1 << bit;
            let (opened, after) = record_onto(&path, &bytes);
            let err = opened.expect_err("a damaged recording is not appended to");
            assert!(
                err.contains(&format!("record at offset {at} is corrupt")),
                "frame {frame} bit {bit}: {err}"
            );
            assert_eq!(
                after, bytes,
                "frame {frame} bit {bit}: the file was changed"
            );
            let r = replay(&bytes).unwrap();
            let note = r.note().unwrap();
            assert!(
                note.contains(&format!("record at offset {at} is corrupt"))
                    && note.contains("bytes skipped, reading resumed at offset"),
                "{note}"
            );
            // Snapshots from the next keyframe (60) on are still there.
            assert!(
                r.len() >= 80 - 60,
                "frame {frame}: only {} replayed",
                r.len()
            );
        }
    }
}

#[test]
fn a_cut_at_every_frame_boundary_and_inside_frames_is_a_torn_tail_only() {
    let s = sample();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.rec");
    let mut ends: Vec<usize> = s.starts.iter().skip(1).map(|&x| x as usize).collect();
    ends.push(s.bytes.len());
    for (i, &start) in s.starts.iter().enumerate() {
        let start = start as usize;
        let end = ends[i];
        for cut in [
            start,
            start + 1,
            start + 17,
            start + 18,
            (start + end) / 2,
            end - 1,
        ] {
            let bytes = &s.bytes[..cut];
            let r = replay(bytes);
            assert_eq!(r.as_ref().map_or(0, |r| r.len()), i, "cut at {cut}");
            if let Some(note) = r.as_ref().and_then(|r| r.note()) {
                assert!(note.contains("is incomplete and was ignored"), "{note}");
            }
            let (opened, after) = record_onto(&path, bytes);
            opened.unwrap();
            assert_eq!(&after[..start], &s.bytes[..start], "cut at {cut}");
            assert_eq!(replayable(&after), i, "cut at {cut}: appended file");
        }
    }
}

#[test]
fn random_damage_never_costs_a_replayable_snapshot() {
    let s = sample();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.rec");
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for round in 0..150 {
        let mut bytes = s.bytes.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
        }
        if rng.below(4) == 0 {
            bytes.truncate(bytes.len() - rng.below(bytes.len() / 3));
        }
        let before = replayable(&bytes);
        if let Some(mut r) = replay(&bytes) {
            // The last one decodes every frame since its keyframe.
            let _ = r.read(r.len() - 1);
        }
        let (opened, after) = record_onto(&path, &bytes);
        match opened {
            Ok(()) => assert!(
                replayable(&after) >= before,
                "round {round}: --record lost snapshots"
            ),
            Err(_) => assert_eq!(after, bytes, "round {round}: a refused file was changed"),
        }
    }
}

/// Rewrites the CRC of the frame at `at` to match its (changed) bytes.
fn fix_crc(bytes: &mut [u8], at: usize) {
    let len = u32::from_le_bytes(bytes[at + 2..at + 6].try_into().unwrap()) as usize;
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&bytes[at..at + 14]);
    hasher.update(&bytes[at + 18..at + 18 + len]);
    let crc = hasher.finalize();
    bytes[at + 14..at + 18].copy_from_slice(&crc.to_le_bytes());
}

/// A frame whose CRC matches but that does not decode is damage like any
/// other: skipped up to the next keyframe and said where (it used to be kept
/// and fail only when read).
#[test]
fn mutated_payloads_with_a_fixed_crc_are_skipped_as_damage_not_panics() {
    let s = sample();
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    let mut skipped = 0;
    for round in 0..100 {
        let frame = rng.below(s.starts.len());
        let at = s.starts[frame] as usize;
        let end = s
            .starts
            .get(frame + 1)
            .map_or(s.bytes.len(), |&e| e as usize);
        let mut bytes = s.bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = at + 18 + rng.below(end - at - 18);
            bytes[i] = rng.next() as u8;
        }
        fix_crc(&mut bytes, at);
        let mut r = replay(&bytes).unwrap();
        if r.len() == 80 {
            // The mutation still decodes: every snapshot reads.
            assert!(r.read(frame).is_ok(), "round {round}");
            continue;
        }
        skipped += 1;
        let note = r.note().unwrap().to_string();
        assert!(
            note.contains(&format!(
                "record at offset {at} is corrupt (cannot be decoded"
            )) || note.contains(&format!("the last record (offset {at}, ")),
            "round {round}: {note}"
        );
        assert!(note.contains("cannot be decoded"), "round {round}: {note}");
        for i in 0..r.len() {
            assert!(r.read(i).is_ok(), "round {round}: what is kept reads");
        }
    }
    assert!(skipped > 60, "most mutations are noticed: {skipped}");
}

/// Why a file of one (hostile) snapshot cannot be replayed: it holds no
/// snapshot restop can read, and the error says why.
fn read_error(bytes: &[u8]) -> String {
    match ReplaySource::from_bytes(Box::new(bytes.to_vec()), "f.rec".into()) {
        Ok(r) => panic!("accepted, with {} snapshots", r.len()),
        Err(e) => e.to_string(),
    }
}

fn deflate(text: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text).unwrap();
    enc.finish().unwrap()
}

fn one_frame_file(payload: &[u8]) -> Vec<u8> {
    let s = sample();
    let mut bytes = s.bytes[..s.starts[0] as usize].to_vec();
    bytes.extend(
        encode_frame(
            KIND_SNAPSHOT,
            FLAG_DEFLATE | FLAG_KEYFRAME,
            restop::model::UnixMs(1),
            payload,
        )
        .unwrap(),
    );
    bytes
}

#[test]
fn a_zip_bomb_is_refused_with_its_size() {
    let zeros = vec![b' '; 65 << 20];
    let bytes = one_frame_file(&deflate(&zeros));
    assert!(bytes.len() < 1 << 20);
    let e = read_error(&bytes);
    assert!(e.contains("inflates to more than 64 MiB"), "{e}");
}

/// A small file that inflates to a million process entries.
fn amplified(processes: usize) -> Vec<u8> {
    let meta = serde_json::to_string(&sample_meta()).unwrap();
    let mut text =
        format!("{{\"details\":\"ErrorsOnly\",\"meta\":{meta},\"devices\":[],\"processes\":[");
    let entry = r#"{"key":{"pid":1,"start_time":7},"comm":"","cmdline":[],"uid":null,"user":null,"container":null,"started_at":null}"#;
    for i in 0..processes {
        if i > 0 {
            text.push(',');
        }
        text.push_str(entry);
    }
    text.push_str("],\"tallies\":[],\"objects\":[]}");
    one_frame_file(&deflate(text.as_bytes()))
}

fn sample_meta() -> restop::model::Meta {
    let s = sample();
    replay(&s.bytes).unwrap().read(0).unwrap().snapshot.meta
}

/// Defect: 956,729 process entries in a 3.4 MB file took 1.23 GB to load.
#[test]
fn an_amplified_snapshot_is_refused_early_and_in_bounded_memory() {
    let bytes = amplified(500_000);
    assert!(bytes.len() < 4 << 20, "{}", bytes.len());
    let e = read_error(&bytes);
    assert!(
        e.contains("more than 100000 processes in one snapshot"),
        "{e}"
    );
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        eprintln!("skipped the memory figure: no /usr/bin/time");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("amp.rec");
    std::fs::write(&file, &bytes).unwrap();
    let out = std::process::Command::new(time)
        .args(["-f", "maxrss_kib=%M"])
        .arg(env!("CARGO_BIN_EXE_restop"))
        .arg("--replay")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("more than 100000 processes"), "{stderr}");
    let kib: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kib="))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    eprintln!(
        "restop --replay of 500,000 process entries: peak RSS {} MiB",
        kib / 1024
    );
    assert!(kib < 200 * 1024, "peak RSS {kib} KiB");
}
