//! The live source: the kernel's resource tracking over NETLINK_RDMA, owners
//! from procfs, topology from sysfs, folded into one [`Snapshot`].
//!
//! Every collection reads the cheap parts (device list, ports, the summary
//! counts). Object dumps run on their own cadence ([`ObjectCadence`]); between
//! them the last dump's tallies and kept objects are reused, so a 1 s refresh
//! never turns into a firmware query per QP per second on a busy host.
//!
//! A collection runs in the phases of docs/architecture.md, one file each:
//! devices (`devices.rs`), the object round (`round.rs`), restop's own
//! objects (`own.rs`) and assembly (`assemble.rs`). libibverbs, when the
//! kernel gives no limits, is read side by side with the device phase and the
//! object round.

mod assemble;
mod devices;
mod hidden;
mod latest_dumps;
mod own;
mod round;

use self::assemble::{Collected, assemble};
use self::devices::DeviceRead;
use self::latest_dumps::LatestDumps;
use self::own::own_in_dumps;
use super::attribution::{Attribution, DUMP_ORDER};
use super::cadence::ObjectCadence;
use super::cgroup_rdma::CgroupRdmaReader;
use super::counters::CounterReader;
use super::monitor::Listening;
use super::netns::discover::NetnsEntry;
use super::netns::{NamespaceOpener, Namespaces};
use super::procfs::ProcReader;
use super::sysfs::SysfsDevice;
use super::verbs::VerbsLimits;
use crate::model::{Device, ResourceType, Snapshot, SourceKind, Warning, WarningKind};
use crate::nldev::{NlError, NldevClient, SocketTransport, Transport};
use crate::source::{CollectError, CollectRequest, Source};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

/// Diagnostics kept for `take_notes`.
const MAX_NOTES: usize = 64;

/// How the live source reads this host: netlink timeout, object cadence, where procfs, sysfs
/// and the kubelet's logs are (the source group's settings, `session/open.rs`).
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Longest wait for one netlink reply.
    pub timeout: Duration,
    /// Minimum time between object dumps (the summary runs every collection).
    pub object_interval: Duration,
    /// Where procfs is mounted (tests point this at a fake tree).
    pub proc_root: PathBuf,
    /// Where sysfs is mounted.
    pub sys_root: PathBuf,
    /// The node's `/var/log`, where the kubelet keeps `pods/` and `containers/` (pod and
    /// container names).
    pub kubelet_logs: PathBuf,
    /// Read device limits through libibverbs when the kernel's summary has
    /// none (`--no-verbs` turns this off).
    pub verbs: bool,
    /// restop's own process id: objects it owns (the context opened to read
    /// limits) are never counted. Tests name a fake process instead.
    pub own_pid: u32,
    /// Print diagnostics (why no limits came from verbs, what libibverbs
    /// printed) on stderr as they arise (`RESTOP_DEBUG` in `--once`/`--json`).
    pub print_notes: bool,
    /// Read NIC counters every collection (collect/counters).
    pub counters: bool,
    /// In exclusive netns mode, also read the devices of the host's other
    /// network namespaces (collect/netns).
    pub other_netns: bool,
    /// Where `ip netns` keeps its named namespaces (`/run/netns`; older
    /// iproute2 `/var/run/netns`, usually the same folder).
    pub run_netns: Vec<PathBuf>,
    /// The network namespace this source reads (its sockets are opened
    /// there); `None`: restop's own.
    pub netns: Option<PathBuf>,
    /// Listen to the kernel's device events where it sends them (collect/monitor).
    pub device_events: bool,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            timeout: Duration::from_secs(5),
            object_interval: Duration::ZERO,
            proc_root: PathBuf::from("/proc"),
            sys_root: PathBuf::from("/sys"),
            kubelet_logs: PathBuf::from("/var/log"),
            verbs: true,
            own_pid: std::process::id(),
            print_notes: false,
            counters: true,
            other_netns: true,
            run_netns: vec![PathBuf::from("/run/netns"), PathBuf::from("/var/run/netns")],
            netns: None,
            device_events: true,
        }
    }
}

