//! Device limits in the live source, over real kernel replies (a 6.1 kernel:
//! its summary has no RES_SUMMARY_ENTRY_MAX) with a fake verbs library and a
//! fake /proc and cgroup tree: limits from verbs (read side by side with the
//! dumps), restop's own objects left out, and cgroup rdma quotas.

use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::verbs::{AttrReader, DeviceAttrs, VerbsError, VerbsLimits};
use restop::collect::{LiveOptions, LiveSource};
use restop::model::{LimitSource, LimitsUnread, ProcessKey, ResourceType, Snapshot, TypeCounts};
use restop::nldev::NldevClient;
use restop::nldev::consts::cmd;
use restop::source::{CollectRequest, Source};
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// `ibv_devinfo -v` of rxe on 6.1.
fn rxe_attrs() -> DeviceAttrs {
    DeviceAttrs {
        max_qp: Some(1_048_560),
        max_cq: Some(1_048_576),
        max_mr: Some(524_287),
        max_pd: Some(1_048_576),
        max_srq: Some(917_503),
        max_qp_wr: Some(1_048_576),
        max_cqe: Some(32_767),
        max_mr_size: Some(u64::MAX),
    }
}

/// A verbs library that answers for rxe0 only and remembers what it was
/// asked, and on which thread (`device@thread`).
struct FakeVerbs {
    asked: Arc<Mutex<Vec<String>>>,
}

impl AttrReader for FakeVerbs {
    fn read(&mut self, device: &str) -> Result<DeviceAttrs, VerbsError> {
        let thread = std::thread::current().name().unwrap_or("?").to_string();
        self.asked
            .lock()
            .unwrap()
            .push(format!("{device}@{thread}"));
        match device {
            "rxe0" => Ok(rxe_attrs()),
            other => Err(VerbsError::Open(other.to_string(), 13)),
        }
    }
}

fn fake_verbs() -> (VerbsLimits, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let a = asked.clone();
    let verbs = VerbsLimits::with_factory(Box::new(move || {
        Ok(Box::new(FakeVerbs { asked: a.clone() }) as Box<dyn AttrReader>)
    }));
    (verbs, asked)
}

fn source(proc: &FakeProc, sys: &Path, own_pid: u32) -> LiveSource<FakeKernel> {
    let options = LiveOptions {
        proc_root: proc.root().to_path_buf(),
        sys_root: sys.to_path_buf(),
        own_pid,
        ..LiveOptions::default()
    };
    LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options)
}

fn collect(src: &mut LiveSource<FakeKernel>) -> Snapshot {
    src.collect(&CollectRequest::default()).expect("collect")
}

fn summaries_asked(src: LiveSource<FakeKernel>) -> usize {
    src.into_client().into_transport().count(cmd::RES_GET)
}

#[test]
fn verbs_limits_fill_in_what_the_summary_lacks() {
    let proc = FakeProc::captured_host();
    let sys = tempfile::tempdir().unwrap();
    let mut src = source(&proc, sys.path(), 1);
    let (verbs, asked) = fake_verbs();
    src.set_verbs(verbs);

    let snap = collect(&mut src);
    let rxe0 = snap.device(0).unwrap();
    let qp = rxe0.usage.get(ResourceType::Qp).unwrap();
    assert_eq!(qp.max, Some(1_048_560));
    assert_eq!(qp.max_source, Some(LimitSource::Verbs));
    for (t, max) in [
        (ResourceType::Cq, 1_048_576),
        (ResourceType::Mr, 524_287),
        (ResourceType::Pd, 1_048_576),
        (ResourceType::Srq, 917_503),
    ] {
        assert_eq!(rxe0.usage.get(t).unwrap().max, Some(max), "{t}");
    }
    // cm_id and ctx have no limit anywhere.
    assert_eq!(rxe0.usage.get(ResourceType::CmId).unwrap().max, None);
    assert_eq!(rxe0.usage.get(ResourceType::Ctx).unwrap().max, None);
    assert_eq!(rxe0.object_limits.unwrap().max_cqe, Some(32_767));
    // rxe1 would not open: no limit, a note, no error.
    let rxe1 = snap.device(1).unwrap();
    assert_eq!(rxe1.usage.get(ResourceType::Qp).unwrap().max, None);
    assert!(rxe1.object_limits.is_none());
    // And why, for the exporter's restop_device_limits_unread.
    assert_eq!(rxe0.limits_unread, None);
    assert_eq!(rxe1.limits_unread, Some(LimitsUnread::Permission));
    let notes = src.take_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("rxe1") && n.contains("errno 13")),
        "{notes:?}"
    );

    // Queried once; the next collections reuse the limits without opening anything.
    let again = collect(&mut src);
    assert_eq!(
        again
            .device(0)
            .unwrap()
            .usage
            .get(ResourceType::Qp)
            .unwrap()
            .max,
        Some(1_048_560)
    );
    // Read on a thread of its own, side by side with the dumps.
    assert_eq!(
        *asked.lock().unwrap(),
        ["rxe0@restop-verbs", "rxe1@restop-verbs"]
    );
    // One summary per collection: it is read before anything is opened.
    assert_eq!(summaries_asked(src), 2);
}

#[test]
fn without_verbs_limits_stay_unknown_and_the_summary_is_taken_once() {
    let proc = FakeProc::captured_host();
    let sys = tempfile::tempdir().unwrap();
    let mut src = source(&proc, sys.path(), 1);
    src.set_verbs(VerbsLimits::disabled());
    let snap = collect(&mut src);
    for d in &snap.devices {
        assert!(d.usage.0.values().all(|e| e.max.is_none()), "{}", d.name);
        assert_eq!(d.limits_unread, Some(LimitsUnread::Disabled), "{}", d.name);
    }
    assert!(src.take_notes().is_empty());
    assert_eq!(summaries_asked(src), 1);
}

