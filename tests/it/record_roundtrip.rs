//! Recording and replaying: what comes back is what was recorded, in order
//! and by random access, across sessions appended to one file.

use restop::demo::DemoSource;
use restop::model::consumers::consumers;
use restop::model::error_qps::error_qps;
use restop::model::filter::Filter;
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::record::{Opening, RecordError, RecordWriter, ReplaySource};
use restop::source::{CollectError, CollectRequest, Source};
use std::path::Path;
use std::time::Duration;

const STEP: Duration = Duration::from_secs(1);

/// `n` demo snapshots; every tenth keeps the objects of one process in
/// detail, as a drill-down would ask for.
fn demo_snapshots(n: usize) -> Vec<(Snapshot, DetailScope)> {
    let mut source = DemoSource::new(3, STEP);
    let mut out: Vec<(Snapshot, DetailScope)> = Vec::new();
    for i in 0..n {
        let details = match out.last() {
            Some((previous, _)) if i % 10 == 5 => {
                let pid = previous.processes.first().map(|p| p.key.pid).unwrap_or(1);
                DetailScope::Processes([pid].into_iter().collect())
            }
            _ => DetailScope::ErrorsOnly,
        };
        let request = CollectRequest {
            details: details.clone(),
            force_objects: false,
        };
        out.push((source.collect(&request).unwrap(), details));
    }
    out
}

fn record(path: &Path, snapshots: &[(Snapshot, DetailScope)]) -> RecordWriter {
    let mut writer = RecordWriter::open(path, SourceKind::Demo, STEP).unwrap();
    for (snapshot, details) in snapshots {
        writer.append(snapshot, details).unwrap();
    }
    writer
}

/// What a replayed snapshot should be: the recorded one, marked as replayed.
fn as_replayed(snapshot: &Snapshot) -> Snapshot {
    let mut s = snapshot.clone();
    s.meta.source = SourceKind::Replay;
    s.meta.warnings.push(restop::model::Warning::new(
        restop::model::WarningKind::Other,
        "recorded from the simulated host (--demo), not a real one",
    ));
    s
}

#[test]
fn replay_gives_back_the_same_snapshots_and_aggregates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    let recorded = demo_snapshots(100);
    let writer = record(&path, &recorded);
    assert_eq!(writer.written(), 100);
    drop(writer);

    let mut replay = ReplaySource::open(&path).unwrap();
    assert_eq!(replay.kind(), SourceKind::Replay);
    assert_eq!(replay.len(), 100);
    assert_eq!(replay.note(), None);
    assert_eq!(replay.sessions().len(), 1);
    assert_eq!(replay.sessions()[0].source, SourceKind::Demo);
    let all = Filter::default();
    for (i, (original, details)) in recorded.iter().enumerate() {
        let back = replay.read(i).unwrap();
        assert_eq!(&back.details, details, "snapshot {i}");
        assert_eq!(back.snapshot, as_replayed(original), "snapshot {i}");
        assert_eq!(consumers(&back.snapshot, &all), consumers(original, &all));
        assert_eq!(error_qps(&back.snapshot, &all), error_qps(original, &all));
        let usage =
            |s: &Snapshot| -> Vec<_> { s.devices.iter().map(|d| d.usage.clone()).collect() };
        assert_eq!(usage(&back.snapshot), usage(original));
    }
}

#[test]
fn as_a_source_it_plays_in_order_then_is_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    let recorded = demo_snapshots(12);
    drop(record(&path, &recorded));
    let mut replay = ReplaySource::open(&path).unwrap();
    let request = CollectRequest::default();
    for (original, _) in &recorded {
        assert_eq!(replay.collect(&request).unwrap(), as_replayed(original));
    }
    assert!(matches!(
        replay.collect(&request),
        Err(CollectError::Exhausted)
    ));
    replay.seek(3);
    assert_eq!(
        replay.collect(&request).unwrap(),
        as_replayed(&recorded[3].0)
    );
}

#[test]
fn random_access_matches_sequential_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    // Longer than a keyframe span, so some reads start from a keyframe.
    let recorded = demo_snapshots(75);
    drop(record(&path, &recorded));
    let mut replay = ReplaySource::open(&path).unwrap();
    for i in [74, 0, 61, 59, 60, 3, 2, 74, 30] {
        assert_eq!(
            replay.read(i).unwrap().snapshot,
            as_replayed(&recorded[i].0),
            "{i}"
        );
    }
    assert!(replay.read(75).is_err());
}

#[test]
fn a_second_session_is_appended_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    let recorded = demo_snapshots(8);
    let first = record(&path, &recorded[..5]);
    assert_eq!(first.opening(), &Opening::Created);
    drop(first);
    let second = record(&path, &recorded[5..]);
    assert_eq!(
        second.opening(),
        &Opening::Appended {
            snapshots: 5,
            dropped: None
        }
    );
    drop(second);
    let mut replay = ReplaySource::open(&path).unwrap();
    assert_eq!(replay.sessions().len(), 2);
    assert_eq!(replay.len(), 8);
    for (i, (original, _)) in recorded.iter().enumerate() {
        assert_eq!(replay.read(i).unwrap().snapshot, as_replayed(original));
    }
}

#[test]
fn two_writers_never_share_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    let _first = RecordWriter::open(&path, SourceKind::Demo, STEP).unwrap();
    let second = RecordWriter::open(&path, SourceKind::Demo, STEP).unwrap_err();
    assert!(matches!(second, RecordError::Locked { .. }), "{second}");
    assert!(
        second
            .to_string()
            .ends_with("is being written by another restop")
    );
}

#[test]
fn a_file_that_is_not_a_recording_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "my precious notes\n").unwrap();
    let err = RecordWriter::open(&path, SourceKind::Live, STEP).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is not a restop recording (bad magic at offset 0)",
            path.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "my precious notes\n"
    );
}

#[test]
fn a_demo_snapshot_costs_about_three_and_a_half_kilobytes() {
    // docs/recording.md quotes these sizes: keep them honest.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.rec");
    let recorded = demo_snapshots(100);
    let writer = record(&path, &recorded);
    let per_snapshot = writer.size() / 100;
    assert!(per_snapshot < 4_000, "{per_snapshot} bytes per snapshot");
    let json: usize = recorded
        .iter()
        .map(|(s, _)| serde_json::to_vec(s).unwrap().len())
        .sum::<usize>()
        / 100;
    assert!(
        json as u64 > 5 * per_snapshot,
        "json {json} vs {per_snapshot}"
    );
}
