//! What reading NIC counters adds to one live collection ("tick"): the
//! live source over the captured host's real replies (two rxe ports, a
//! `STAT_GET` each, and each device's QP-bound counter dump), with counters
//! on and off, both for a tick between object dumps (summary, ports,
//! counters) and for a tick with dumps.
//!
//! `cargo bench --bench counters_tick`; medians and ratios in docs/performance.md.

// The fake kernel and /proc are test helpers: they may unwrap.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A benchmark binary offers nothing outside itself (see tests/it/main.rs).
#![allow(unreachable_pub)]

#[path = "../tests/it/support/fake_kernel.rs"]
#[allow(dead_code)]
mod fake_kernel;
#[path = "../tests/it/support/fake_proc.rs"]
#[allow(dead_code)]
mod fake_proc;

use criterion::{Criterion, criterion_group, criterion_main};
use fake_kernel::FakeKernel;
use fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::nldev::NldevClient;
use restop::source::{CollectRequest, Source};
use std::hint::black_box;
use std::time::Duration;

fn source(counters: bool, object_interval: Duration, proc: &FakeProc) -> LiveSource<FakeKernel> {
    let options = LiveOptions {
        object_interval,
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        verbs: false,
        counters,
        ..LiveOptions::default()
    };
    LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options)
}

fn ticks(c: &mut Criterion) {
    // The captured host's processes, so owners resolve as on the real host.
    let proc = FakeProc::captured_host();
    let mut group = c.benchmark_group("live_tick");
    for (label, interval) in [
        ("between_dumps", Duration::from_secs(3600)),
        ("with_dumps", Duration::ZERO),
    ] {
        for counters in [false, true] {
            let mut src = source(counters, interval, &proc);
            let request = CollectRequest::default();
            // The first collection dumps objects in any case.
            let _ = src.collect(&request);
            let name = format!("{label}/counters_{}", if counters { "on" } else { "off" });
            group.bench_function(name, |b| {
                b.iter(|| black_box(src.collect(&request).map(|s| s.devices.len())))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, ticks);
criterion_main!(benches);
