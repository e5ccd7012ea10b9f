//! A demo recording written by the real writer, and where each snapshot
//! frame starts: the material the damage and stress tests cut and mutate.

use restop::demo::DemoSource;
use restop::model::{DetailScope, SourceKind};
use restop::record::RecordWriter;
use restop::source::{CollectRequest, Source};
use std::time::Duration;

pub struct Sample {
    pub bytes: Vec<u8>,
    pub starts: Vec<u64>,
}

/// `snapshots` demo snapshots of the demo seeded with `seed`, one second apart.
pub fn demo_recording(seed: u64, snapshots: usize) -> Sample {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.rec");
    let mut writer = RecordWriter::open(&path, SourceKind::Demo, Duration::from_secs(1)).unwrap();
    let mut source = DemoSource::new(seed, Duration::from_secs(1));
    let mut starts = Vec::new();
    for _ in 0..snapshots {
        let snapshot = source.collect(&CollectRequest::default()).unwrap();
        starts.push(writer.size());
        writer.append(&snapshot, &DetailScope::ErrorsOnly).unwrap();
    }
    drop(writer);
    Sample {
        bytes: std::fs::read(&path).unwrap(),
        starts,
    }
}
