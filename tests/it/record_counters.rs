//! Recordings carry every port's counters with the read before, so a replay
//! (in order or after a seek) gives exactly the rates the recorded run had.

use restop::demo::DemoSource;
use restop::model::counters::Rates;
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::record::{RecordWriter, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

const STEP: Duration = Duration::from_secs(2);

fn rates(s: &Snapshot) -> Vec<(String, u32, Option<Rates>, Vec<String>)> {
    s.devices
        .iter()
        .flat_map(|d| {
            d.ports.iter().map(|p| {
                let c = p.counters.as_ref().expect("demo ports have counters");
                (d.name.clone(), p.index, c.rates(), c.moved())
            })
        })
        .collect()
}

#[test]
fn replayed_snapshots_give_the_recorded_rates_in_order_and_after_a_seek() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counters.rrec");
    let mut demo = DemoSource::new(5, STEP);
    let recorded: Vec<Snapshot> = (0..30)
        .map(|_| demo.collect(&CollectRequest::default()).unwrap())
        .collect();
    let mut writer = RecordWriter::open(&path, SourceKind::Demo, STEP).unwrap();
    for s in &recorded {
        writer.append(s, &DetailScope::ErrorsOnly).unwrap();
    }
    drop(writer);

    // The storm (20 s in) is in the recording: some rates are non-zero errors.
    assert!(
        recorded
            .iter()
            .any(|s| rates(s).iter().any(|r| !r.3.is_empty()))
    );
    assert!(
        rates(&recorded[0]).iter().all(|r| r.2.is_none()),
        "first read has no rates"
    );

    let mut replay = ReplaySource::open(&path).unwrap();
    for (i, original) in recorded.iter().enumerate() {
        let back = replay.collect(&CollectRequest::default()).unwrap();
        assert_eq!(rates(&back), rates(original), "snapshot {i}");
    }
    replay.seek(17);
    let back = replay.collect(&CollectRequest::default()).unwrap();
    assert_eq!(rates(&back), rates(&recorded[17]));
}
