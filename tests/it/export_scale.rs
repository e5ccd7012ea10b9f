//! The exporter's series count as a host grows (`--demo-devices`): it grows
//! linearly with the devices (the same number of series per added device),
//! and the figures are printed (`--nocapture`) for docs/exporter.md.

use restop::demo::{DemoSource, DeviceLayout};
use restop::export::health::Health;
use restop::export::{Format, RenderInput, render};
use restop::source::{CollectRequest, Source};
use std::time::Duration;

/// (devices, series) of the exposition of the host of `pfs` PFs with `vfs` VFs each.
fn series(pfs: u32, vfs: u32) -> (usize, usize) {
    let layout = DeviceLayout::new(pfs, vfs).unwrap();
    let mut source = DemoSource::new(1, Duration::from_secs(2)).with_devices(layout);
    source.collect(&CollectRequest::default()).unwrap();
    let snapshot = source.collect(&CollectRequest::default()).unwrap();
    let mut health = Health::new(snapshot.meta.source);
    health.record_success(
        &snapshot,
        Duration::from_millis(37),
        snapshot.meta.collected_at_ms,
    );
    let text = render(
        &RenderInput {
            snapshot: Some(&snapshot),
            health: &health,
            top: 10,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
    );
    let count = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .count();
    (snapshot.devices.len(), count)
}

#[test]
fn the_series_count_grows_linearly_with_the_devices() {
    let small = series(2, 2);
    let middle = series(4, 3);
    let large = series(16, 8);
    println!("devices series: {small:?} {middle:?} {large:?}");
    assert_eq!((small.0, middle.0, large.0), (6, 16, 144));
    let slope = |a: (usize, usize), b: (usize, usize)| (b.1 - a.1) as f64 / (b.0 - a.0) as f64;
    let (first, second) = (slope(small, middle), slope(middle, large));
    println!("series per added device: {first:.1} then {second:.1}");
    // Each added device brings the same families; VFs have no PHY counters,
    // so the later (VF-heavier) slope may be a little lower, never higher.
    assert!(
        second <= first * 1.05 && second >= first * 0.75,
        "{first} {second}"
    );
}
