//! Devices in other network namespaces, on the fake kernel (the VM test,
//! `netns_vm`, reads a real one): in exclusive mode the live source finds the
//! host's namespaces in `/proc/*/ns/net` and `/var/run/netns`, reads each one
//! other than its own through the source its opener gives, and merges the
//! devices, tagged with their namespace and its owner, into the host's
//! snapshot; a namespace it cannot enter is named in a `netns` warning; in
//! shared mode no namespace is entered. `--once`, `--json` and the exporter
//! show the namespace.

use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::netns::NamespaceOpener;
use restop::collect::netns::discover::NetnsEntry;
use restop::collect::{LiveOptions, LiveSource};
use restop::export::health::Health;
use restop::export::{Format, RenderInput, render};
use restop::model::filter::Filter;
use restop::model::{
    Device, OwnerKey, ProcessInfo, ProcessKey, Snapshot, SourceKind, Tally, WarningKind,
};
use restop::nldev::consts::{NETNS_MODE_EXCLUSIVE, attr, cmd, op_of};
use restop::nldev::fixture::{Attrs, doit_reply};
use restop::nldev::{NlError, NldevClient, Transport};
use restop::output::{OnceOptions, render_json, render_once};
use restop::source::{CollectError, CollectRequest, Source};
use std::os::unix::fs::symlink;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The captured host, whose `SYS_GET` says exclusive mode.
struct Exclusive {
    kernel: FakeKernel,
    own: Option<Vec<u8>>,
}

impl Transport for Exclusive {
    fn send(&mut self, op: &'static str, request: &[u8]) -> Result<(), NlError> {
        let kind = u16::from_ne_bytes([request[4], request[5]]);
        if op_of(kind) == cmd::SYS_GET {
            self.own = Some(doit_reply(
                cmd::SYS_GET,
                &Attrs::new().u8(attr::SYS_ATTR_NETNS_MODE, NETNS_MODE_EXCLUSIVE),
            ));
            return Ok(());
        }
        self.own = None;
        self.kernel.send(op, request)
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        match &self.own {
            Some(reply) => Ok(reply),
            None => self.kernel.recv(op),
        }
    }

    fn abandon(&mut self) {
        self.own = None;
        self.kernel.abandon();
    }
}

/// A namespace's view: one device, `rxe7` (index 7), with one QP of pid 500.
struct Pod;

impl Source for Pod {
    fn kind(&self) -> SourceKind {
        SourceKind::Live
    }

    fn collect(&mut self, _: &CollectRequest) -> Result<Snapshot, CollectError> {
        let mut s = Snapshot::empty(SourceKind::Live, restop::model::time::now());
        let mut d = Device::new(7, "rxe7");
        d.usage.set(
            restop::model::ResourceType::Qp,
            restop::model::UsageEntry {
                current: 1,
                max: None,
                max_source: None,
            },
        );
        s.devices.push(d);
        let key = ProcessKey {
            pid: 500,
            start_time: 5000,
        };
        let mut tally = Tally::new(OwnerKey::Process(key), 7);
        tally.counts.add(restop::model::ResourceType::Qp, 1);
        s.tallies.push(tally);
        let mut info = ProcessInfo::unknown(key);
        info.comm = "trainer".into();
        s.processes.push(info);
        Ok(s)
    }
}

/// Opens `Pod` for namespace 900, refuses 901 as the kernel would without
/// CAP_SYS_ADMIN; records what it was asked to open.
#[derive(Clone, Default)]
struct Opener(Arc<Mutex<Vec<NetnsEntry>>>);

impl NamespaceOpener for Opener {
    fn open(&mut self, entry: &NetnsEntry) -> Result<Box<dyn Source>, String> {
        self.0.lock().unwrap().push(entry.clone());
        match entry.inode {
            900 => Ok(Box::new(Pod)),
            _ => Err("setns: EPERM: Operation not permitted".into()),
        }
    }
}

/// A host where restop (pid 1) is in namespace 100, a trainer (pid 500) and
/// its thread in 900, and another process (pid 600) in 901.
fn host() -> FakeProc {
    let proc = FakeProc::captured_host();
    proc.process(1, "restop", 10, &["restop"], 0);
    proc.process(500, "trainer", 5000, &["trainer"], 0);
    proc.process(600, "sidecar", 6000, &["sidecar"], 0);
    for (pid, net) in [(1, 100), (500, 900), (600, 901), (638, 100)] {
        let ns = proc.root().join(format!("{pid}/ns"));
        std::fs::create_dir_all(&ns).unwrap();
        symlink(format!("net:[{net}]"), ns.join("net")).unwrap();
    }
    symlink("pid:[4026531836]", proc.root().join("1/ns/pid")).unwrap();
    proc
}