#[test]
fn a_missing_libibverbs_is_a_quiet_note() {
    let proc = FakeProc::captured_host();
    let sys = tempfile::tempdir().unwrap();
    let mut src = source(&proc, sys.path(), 1);
    src.set_verbs(VerbsLimits::with_factory(Box::new(|| {
        restop::collect::verbs::Libibverbs::load("libibverbs-restop-test-missing.so.1")
            .map(|l| Box::new(l) as Box<dyn AttrReader>)
    })));
    let snap = collect(&mut src);
    assert!(
        snap.meta
            .warnings
            .iter()
            .all(|w| !w.message.contains("verbs"))
    );
    assert!(
        snap.devices
            .iter()
            .all(|d| d.usage.get(ResourceType::Qp).unwrap().max.is_none()
                && d.limits_unread == Some(LimitsUnread::NoLibrary))
    );
    let notes = src.take_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("libibverbs-restop-test-missing"));
    assert_eq!(summaries_asked(src), 1);
}

fn held_by(snap: &Snapshot, pid: u32) -> TypeCounts {
    let mut total = TypeCounts::default();
    for t in snap.tallies.iter().filter(|t| t.owner.pid() == Some(pid)) {
        total += &t.counts;
    }
    total
}

#[test]
fn restops_own_objects_are_never_a_consumer() {
    let proc = FakeProc::captured_host();
    let sys = tempfile::tempdir().unwrap();
    // Reference: nobody is restop.
    let mut plain = source(&proc, sys.path(), 1);
    plain.set_verbs(VerbsLimits::disabled());
    let reference = collect(&mut plain);
    let helper = held_by(&reference, 679);
    assert!(helper.get(ResourceType::Ctx) > 0);

    // The same host, seen by a restop whose pid is rxe_helper's.
    let mut src = source(&proc, sys.path(), 679);
    src.set_verbs(VerbsLimits::disabled());
    let snap = collect(&mut src);
    assert!(snap.processes.iter().all(|p| p.key.pid != 679));
    assert!(held_by(&snap, 679).is_empty());
    let ctx = |s: &Snapshot| {
        s.device(0)
            .unwrap()
            .usage
            .current(ResourceType::Ctx)
            .unwrap()
    };
    // The summary is read before restop opens anything: it is shown as the
    // kernel gave it (here the fake kernel counts rxe_helper's objects in it,
    // which a real restop's summary cannot hold of its own).
    assert_eq!(ctx(&snap), ctx(&reference));
    // Everyone else is counted as before.
    assert_eq!(held_by(&snap, 638), held_by(&reference, 638));
    assert!(src.take_notes().iter().any(|n| n.contains("restop itself")));
}

fn write(dir: &Path, file: &str, text: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(file), text).unwrap();
}

#[test]
fn a_cgroup_rdma_quota_is_shown_with_its_processes() {
    let proc = FakeProc::captured_host();
    proc.write("679/cgroup", "0::/pod1/c1\n");
    let sys = tempfile::tempdir().unwrap();
    let cg = sys.path().join("fs/cgroup");
    write(
        &cg.join("pod1"),
        "rdma.max",
        "rxe0 hca_handle=max hca_object=60\n",
    );
    write(
        &cg.join("pod1"),
        "rdma.current",
        "rxe0 hca_handle=1 hca_object=57\n",
    );
    write(
        &cg.join("pod1/c1"),
        "rdma.max",
        "rxe0 hca_handle=max hca_object=max\n",
    );
    write(
        &cg.join("pod1/c1"),
        "rdma.current",
        "rxe0 hca_handle=1 hca_object=57\n",
    );
    let mut src = source(&proc, sys.path(), 1);
    src.set_verbs(VerbsLimits::disabled());
    let snap = collect(&mut src);
    let helper = snap
        .process(&ProcessKey {
            pid: 679,
            start_time: 6790,
        })
        .unwrap();
    let quota = helper.rdma_cgroup.as_ref().expect("quota");
    assert_eq!(quota.path, "/pod1/c1");
    let q = &quota.devices["rxe0"].hca_object;
    assert_eq!(
        (q.current, q.max, q.cgroup.as_str()),
        (57, Some(60), "/pod1")
    );
    assert_eq!(quota.devices["rxe0"].hca_handle.max, None);
    // Processes outside any limited cgroup have none.
    let other = snap.processes.iter().find(|p| p.key.pid == 638).unwrap();
    assert!(other.rdma_cgroup.is_none());

    // In the report: a warning and the quota section.
    let text = restop::output::render_once(
        &snap,
        &Default::default(),
        &restop::output::OnceOptions::default(),
    );
    assert!(
        text.contains("! cgroup /pod1: hca_object on rxe0 at 95% of rdma.max (57/60, critical)"),
        "{text}"
    );
    assert!(text.contains("CGROUP RDMA QUOTAS (1)\n  /pod1: rxe0 hca_object 57/60 (95%)\n    under 679 rxe_helper\n"), "{text}");
    let doc =
        serde_json::to_value(restop::output::render_json(&snap, &Default::default())).unwrap();
    let p = doc["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 679)
        .unwrap();
    assert_eq!(
        p["rdma_cgroup"],
        serde_json::json!({
            "path": "/pod1/c1",
            "devices": { "rxe0": {
                "hca_handle": { "current": 1, "max": null, "ratio": null, "cgroup": "/pod1/c1" },
                "hca_object": { "current": 57, "max": 60, "ratio": 0.95, "cgroup": "/pod1" }
            } }
        })
    );
}
