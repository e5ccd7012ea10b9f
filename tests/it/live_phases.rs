//! Each phase of a live collection (docs/architecture.md: devices, object
//! round, own-objects subtraction, assembly) against the fake kernel.

use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::model::{OwnerKey, ProcessKey, ResourceType, Snapshot};
use restop::nldev::NldevClient;
use restop::nldev::consts::cmd;
use restop::source::{CollectRequest, Source};
use std::time::Duration;

fn source_with(proc: &FakeProc, interval: Duration, own_pid: u32) -> LiveSource<FakeKernel> {
    let options = LiveOptions {
        object_interval: interval,
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        verbs: false,
        own_pid,
        ..LiveOptions::default()
    };
    LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options)
}

fn collect(src: &mut LiveSource<FakeKernel>) -> Snapshot {
    src.collect(&CollectRequest::default()).expect("collect")
}

const OBJECT_DUMPS: [u16; 7] = [
    cmd::RES_CTX_GET,
    cmd::RES_PD_GET,
    cmd::RES_CQ_GET,
    cmd::RES_MR_GET,
    cmd::RES_SRQ_GET,
    cmd::RES_QP_GET,
    cmd::RES_CM_ID_GET,
];

#[test]
fn device_phase_alone_reads_summary_details_and_ports() {
    let proc = FakeProc::captured_host();
    let mut src = source_with(&proc, Duration::from_secs(3600), 1);
    // The first collection dumps objects; the second is the device phase only.
    collect(&mut src);
    let before = src.client().transport().requests.len();
    let snap = collect(&mut src);
    let tick: Vec<u16> = src.client().transport().requests[before..]
        .iter()
        .map(|(op, _)| *op)
        .collect();
    assert_eq!(
        tick,
        [
            cmd::RES_GET,
            cmd::GET,
            cmd::SYS_GET,
            // each port's counters are read right after it, every tick,
            // then the device's QP-bound counters (a STAT_GET dump)
            cmd::PORT_GET,
            cmd::STAT_GET,
            cmd::STAT_GET,
            cmd::PORT_GET,
            cmd::STAT_GET,
            cmd::STAT_GET
        ]
    );
    assert_eq!(snap.devices[0].usage.current(ResourceType::Qp), Some(25));
    assert!(
        !snap.tallies.is_empty(),
        "the last round's tallies are reused"
    );
}

#[test]
fn object_round_dumps_each_type_of_every_device_parents_first() {
    let proc = FakeProc::captured_host();
    let mut src = source_with(&proc, Duration::ZERO, 1);
    collect(&mut src);
    let kernel = src.into_client().into_transport();
    let dumps: Vec<(u16, Option<u32>)> = kernel
        .requests
        .iter()
        .copied()
        .filter(|(op, _)| OBJECT_DUMPS.contains(op))
        .collect();
    // Type by type (each type has its own cadence), parents first.
    let expected: Vec<(u16, Option<u32>)> = OBJECT_DUMPS
        .into_iter()
        .flat_map(|op| [(op, Some(0)), (op, Some(1))])
        .collect();
    assert_eq!(dumps, expected);
}

#[test]
fn own_objects_leave_the_tallies_and_the_summary_is_as_read() {
    let proc = FakeProc::captured_host();
    let plain = collect(&mut source_with(&proc, Duration::ZERO, 1));
    // rxe_helper (679) plays restop itself.
    let mut src = source_with(&proc, Duration::ZERO, 679);
    let own = collect(&mut src);
    let helper = OwnerKey::Process(ProcessKey {
        pid: 679,
        start_time: 6790,
    });
    let helper_mrs: u64 = plain
        .tallies
        .iter()
        .filter(|t| t.owner == helper && t.device == 0)
        .map(|t| t.counts[ResourceType::Mr])
        .sum();
    assert!(helper_mrs > 0);
    assert!(own.tallies.iter().all(|t| t.owner != helper));
    let mrs = |s: &Snapshot| s.devices[0].usage.current(ResourceType::Mr).unwrap_or(0);
    // Read before restop opens anything: nothing of its own to take out.
    assert_eq!(mrs(&own), mrs(&plain));
    assert!(
        src.take_notes()
            .iter()
            .any(|n| n.contains("owned by restop itself"))
    );
}

#[test]
fn assembly_dates_each_device_and_reuses_the_round() {
    let proc = FakeProc::captured_host();
    let mut src = source_with(&proc, Duration::from_secs(3600), 1);
    let first = collect(&mut src);
    let second = collect(&mut src);
    for (a, b) in first.devices.iter().zip(&second.devices) {
        assert!(a.objects.collected_at_ms.is_some());
        assert_eq!(a.objects.collected_at_ms, b.objects.collected_at_ms);
    }
    assert_eq!(first.tallies, second.tallies);
    assert_eq!(first.processes, second.processes);
    assert!(second.meta.collected_at_ms >= first.meta.collected_at_ms);
}