/// The kernel's RDMA resources on this host, read over NETLINK_RDMA in four phases
/// (devices, object round, own objects, assembly), owners resolved through procfs.
pub struct LiveSource<T: Transport = SocketTransport> {
    client: NldevClient<T>,
    procs: ProcReader,
    options: LiveOptions,
    cadence: ObjectCadence,
    dumps: LatestDumps,
    /// Parent owners, kept across rounds: a type may be dumped without its
    /// parents when their dumps are not due.
    attribution: Attribution,
    sysfs: HashMap<String, SysfsDevice>,
    host: String,
    kernel: String,
    verbs: VerbsLimits,
    /// The id of the thread that opens devices for `verbs` this round (0:
    /// none): what it opens is restop's own even once the thread is gone.
    verbs_thread: Arc<AtomicU32>,
    cgroups: CgroupRdmaReader,
    counters: CounterReader,
    notes: Vec<String>,
    /// The readers of the other network namespaces, once exclusive mode was seen.
    namespaces: Option<Namespaces>,
    /// What reads them, until then (tests hand in fake kernels).
    opener: Option<Box<dyn NamespaceOpener>>,
    /// The device-event listener of this source's namespace.
    events: Listening,
}

impl LiveSource<SocketTransport> {
    /// Opens the NETLINK_RDMA socket; fails when the kernel has no RDMA netlink or refuses it.
    pub fn open(options: LiveOptions) -> Result<LiveSource<SocketTransport>, CollectError> {
        let client = NldevClient::open(options.timeout)?;
        Ok(LiveSource::with_client(client, options))
    }
}

impl<T: Transport> LiveSource<T> {
    /// A live source over any transport (tests use recorded kernel replies).
    pub fn with_client(client: NldevClient<T>, options: LiveOptions) -> LiveSource<T> {
        let (host, kernel) = uname();
        let verbs = if options.verbs {
            VerbsLimits::system()
        } else {
            VerbsLimits::disabled()
        };
        LiveSource {
            client,
            procs: ProcReader::new(options.proc_root.clone())
                .with_kubelet_logs(options.kubelet_logs.clone()),
            cgroups: CgroupRdmaReader::new(&options.proc_root, &options.sys_root),
            counters: CounterReader::new(options.sys_root.clone()),
            verbs_thread: verbs.query_thread(),
            verbs,
            notes: Vec::new(),
            cadence: ObjectCadence::new(options.object_interval),
            options,
            dumps: LatestDumps::default(),
            attribution: Attribution::default(),
            sysfs: HashMap::new(),
            host,
            kernel,
            namespaces: None,
            opener: None,
            events: Listening::default(),
        }
    }

    fn collect_inner(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let started = Instant::now();
        self.cadence.collection(started);
        let collected_at_ms = crate::model::time::now();
        let summaries = self.read_summaries()?;
        // libibverbs reads the limits side by side with everything else.
        let keys = devices::verbs_keys(&summaries);
        let mut verbs = std::mem::take(&mut self.verbs);
        self.verbs_thread = verbs.query_thread();
        let ((read, dumped), _) = verbs.query_alongside(&keys, || {
            let read = self.read_devices(summaries);
            let dumped = self.objects_phase(&read.devices, request);
            (read, dumped)
        });
        self.verbs = verbs;
        let DeviceRead {
            mut devices,
            netns_mode,
            monitor,
            mut warnings,
        } = read;
        self.device_events(monitor, &mut warnings);
        self.apply_limits(&mut devices);
        // restop's own context, open while the dumps ran, is in no tally; the
        // summary was read before it existed.
        let own = own_in_dumps(&self.dumps, &dumped);
        if own > 0 {
            self.note(vec![format!(
                "left out {own} objects owned by restop itself"
            )]);
        }
        warnings.extend(self.postponed_warnings(Instant::now()));
        let collected = Collected {
            host: self.host.clone(),
            kernel: self.kernel.clone(),
            collected_at_ms,
            collect_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            netns_mode,
        };
        let mut snapshot = assemble(collected, devices, &self.dumps, warnings);
        if netns_mode == Some(crate::model::NetnsMode::Exclusive) && self.options.other_netns {
            self.other_namespaces().collect_into(&mut snapshot, request);
            snapshot.meta.collect_us =
                u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        }
        Ok(snapshot)
    }

