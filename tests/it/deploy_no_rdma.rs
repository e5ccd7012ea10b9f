//! An exporter on a host without RDMA (a CPU node the DaemonSet landed on):
//! it keeps serving and says `restop_rdma_present 0` (the textfile mode's
//! `--once` on such a host: tests/it/export_textfile.rs).

use restop::export::collector::Collector;
use restop::model::{Snapshot, SourceKind, UnixMs};
use restop::session::{Pacer, Session};
use restop::source::{CollectError, CollectRequest, Source};

/// A live source on a kernel without the RDMA subsystem.
struct NoRdma;

impl Source for NoRdma {
    fn kind(&self) -> SourceKind {
        SourceKind::Live
    }

    fn collect(&mut self, _: &CollectRequest) -> Result<Snapshot, CollectError> {
        Err(CollectError::NoRdmaSupport("EPROTONOSUPPORT".into()))
    }
}

/// A kernel with RDMA that lists no device.
struct NoDevice;

impl Source for NoDevice {
    fn kind(&self) -> SourceKind {
        SourceKind::Live
    }

    fn collect(&mut self, _: &CollectRequest) -> Result<Snapshot, CollectError> {
        Ok(Snapshot::empty(SourceKind::Live, UnixMs(1_000)))
    }
}

fn exposition(source: Box<dyn Source>) -> String {
    let mut session = Session::new(source, Pacer::unpaced());
    let mut collector = Collector::new(session.kind(), 5);
    collector.render(session.next_tick());
    String::from_utf8(collector.render(session.next_tick()).text).unwrap()
}

#[test]
fn no_rdma_subsystem_is_rdma_present_0_and_restop_up_0() {
    let text = exposition(Box::new(NoRdma));
    assert!(text.contains("\nrestop_rdma_present 0\n"), "{text}");
    assert!(text.contains("restop_up{source=\"live\"} 0\n"), "{text}");
    assert!(text.contains("restop_collection_errors_total{kind=\"no_rdma\"} 2\n"));
}

#[test]
fn no_device_is_rdma_present_0_with_restop_up_1() {
    let text = exposition(Box::new(NoDevice));
    assert!(text.contains("\nrestop_rdma_present 0\n"), "{text}");
    assert!(text.contains("restop_up{source=\"live\"} 1\n"), "{text}");
}
