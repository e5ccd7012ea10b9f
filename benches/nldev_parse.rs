//! Parse throughput on real dumps: 20,000 MRs and 5,001 QPs from one device
//! (the scale captures in `tests/fixtures/netlink/scale/`).
//!
//! `cargo bench --bench nldev_parse`
// A benchmark stops at the first broken assumption.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A benchmark binary offers nothing outside itself (see tests/it/main.rs).
#![allow(unreachable_pub)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use restop::model::{Object, ResourceType};
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{NldevClient, ReplayTransport};
use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;

/// The reply to the first per-device dump of a scale capture.
fn device_dump(name: &str) -> Vec<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/netlink/scale")
        .join(name);
    let gz = std::fs::read(path).expect("scale capture");
    let mut rx = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut rx)
        .expect("gzip");
    // Reply 0 is the device list, reply 1 the first device's dump.
    let reply = split_replies(&rx).swap_remove(1);
    split_messages(&reply)
}

fn bench_dump(c: &mut Criterion, label: &str, file: &str, t: ResourceType) {
    let datagrams = device_dump(file);
    let bytes: usize = datagrams.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("nldev_parse");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(label, |b| {
        b.iter(|| {
            let transport = ReplayTransport::from_datagrams([datagrams.clone()]);
            let mut client = NldevClient::new(transport);
            let mut n = 0usize;
            let stats = client
                .dump_objects(0, t, &mut |o: Object| {
                    black_box(&o);
                    n += 1;
                })
                .expect("dump parses");
            black_box((stats, n))
        })
    });
    group.finish();
}

fn parse(c: &mut Criterion) {
    bench_dump(c, "mr_20000", "netlink-res-mr.rx.bin.gz", ResourceType::Mr);
    bench_dump(c, "qp_5001", "netlink-res-qp.rx.bin.gz", ResourceType::Qp);
}

criterion_group!(benches, parse);
criterion_main!(benches);
