//! A write that fails half-way (the file size limit standing in for a full
//! disk) is reported in the snapshot, leaves the file readable, and recording
//! resumes once there is room again.
//!
//! One test only: the file size limit applies to the whole test process.

use restop::demo::DemoSource;
use restop::model::{DetailScope, SourceKind};
use restop::record::{RecordWriter, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

fn set_file_size_limit(bytes: u64) {
    let mut limit = nix::libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain system calls on a local struct.
    unsafe {
        assert_eq!(nix::libc::getrlimit(nix::libc::RLIMIT_FSIZE, &mut limit), 0);
        limit.rlim_cur = bytes.min(limit.rlim_max);
        assert_eq!(nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &limit), 0);
    }
}

#[test]
fn a_full_disk_costs_snapshots_not_the_recording() {
    // Writes past the limit fail with EFBIG instead of killing the process.
    // SAFETY: ignoring a signal installs no handler code.
    unsafe {
        nix::sys::signal::signal(
            nix::sys::signal::Signal::SIGXFSZ,
            nix::sys::signal::SigHandler::SigIgn,
        )
        .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.rec");
    let mut source = DemoSource::new(4, Duration::from_secs(1));
    let mut collect = || source.collect(&CollectRequest::default()).unwrap();
    let details = DetailScope::ErrorsOnly;

    let mut writer = RecordWriter::open(&path, SourceKind::Demo, Duration::from_secs(1)).unwrap();
    for _ in 0..3 {
        writer.append(&collect(), &details).unwrap();
    }
    let whole = writer.size();
    // Room for a few hundred bytes more: the next frame is cut short.
    set_file_size_limit(whole + 300);
    let mut snapshot = collect();
    let failure = writer.record_into(&mut snapshot, &details).unwrap();
    assert!(failure.starts_with("snapshot not recorded: "), "{failure}");
    assert!(failure.contains("File too large"), "{failure}");
    assert!(
        failure.ends_with("(restop retries with the next one)"),
        "{failure}"
    );
    let warning = snapshot.meta.warnings.last().unwrap();
    assert_eq!(warning.message, failure);
    // The torn frame was cut off again.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    assert_eq!(ReplaySource::open(&path).unwrap().len(), 3);

    // Room again: the next snapshot is recorded after the last whole one.
    set_file_size_limit(u64::MAX);
    let next = collect();
    writer.append(&next, &details).unwrap();
    drop(writer);
    let mut replay = ReplaySource::open(&path).unwrap();
    assert_eq!(replay.note(), None);
    assert_eq!(replay.len(), 4);
    assert_eq!(
        replay.read(3).unwrap().snapshot.meta.collected_at_ms,
        next.meta.collected_at_ms
    );
}
