//! Any bytes as an exporter's answer to `restop fleet --hosts`: the exposition parser and the
//! host's facts from it; a bad body is an error, never a panic, and what is kept stays within
//! the parser's bounds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::fleet::scrape::exposition::{Bounds, parse};
use restop::fleet::scrape::facts::{CounterMemory, host_facts};
use restop::model::UnixMs;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let bounds = Bounds {
        max_line_bytes: 4096,
        max_labels: 16,
        max_samples: 1000,
    };
    if let Ok(samples) = parse(&text, "restop_", &bounds) {
        assert!(samples.len() <= bounds.max_samples);
        let first = host_facts("fuzz", &samples, UnixMs(1_000), &CounterMemory::default());
        let _ = host_facts("fuzz", &samples, UnixMs(2_000), &first.counters);
    }
});
