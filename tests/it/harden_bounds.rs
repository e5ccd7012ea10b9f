//! Crafted recordings inside the 64 MiB cap: per-field bounds at what a
//! kernel (and the live collector) can produce, refused with the frame's
//! offset; and the consumers' sum linear in the tallies, whatever the
//! number of processes.
//!
//! Defects: a 148 KB file with a 60 MiB command line copied the name into
//! every document (755 MB per JSON line); `--replay --json` of 530k tallies
//! ran past 300 s, its time growing quadratically.

use restop::demo::DemoSource;
use restop::model::{DetailScope, OwnerKey, ProcessInfo, ProcessKey, SourceKind, Tally};
use restop::record::{RecordWriter, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::time::{Duration, Instant};

fn demo_snapshot() -> restop::model::Snapshot {
    DemoSource::new(2, Duration::from_secs(1))
        .collect(&CollectRequest::default())
        .unwrap()
}

#[test]
fn a_command_line_longer_than_the_kernel_gives_is_refused_with_its_offset() {
    let mut snapshot = demo_snapshot();
    snapshot.processes[0].cmdline = vec!["x".repeat(1 << 20)];
    // The writer never writes what a reader would refuse.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.rec");
    let mut writer = RecordWriter::open(&path, SourceKind::Demo, Duration::from_secs(1)).unwrap();
    let err = writer
        .append(&snapshot, &DetailScope::ErrorsOnly)
        .unwrap_err()
        .to_string();
    assert!(err.contains("the command line of pid"), "{err}");
    assert!(
        err.contains("more than the 65536 a real host gives"),
        "{err}"
    );
    drop(writer);

    // A hostile writer's frame: refused on reading, with its offset.
    let encoder = restop::record::payload::PayloadEncoder::default();
    let mut ok = demo_snapshot();
    ok.processes[0].cmdline = vec!["y".repeat(60 << 10)];
    let encoded = encoder.encode(&ok, &DetailScope::ErrorsOnly).unwrap();
    assert!(restop::record::payload::decode(&encoded.payload, encoded.flags, None).is_ok());
    let text = serde_json::json!({
        "details": "ErrorsOnly",
        "meta": snapshot.meta,
        "devices": snapshot.devices,
        "processes": snapshot.processes,
        "tallies": snapshot.tallies,
        "objects": snapshot.objects,
    })
    .to_string();
    let mut bytes = restop::record::format::encode_file_header("0.1.0");
    let at = bytes.len();
    bytes.extend(
        restop::record::format::encode_frame(
            restop::record::format::KIND_SNAPSHOT,
            restop::record::format::FLAG_KEYFRAME,
            snapshot.meta.collected_at_ms,
            text.as_bytes(),
        )
        .unwrap(),
    );
    let err = ReplaySource::from_bytes(Box::new(bytes), "long.rec".into())
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("offset {at}")), "{err}");
    assert!(err.contains("the command line of pid"), "{err}");
}

#[test]
fn the_consumers_sum_is_linear_in_tallies_and_processes() {
    let time = |n: u32| {
        let mut snapshot = demo_snapshot();
        let template = snapshot.tallies[0].clone();
        let device = template.device;
        for pid in 0..n {
            let key = ProcessKey {
                pid: 1_000_000 + pid,
                start_time: 7,
            };
            snapshot.processes.push(ProcessInfo::unknown(key));
            snapshot.tallies.push(Tally {
                owner: OwnerKey::Process(key),
                device,
                ..template.clone()
            });
        }
        let started = Instant::now();
        let rows = restop::model::consumers::consumers(&snapshot, &Default::default());
        assert!(rows.len() >= n as usize);
        started.elapsed()
    };
    // Side by side, not against a clock: 8 times the entries must not
    // cost 64 times the time (it did, with a process lookup per owner).
    let small = time(5_000);
    let large = time(40_000);
    eprintln!("consumers: 5,000 owners {small:?}, 40,000 owners {large:?}");
    assert!(
        large < small * 24,
        "5k {small:?} vs 40k {large:?}: not linear"
    );
}
