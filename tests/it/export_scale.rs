//! The exporter's series count as a host grows (`--demo-devices`): it grows
//! linearly with the devices (the same number of series per added device),
//! and the figures are printed (`--nocapture`) for docs/exporter.md; every
//! series of a device carries the device's network namespace.

use restop::demo::{DemoSource, DeviceLayout};
use restop::export::health::Health;
use restop::export::{Collector, Format, RenderInput, render};
use restop::session::{Pacer, Session};
use restop::source::{CollectRequest, Source};
use std::collections::{BTreeMap, BTreeSet};
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

/// The 16x8 host, with the VF whose QPs are in ERR moved into a pod's
/// namespace too, so its problems and ERROR-QP ages are about a device of
/// another namespace as well.
struct WideWithForeignErrors(DemoSource);

/// `mlx5_91`: PF 9's VF 3, the 16x8 host's VF with QPs in ERR (demo/wide.rs).
const ERR_VF: &str = "mlx5_91";

impl Source for WideWithForeignErrors {
    fn kind(&self) -> restop::model::SourceKind {
        self.0.kind()
    }
    fn collect(
        &mut self,
        request: &CollectRequest,
    ) -> Result<restop::model::Snapshot, restop::source::CollectError> {
        let mut snapshot = self.0.collect(request)?;
        for d in snapshot.devices.iter_mut().filter(|d| d.name == ERR_VF) {
            d.netns = Some(restop::model::DeviceNetns {
                inode: 4_026_539_999,
                names: vec!["tenant-a".into()],
                owner: None,
            });
        }
        Ok(snapshot)
    }
}

/// (family, labels) of every sample of a text exposition.
fn parse_samples(text: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, rest) = match line.split_once('{') {
            Some((name, rest)) => (name, rest.rsplit_once('}').map_or("", |(l, _)| l)),
            None => (line.split_once(' ').map_or(line, |(n, _)| n), ""),
        };
        let mut labels = BTreeMap::new();
        // Label values here hold no `",` (device, netns, counter names).
        for pair in rest.split("\",").filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once("=\"").unwrap();
            labels.insert(k.to_string(), v.trim_end_matches('"').to_string());
        }
        out.push((name.to_string(), labels));
    }
    out
}

/// Every series with a `device` label carries the `netns` that device has in
/// `restop_device_info` (none for a device of restop's own namespace), in
/// every family: ports, counters, netdevs, limits, QPs, ages, problems.
#[test]
fn every_device_series_of_the_wide_host_names_its_namespace() {
    let layout = DeviceLayout::new(16, 8).unwrap();
    let demo = DemoSource::new(1, Duration::from_secs(2)).with_devices(layout);
    let mut session = Session::new(
        Box::new(WideWithForeignErrors(demo)),
        Pacer::every(Duration::from_millis(10)),
    );
    let mut collector = Collector::new(session.kind(), 10);
    let mut text = String::new();
    for _ in 0..3 {
        text = String::from_utf8(collector.render(session.next_tick()).text).unwrap();
    }
    let samples = parse_samples(&text);
    let namespaces: BTreeMap<&str, Option<&str>> = samples
        .iter()
        .filter(|(name, _)| name == "restop_device_info")
        .map(|(_, l)| (l["device"].as_str(), l.get("netns").map(String::as_str)))
        .collect();
    assert_eq!(namespaces.len(), 144);
    let foreign = namespaces.values().filter(|ns| ns.is_some()).count();
    assert_eq!(foreign, 17, "16 pod VFs and {ERR_VF}");
    let mut families_with_netns = BTreeSet::new();
    for (name, labels) in &samples {
        let Some(device) = labels.get("device").filter(|d| !d.is_empty()) else {
            assert!(!labels.contains_key("netns"), "{name} {labels:?}");
            continue;
        };
        let want = namespaces.get(device.as_str());
        assert!(want.is_some(), "{name}: no restop_device_info for {device}");
        assert_eq!(
            labels.get("netns").map(String::as_str),
            want.copied().flatten(),
            "{name} {labels:?}"
        );
        if labels.contains_key("netns") {
            families_with_netns.insert(name.as_str());
        }
    }
    println!("families with netns: {families_with_netns:?}");
    for family in [
        "restop_device_info",
        "restop_port_active",
        "restop_resources",
        "restop_resources_max",
        "restop_resources_usage_ratio",
        "restop_queue_pairs",
        "restop_error_queue_pairs",
        "restop_error_queue_pair_oldest_age_seconds",
        "restop_problem",
        "restop_port_hw_stat_total",
        "restop_port_transmit_packets_total",
        "restop_port_link_rate_bytes_per_second",
        // VFs have no PHY counters: no pause frames or discards of their own.
        "restop_netdev_info",
    ] {
        assert!(families_with_netns.contains(family), "{family}");
    }
    // The label adds no series: the count is the one stated in docs/exporter.md.
    let plain = series(16, 8);
    assert_eq!(plain, (144, 10_827));
}