fn source(proc: &FakeProc, exclusive: bool, opener: &Opener) -> Box<dyn Source> {
    let options = LiveOptions {
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        run_netns: vec![proc.root().join("no-netns")],
        verbs: false,
        own_pid: 1,
        device_events: false,
        timeout: Duration::from_secs(1),
        ..LiveOptions::default()
    };
    if exclusive {
        let transport = Exclusive {
            kernel: FakeKernel::captured_host(),
            own: None,
        };
        let mut s = LiveSource::with_client(NldevClient::new(transport), options);
        s.set_namespace_opener(Box::new(opener.clone()));
        Box::new(s)
    } else {
        let mut s = LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options);
        s.set_namespace_opener(Box::new(opener.clone()));
        Box::new(s)
    }
}

#[test]
fn exclusive_mode_reads_the_other_namespaces_and_names_the_one_it_could_not_enter() {
    let proc = host();
    let opener = Opener::default();
    let mut src = source(&proc, true, &opener);
    let s = src.collect(&CollectRequest::default()).unwrap();
    let names: Vec<&str> = s.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["rxe0", "rxe1", "rxe7"]);
    assert!(s.devices[0].netns.is_none() && s.devices[1].netns.is_none());
    let ns = s.devices[2].netns.as_ref().expect("rxe7's namespace");
    assert_eq!(ns.inode, 900);
    let owner = ns.owner.as_ref().expect("the namespace's owner");
    assert_eq!((owner.pid, owner.comm.as_str()), (500, "trainer"));
    assert!(
        s.tallies
            .iter()
            .any(|t| t.device == 7 && t.owner.pid() == Some(500)),
        "{:?}",
        s.tallies
    );
    let asked: Vec<u64> = opener.0.lock().unwrap().iter().map(|e| e.inode).collect();
    assert_eq!(
        asked,
        [900, 901],
        "restop's own namespace 100 is not entered"
    );
    let netns: Vec<&str> = s
        .meta
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Netns)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(netns.len(), 1, "{netns:?}");
    assert!(
        netns[0].contains("1 network namespace could not be read")
            && netns[0].contains("net:[901] (pid 600 sidecar): setns: EPERM"),
        "{netns:?}"
    );
    // A second collection keeps the reader and asks to open only the refused one again.
    let again = src.collect(&CollectRequest::default()).unwrap();
    assert_eq!(again.devices.len(), 3);
    let asked: Vec<u64> = opener.0.lock().unwrap().iter().map(|e| e.inode).collect();
    assert_eq!(asked, [900, 901, 901]);
}

#[test]
fn shared_mode_enters_no_namespace() {
    let proc = host();
    let opener = Opener::default();
    let mut src = source(&proc, false, &opener);
    let s = src.collect(&CollectRequest::default()).unwrap();
    assert_eq!(s.devices.len(), 2);
    assert!(opener.0.lock().unwrap().is_empty());
    assert!(s.meta.warnings.iter().all(|w| w.kind != WarningKind::Netns));
}

#[test]
fn once_json_and_the_exporter_show_the_namespace_of_a_device() {
    let proc = host();
    let mut src = source(&proc, true, &Opener::default());
    let s = src.collect(&CollectRequest::default()).unwrap();
    let once = render_once(&s, &Filter::default(), &OnceOptions::default());
    assert!(once.contains("netns net:[900] (pid 500 trainer)"), "{once}");
    let json = serde_json::to_value(render_json(&s, &Filter::default())).unwrap();
    let devices = json["devices"].as_array().unwrap();
    assert!(devices[0].get("netns").is_none(), "own namespace: no key");
    let rxe7 = devices.iter().find(|d| d["name"] == "rxe7").unwrap();
    assert_eq!(rxe7["netns"]["inode"], 900);
    assert_eq!(rxe7["netns"]["owner"]["pid"], 500);
    let mut health = Health::new(s.meta.source);
    health.record_success(&s, Duration::from_millis(5), s.meta.collected_at_ms);
    let text = render(
        &RenderInput {
            snapshot: Some(&s),
            health: &health,
            top: 10,
            error_qp_ages: None,
            leak_suspects: None,
        },
        Format::Text,
    );
    let info: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("restop_device_info{"))
        .collect();
    assert!(
        info.iter()
            .any(|l| l.contains("device=\"rxe7\"") && l.contains("netns=\"net:[900]\"")),
        "{info:?}"
    );
    assert!(
        info.iter()
            .filter(|l| !l.contains("rxe7"))
            .all(|l| !l.contains("netns=")),
        "{info:?}"
    );
    assert!(
        text.contains("restop_resources{device=\"rxe7\",type=\"qp\",netns=\"net:[900]\"} 1"),
        "{text}"
    );
}