    /// The readers of the other namespaces, made at the first exclusive-mode collection.
    fn other_namespaces(&mut self) -> &mut Namespaces {
        let options = &self.options;
        let opener = &mut self.opener;
        self.namespaces.get_or_insert_with(|| {
            let opener = opener
                .take()
                .unwrap_or_else(|| Box::new(LiveNamespaceOpener::new(options.clone())));
            Namespaces::new(
                opener,
                options.proc_root.clone(),
                options.run_netns.clone(),
                options.own_pid,
            )
            .with_procs(
                ProcReader::new(options.proc_root.clone())
                    .with_kubelet_logs(options.kubelet_logs.clone()),
            )
        })
    }

    /// Starts the device-event listener where the kernel offers events (once),
    /// and turns what it heard since the last collection into notes and, for a
    /// removed device, a warning.
    fn device_events(&mut self, offered: Option<bool>, warnings: &mut Vec<Warning>) {
        if !self.options.device_events {
            return;
        }
        if let Some(note) = self.events.decide(offered, self.options.netns.as_ref()) {
            // On stderr with RESTOP_DEBUG only: the notes others take stay about limits.
            if self.options.print_notes {
                use std::io::Write;
                let place = match &self.options.netns {
                    Some(ns) => format!("netns {}: ", ns.display()),
                    None => String::new(),
                };
                let _ = writeln!(std::io::stderr(), "restop: debug: {place}{note}");
            }
        }
        let (events, problems) = self.events.take();
        let mut notes = problems;
        for e in events {
            let name = e
                .name
                .clone()
                .or_else(|| e.device.map(|i| format!("device {i}")))
                .unwrap_or_else(|| "a device".into());
            notes.push(format!("device event: {} {name}", e.kind.name()));
            if e.kind == crate::nldev::EventKind::Unregister {
                warnings.push(Warning::new(
                    WarningKind::DeviceVanished,
                    format!("{name} was removed (device event)"),
                ));
            }
        }
        if !notes.is_empty() {
            self.note(notes);
        }
    }

    /// Runs the object dumps that are due (all of them when asked, or when
    /// the detail asked for changed) and puts them in the latest dumps; returns the
    /// types dumped.
    fn objects_phase(&mut self, devices: &[Device], request: &CollectRequest) -> Vec<ResourceType> {
        let now = Instant::now();
        let all = request.force_objects
            || self.dumps.types.is_empty()
            || self.dumps.scope != request.details;
        let due = if all {
            DUMP_ORDER.to_vec()
        } else {
            self.cadence.due_types(now)
        };
        if due.is_empty() {
            return due;
        }
        if self.dumps.scope != request.details {
            self.dumps.types.clear();
            self.dumps.scope = request.details.clone();
        }
        let scope = self.dumps.scope.clone();
        let mut started = now;
        for (t, dump, took) in self.object_round(devices, &scope, &due) {
            self.cadence.record(t, started, took);
            started += took;
            self.dumps.types.insert(t, dump);
        }
        self.refresh_processes();
        due
    }

    /// Details and cgroup quotas of the processes this round's dumps named;
    /// the others keep what was read when their objects were last dumped.
    fn refresh_processes(&mut self) {
        let tallies = self.dumps.tallies();
        let named = self.dumps.processes(&tallies);
        self.cgroups.begin_round();
        let mut processes = std::collections::BTreeMap::new();
        for mut process in named {
            let fresh = self.procs.info(&process.key).cloned();
            match fresh {
                Some(info) => {
                    process = info;
                    // Quota use changes as fast as objects come and go.
                    process.rdma_cgroup = self.cgroups.for_process(process.key.pid).map(Box::new);
                }
                None => {
                    if let Some(old) = self.dumps.processes.get(&process.key) {
                        process = old.clone();
                    }
                }
            }
            processes.insert(process.key, process);
        }
        self.dumps.processes = processes;
        self.dumps.round_warnings = self.procs.end_tick();
    }

