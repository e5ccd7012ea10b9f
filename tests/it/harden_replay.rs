//! A snapshot whose CRC matches but that cannot be decoded is damage like
//! any other: `--replay` skips it up to the next keyframe, says how much it
//! skipped, and every replayed snapshot's note counts it.
//!
//! Defect: as the first keyframe it made `--replay` fail outright (rc 1, 0
//! of 120 snapshots shown); in mid-file the dropped snapshots showed only as
//! `collection failed` on stderr.

use crate::support::recording::demo_recording;
use restop::record::ReplaySource;
use restop::record::format::{FRAME_HEADER_LEN, FrameHeader, encode_frame};
use std::process::Command;

/// `bytes` with the frame at `at` replaced by one of the same kind, flags
/// and time whose payload is `payload`, with a good CRC.
fn replace_payload(bytes: &[u8], at: u64, payload: &[u8]) -> Vec<u8> {
    let at = at as usize;
    let head: [u8; FRAME_HEADER_LEN] = bytes[at..at + FRAME_HEADER_LEN].try_into().unwrap();
    let header = FrameHeader::parse(&head);
    let end = at + header.frame_len() as usize;
    let mut out = bytes[..at].to_vec();
    out.extend(encode_frame(header.kind, header.flags, header.time_ms, payload).unwrap());
    out.extend_from_slice(&bytes[end..]);
    out
}

fn deflated(text: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text).unwrap();
    encoder.finish().unwrap()
}

fn replay_json_lines(bytes: &[u8]) -> (Option<i32>, usize, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.rec");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(["--replay", path.to_str().unwrap(), "--batch", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines = stdout.lines().count();
    let note = stdout
        .lines()
        .next()
        .map(|l| {
            let doc: serde_json::Value = serde_json::from_str(l).unwrap();
            doc["meta"]["warnings"].to_string()
        })
        .unwrap_or_default();
    (
        out.status.code(),
        lines,
        format!("{note}\n{}", String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn an_undecodable_first_keyframe_is_skipped_to_the_next_keyframe() {
    let sample = demo_recording(3, 120);
    for (what, payload) in [
        ("not deflate", b"\x00\x01 not deflate at all".to_vec()),
        ("not a snapshot", deflated(b"{\"details\":1}")),
        ("not JSON", deflated(b"\xff\xfe garbage")),
    ] {
        let bytes = replace_payload(&sample.bytes, sample.starts[0], &payload);
        let (code, lines, note) = replay_json_lines(&bytes);
        assert_eq!(code, Some(0), "{what}: {note}");
        assert_eq!(lines, 60, "{what}: the second keyframe on: {note}");
        assert!(
            note.contains(&format!(
                "record at offset {} is corrupt (cannot be decoded",
                sample.starts[0]
            )),
            "{what}: {note}"
        );
        assert!(
            note.contains("(59 snapshots after it skipped too"),
            "{what}: {note}"
        );
    }
}

#[test]
fn an_undecodable_frame_in_mid_file_is_counted_like_a_damaged_one() {
    let sample = demo_recording(4, 120);
    let at = sample.starts[30];
    let bytes = replace_payload(
        &sample.bytes,
        at,
        &deflated(b"{\"details\":\"ErrorsOnly\"}"),
    );
    let (code, lines, note) = replay_json_lines(&bytes);
    assert_eq!(code, Some(0), "{note}");
    assert_eq!(lines, 90, "30 before it, 60 from the next keyframe: {note}");
    assert!(!note.contains("collection failed"), "{note}");
    assert!(
        note.contains(&format!(
            "record at offset {at} is corrupt (cannot be decoded"
        )),
        "{note}"
    );
    assert!(
        note.contains("(29 snapshots after it skipped too"),
        "{note}"
    );

    // The same through the library: the replay's length and its note.
    let replay = ReplaySource::from_bytes(Box::new(bytes), "f.rec".into()).unwrap();
    assert_eq!(replay.len(), 90);
    assert!(replay.note().unwrap().contains("cannot be decoded"));
}

/// Defect: `--replay` of a FIFO blocked at open until a writer came, which
/// may be never. It is refused at once, saying what it is.
#[test]
fn a_fifo_or_a_directory_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.rec");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    for (path, what) in [
        (fifo.as_path(), "it is a FIFO"),
        (dir.path(), "it is a directory"),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
            .arg("--replay")
            .arg(path)
            .arg("--once")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("--replay {} still blocked after 20 s", path.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(what), "{stderr}");
        assert!(stderr.contains("a recording is a regular file"), "{stderr}");
    }
}
