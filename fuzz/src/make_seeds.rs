//! Writes the seed corpora under `fuzz/corpus/` from the real captures in
//! `tests/fixtures/netlink/` (a 6.1 kernel with rxe0 and rxe1), restop's
//! own conversation with the fake kernel built from them, a small demo
//! recording and a few scrapes. Run from the repository:
//! `cargo +nightly run --manifest-path fuzz/Cargo.toml --bin make_seeds`.

use restop::demo::DemoSource;
use restop::model::{DetailScope, Object, ResourceType, SourceKind};
use restop::nldev::{NlError, NldevClient, Transport};
use restop::record::RecordWriter;
use restop::source::{CollectRequest, Source};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[allow(dead_code)]
#[path = "../../tests/it/support/fake_kernel.rs"]
mod fake_kernel;

/// Keeps every datagram the kernel side sent, in order: a capture.
struct Taping<T> {
    inner: T,
    tape: Vec<u8>,
}

impl<T: Transport> Transport for Taping<T> {
    fn send(&mut self, op: &'static str, request: &[u8]) -> Result<(), NlError> {
        self.inner.send(op, request)
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        let datagram = self.inner.recv(op)?;
        self.tape.extend_from_slice(datagram);
        Ok(datagram)
    }

    fn abandon(&mut self) {
        self.inner.abandon();
    }
}

fn tape() -> Taping<fake_kernel::FakeKernel> {
    Taping {
        inner: fake_kernel::FakeKernel::captured_host(),
        tape: Vec::new(),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).expect("corpus directory");
    fs::write(dir.join(name), bytes).expect("seed written");
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("corpus");
    let captures = root.join("../tests/fixtures/netlink");
    let mut names: Vec<_> = fs::read_dir(&captures)
        .expect("tests/fixtures/netlink")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".rx.bin"))
        .collect();
    names.sort();
    for path in &names {
        let bytes = fs::read(path).expect("capture");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        write(&corpus.join("nldev_parse"), &name, &bytes);
        write(&corpus.join("nldev_client"), &name, &bytes);
    }

    // The client's own calls, in the order the nldev_client target makes them.
    let mut client = NldevClient::new(tape());
    let _ = client.devices();
    let _ = client.ports(0);
    let _ = client.summaries();
    let _ = client.sys();
    for device in [0, 1] {
        for t in ResourceType::ALL {
            let _ = client.dump_objects(device, t, &mut |_: Object| {});
        }
    }
    write(&corpus.join("nldev_client"), "captured-host-conversation", &client.into_transport().tape);

    // Two live collections of the captured host, as the live_collect target runs them.
    let options = restop::collect::LiveOptions {
        verbs: false,
        own_pid: 1,
        ..restop::collect::LiveOptions::default()
    };
    let mut source = restop::collect::LiveSource::with_client(NldevClient::new(tape()), options);
    let _ = source.collect(&CollectRequest::default());
    let _ = source.collect(&CollectRequest {
        details: DetailScope::All,
        ..CollectRequest::default()
    });
    let taped = source.into_client().into_transport().tape;
    write(&corpus.join("live_collect"), "captured-host-two-collections", &taped);

    // A small recording: four demo snapshots.
    let dir = tempfile::tempdir().expect("temporary directory");
    let rec = dir.path().join("demo.rec");
    let mut writer =
        RecordWriter::open(&rec, SourceKind::Demo, Duration::from_secs(1)).expect("writer");
    let mut demo = DemoSource::new(1, Duration::from_secs(1));
    for _ in 0..4 {
        let snapshot = demo.collect(&CollectRequest::default()).expect("demo snapshot");
        writer.append(&snapshot, &DetailScope::ErrorsOnly).expect("append");
    }
    drop(writer);
    write(&corpus.join("recording"), "demo-4-snapshots", &fs::read(&rec).expect("recording"));

    let http = corpus.join("http_request");
    write(&http, "prometheus", b"GET /metrics HTTP/1.1\r\nHost: localhost:9880\r\nUser-Agent: Prometheus/2.45.0\r\nAccept: application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n");
    write(&http, "curl", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9880\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n");
    write(&http, "health-1.0", b"GET /health HTTP/1.0\r\n\r\n");
    write(&http, "post-body", b"POST /metrics?x=1 HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n");
}
