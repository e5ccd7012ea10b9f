//! One tick of the whole pipeline on a host of many devices: the
//! `--demo-devices 16x8` source (16 PFs, 128 VFs) against the default demo
//! host (2 PFs, 3 VFs), each tick being the source's snapshot, the history's
//! update and its insights (the problems list among them), and the
//! exporter's rendering of the exposition in both formats: what `restop
//! export` does every `-d` (`export::Collector::render`), the TUI doing a
//! subset of it.
//!
//! `cargo bench --bench devices_tick -- --warm-up-time 1 --measurement-time 5`;
//! after criterion's own report the two medians, their ratio and the wide
//! tick's share of one core at a 1 s tick are printed (from criterion's
//! `estimates.json`), for docs/performance.md ("Many devices").

// A benchmark may unwrap what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A benchmark binary offers nothing outside itself (see tests/it/main.rs).
#![allow(unreachable_pub)]

use criterion::Criterion;
use restop::demo::{DemoSource, DeviceLayout};
use restop::export::Collector;
use restop::session::{Pacer, Session};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const GROUP: &str = "demo_tick";
const DEFAULT: &str = "default_5_devices";
const WIDE: &str = "wide_16x8_144_devices";

fn session(layout: Option<DeviceLayout>) -> Session {
    let mut demo = DemoSource::new(1, Duration::from_secs(2));
    if let Some(layout) = layout {
        demo = demo.with_devices(layout);
    }
    Session::new(Box::new(demo), Pacer::unpaced())
}

fn ticks(c: &mut Criterion) {
    let mut group = c.benchmark_group(GROUP);
    for (name, layout) in [
        (DEFAULT, None),
        (WIDE, Some(DeviceLayout::new(16, 8).unwrap())),
    ] {
        let mut s = session(layout);
        let mut collector = Collector::new(s.kind(), 10);
        // A first tick: the counters' first read has no rates yet.
        let _ = collector.render(s.next_tick());
        group.bench_function(name, |b| {
            b.iter(|| black_box(collector.render(s.next_tick()).text.len()))
        });
    }
    group.finish();
}

/// Where criterion writes its estimates (its own rule: `CRITERION_HOME`,
/// else the cargo target directory's `criterion/`).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// The median of the last run of `name`, in nanoseconds.
fn median_ns(name: &str) -> Option<f64> {
    let path = criterion_dir()
        .join(GROUP)
        .join(name)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn summary() {
    let (Some(small), Some(wide)) = (median_ns(DEFAULT), median_ns(WIDE)) else {
        println!("devices_tick: run both benchmarks for the ratio");
        return;
    };
    println!(
        "devices_tick: median {DEFAULT} {:.3} ms, {WIDE} {:.3} ms, ratio {:.1}x, \
         {:.2} % of one core at a 1 s tick",
        small / 1e6,
        wide / 1e6,
        wide / small,
        wide / 1e9 * 100.0
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    ticks(&mut c);
    c.final_summary();
    summary();
}