    /// A `slow_dump` warning per type the duty limit holds back.
    fn postponed_warnings(&self, now: Instant) -> Vec<Warning> {
        DUMP_ORDER
            .into_iter()
            .filter(|t| self.cadence.postponed(*t, now))
            .map(|t| {
                Warning::new(
                    WarningKind::SlowDump,
                    format!(
                        "{} dumps take {} ms: refreshed every {:.1} s",
                        t.name(),
                        self.cadence.last_duration(t).as_millis(),
                        self.cadence.effective_interval(t).as_secs_f64()
                    ),
                )
            })
            .collect()
    }
}

impl<T: Transport> LiveSource<T> {
    /// Whether device events are listened to (`Some(true)`), devices polled
    /// every tick (`Some(false)`), or not decided yet (`None`).
    pub fn listens_to_device_events(&self) -> Option<bool> {
        match &self.events {
            Listening::Undecided => None,
            Listening::On(_) => Some(true),
            Listening::Off => Some(false),
        }
    }

    /// Replaces how other network namespaces are opened (tests use fake kernels).
    pub fn set_namespace_opener(&mut self, opener: Box<dyn NamespaceOpener>) {
        self.opener = Some(opener);
        self.namespaces = None;
    }

    /// Replaces how device limits are read (tests use a fake library).
    pub fn set_verbs(&mut self, verbs: VerbsLimits) {
        self.verbs_thread = verbs.query_thread();
        self.verbs = verbs;
    }

    /// Diagnostics gathered so far (missing libibverbs, a device that would
    /// not open, what the library printed), oldest first; never errors.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn note(&mut self, notes: Vec<String>) {
        if self.options.print_notes {
            for n in &notes {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "restop: debug: {n}");
            }
        }
        self.notes.extend(notes);
        // Nobody may ever take them (the interactive view does not): keep the latest.
        let excess = self.notes.len().saturating_sub(MAX_NOTES);
        self.notes.drain(..excess);
    }
}

impl<T: Transport + Send> Source for LiveSource<T> {
    fn kind(&self) -> SourceKind {
        SourceKind::Live
    }

    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        self.collect_inner(request)
    }
}

/// Opens a live source inside another namespace: its sockets (requests and
/// device events) opened there, no libibverbs (that namespace's uverbs devices
/// cannot be opened from here), no namespaces of its own to look for.
pub(crate) struct LiveNamespaceOpener {
    options: LiveOptions,
}

impl LiveNamespaceOpener {
    pub(crate) fn new(options: LiveOptions) -> LiveNamespaceOpener {
        LiveNamespaceOpener { options }
    }
}

impl NamespaceOpener for LiveNamespaceOpener {
    fn open(&mut self, entry: &NetnsEntry) -> Result<Box<dyn Source>, String> {
        let transport = SocketTransport::open_in_netns(&entry.path, self.options.timeout)
            .map_err(|e| e.to_string())?;
        let options = LiveOptions {
            verbs: false,
            other_netns: false,
            netns: Some(entry.path.clone()),
            ..self.options.clone()
        };
        Ok(Box::new(LiveSource::with_client(
            NldevClient::new(transport),
            options,
        )))
    }
}

fn vanished(name: &str) -> Warning {
    Warning::new(
        WarningKind::DeviceVanished,
        format!("device {name} disappeared during collection"),
    )
}

fn uname() -> (String, String) {
    match nix::sys::utsname::uname() {
        Ok(u) => (
            u.nodename().to_string_lossy().into_owned(),
            u.release().to_string_lossy().into_owned(),
        ),
        Err(_) => (String::from("?"), String::from("?")),
    }
}

impl From<&NlError> for WarningKind {
    fn from(e: &NlError) -> WarningKind {
        if e.is_permission() {
            WarningKind::Permission
        } else {
            WarningKind::DumpFailed
        }
    }
}

impl<T: Transport> LiveSource<T> {
    /// The netlink client (tests inspect what was asked so far).
    pub fn client(&self) -> &NldevClient<T> {
        &self.client
    }

    /// Gives the netlink client back (tests inspect what was asked).
    pub fn into_client(self) -> NldevClient<T> {
        self.client
    }
}
