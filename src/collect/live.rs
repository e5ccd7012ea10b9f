//! The live source: the kernel's resource tracking over NETLINK_RDMA, owners
//! from procfs, topology from sysfs, folded into one [`Snapshot`].
//!
//! Every collection reads the cheap parts (device list, ports, the summary
//! counts). Object dumps run on their own cadence ([`ObjectCadence`]); between
//! them the last dump's tallies and kept objects are reused, so a 1 s refresh
//! never turns into a firmware query per QP per second on a busy host.

use super::attribution::{Attribution, DUMP_ORDER};
use super::cadence::ObjectCadence;
use super::cgroup_rdma::CgroupRdmaReader;
use super::counters::CounterReader;
use super::procfs::ProcReader;
use super::sysfs::{SysfsDevice, sysfs_device};
use super::verbs::{DeviceKey, VerbsLimits};
use crate::model::{
    DetailScope, Device, Meta, NetnsMode, Object, ObjectAccumulator, OwnerKey, Port, ProcessInfo,
    ResourceType, Snapshot, SourceKind, Tally, TypeCounts, Warning, WarningKind,
};
use crate::nldev::{DeviceInfo, NlError, NldevClient, SocketTransport, Transport};
use crate::source::{CollectError, CollectRequest, Source};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Diagnostics kept for `take_notes`.
const MAX_NOTES: usize = 64;

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
        }
    }
}

/// What the last object dumps produced; reused until the next dump is due.
#[derive(Clone, Debug, Default)]
struct ObjectView {
    scope: DetailScope,
    collected_at_ms: u64,
    tallies: Vec<Tally>,
    objects: Vec<Object>,
    processes: Vec<ProcessInfo>,
    hidden_fields: Vec<String>,
    warnings: Vec<Warning>,
    /// Per device index: types whose dump failed, with the reason.
    errors: HashMap<u32, Vec<(ResourceType, String)>>,
    /// Devices whose dumps completed (at least partly) in that round.
    dumped: BTreeSet<u32>,
    /// Per device index: restop's own objects seen (and left out) in that round.
    own: HashMap<u32, TypeCounts>,
}

pub struct LiveSource<T: Transport = SocketTransport> {
    client: NldevClient<T>,
    procs: ProcReader,
    options: LiveOptions,
    cadence: ObjectCadence,
    view: Option<ObjectView>,
    sysfs: HashMap<String, SysfsDevice>,
    host: String,
    kernel: String,
    verbs: VerbsLimits,
    cgroups: CgroupRdmaReader,
    counters: CounterReader,
    notes: Vec<String>,
}

impl LiveSource<SocketTransport> {
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
            verbs,
            notes: Vec::new(),
            cadence: ObjectCadence::new(options.object_interval),
            options,
            view: None,
            sysfs: HashMap::new(),
            host,
            kernel,
        }
    }

    #[allow(clippy::too_many_lines)] // being split into the phases of docs/architecture.md
    fn collect_inner(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let started = Instant::now();
        let collected_at_ms = crate::model::time::now().as_u64();
        let mut warnings = Vec::new();

        // The summary is the one request that must work: without it there is
        // nothing to show.
        let mut summaries = self.client.summaries()?;
        let infos = match self.client.devices() {
            Ok(infos) => infos,
            Err(e) => {
                warnings.push(Warning::new(
                    WarningKind::Other,
                    format!("device details unavailable: {e}"),
                ));
                Vec::new()
            }
        };
        let keys: Vec<DeviceKey> = summaries
            .iter()
            .map(|s| DeviceKey {
                index: s.index,
                name: s.name.clone(),
                node_guid: infos
                    .iter()
                    .find(|i| i.index == s.index)
                    .and_then(|i| i.node_guid),
            })
            .collect();
        if self.verbs.query_new(&keys) {
            // Reading limits opened (and closed) a device context of our own;
            // the counts shown are taken after it is gone.
            summaries = self.client.summaries()?;
        }
        let notes = self.verbs.take_notes();
        self.note(notes);
        let netns_mode = match self.client.sys() {
            Ok(sys) => sys.netns_mode,
            Err(_) => None, // older kernels have no SYS_GET; nothing to tell
        };
        if netns_mode == Some(NetnsMode::Exclusive) {
            warnings.push(Warning::new(
                WarningKind::Netns,
                "RDMA netns mode is exclusive: only devices of this network namespace are visible",
            ));
        }

        let mut devices: Vec<Device> = Vec::new();
        for summary in &summaries {
            let mut device = Device::new(summary.index, summary.name.clone());
            device.usage = summary.usage.clone();
            if let Some(attrs) = self.verbs.attrs(summary.index, &summary.name) {
                attrs.apply_to(&mut device);
            }
            if let Some(info) = infos.iter().find(|i| i.index == summary.index) {
                apply_info(&mut device, info);
                match self.client.ports(summary.index) {
                    Ok(ports) => {
                        device.ports = ports
                            .into_iter()
                            .map(|p| Port {
                                index: p.port,
                                state: p.state,
                                phys_state: p.phys_state,
                                netdev: p.netdev,
                                netdev_index: p.netdev_index,
                                counters: None,
                            })
                            .collect();
                    }
                    Err(e) if e.is_no_device() => warnings.push(vanished(&device.name)),
                    Err(e) => warnings.push(Warning::new(
                        WarningKind::Other,
                        format!("ports of {} unavailable: {e}", device.name),
                    )),
                }
            }
            let topo = self
                .sysfs
                .entry(device.name.clone())
                .or_insert_with(|| sysfs_device(&self.options.sys_root, &summary.name));
            device.pci = topo.pci.clone();
            device.pf = topo.pf.clone();
            // Counters every collection, before any object dump can delay them.
            if self.options.counters {
                self.counters
                    .read_device(&mut self.client, &mut device, &mut warnings);
            }
            devices.push(device);
        }
        self.counters.retain(&devices);
        // Renamed or removed devices must not keep stale topology.
        self.sysfs
            .retain(|name, _| devices.iter().any(|d| &d.name == name));

        let scope_changed = self
            .view
            .as_ref()
            .is_none_or(|v| v.scope != request.details);
        let dump_due = request.force_objects || scope_changed || self.cadence.due(Instant::now());
        if dump_due {
            let dump_start = Instant::now();
            let view = self.dump_objects(&devices, request.details.clone());
            self.cadence.record(dump_start, dump_start.elapsed());
            // Objects of our own that existed while this summary was taken
            // are no one's usage either.
            for device in &mut devices {
                if let Some(own) = view.own.get(&device.index) {
                    subtract_own(device, own);
                }
            }
            let own: u64 = view.own.values().map(TypeCounts::total).sum();
            if own > 0 {
                self.note(vec![format!(
                    "left out {own} objects owned by restop itself"
                )]);
            }
            self.view = Some(view);
        } else if self.cadence.postponed(Instant::now()) {
            warnings.push(Warning::new(
                WarningKind::SlowDump,
                format!(
                    "object dumps take {} ms: refreshed every {:.1} s",
                    self.cadence.last_duration().as_millis(),
                    self.cadence.effective_interval().as_secs_f64()
                ),
            ));
        }

        let view = self.view.clone().unwrap_or_default();
        for device in &mut devices {
            if view.dumped.contains(&device.index) {
                device.objects.collected_at_ms = Some(view.collected_at_ms);
            }
            if let Some(errors) = view.errors.get(&device.index) {
                device.objects.errors = errors.clone();
            }
        }
        warnings.extend(view.warnings.iter().cloned());
        // The same condition can be seen twice (a vanished device fails its
        // port query and its dumps); say it once.
        let mut seen = std::collections::HashSet::new();
        warnings.retain(|w| seen.insert(w.clone()));

        Ok(Snapshot {
            meta: Meta {
                source: SourceKind::Live,
                host: self.host.clone(),
                kernel: self.kernel.clone(),
                collected_at_ms,
                collect_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
                netns_mode,
                hidden_fields: view.hidden_fields.clone(),
                warnings,
            },
            devices,
            processes: view.processes,
            tallies: view.tallies,
            objects: view.objects,
        })
    }

    /// One round of object dumps over every device, parents first.
    fn dump_objects(&mut self, devices: &[Device], scope: DetailScope) -> ObjectView {
        let collected_at_ms = crate::model::time::now().as_u64();
        let mut acc = ObjectAccumulator::new(scope.clone());
        let mut attribution = Attribution::default();
        let mut view = ObjectView {
            scope,
            collected_at_ms,
            ..ObjectView::default()
        };
        let mut hidden = HiddenFields::default();
        let own_pid = self.options.own_pid;
        self.procs.begin_tick();

        for device in devices {
            let mut device_gone = false;
            for t in DUMP_ORDER {
                if device_gone {
                    break;
                }
                let procs = &mut self.procs;
                let own = &mut view.own;
                let mut sink = |mut obj: Object| {
                    hidden.observe(&obj);
                    let owner = attribution.resolve(&obj, |tid| procs.process_of_thread(tid));
                    if owner.pid() == Some(own_pid) {
                        // restop's own context (and anything under it) is
                        // not a consumer.
                        own.entry(obj.device())
                            .or_default()
                            .add(obj.resource_type(), 1);
                        return;
                    }
                    obj.set_owner(owner);
                    acc.add(obj);
                };
                match self.client.dump_objects(device.index, t, &mut sink) {
                    Ok(_) => {
                        view.dumped.insert(device.index);
                    }
                    Err(e) if e.is_no_device() => {
                        device_gone = true;
                        view.warnings.push(vanished(&device.name));
                    }
                    Err(e) => {
                        let message = e.to_string();
                        view.warnings.push(Warning::new(
                            WarningKind::from(&e),
                            format!("{} dump of {} failed: {message}", t.name(), device.name),
                        ));
                        view.errors
                            .entry(device.index)
                            .or_default()
                            .push((t, message));
                    }
                }
            }
        }

        let (tallies, objects) = acc.finish();
        let unattributed: u64 = tallies
            .iter()
            .filter(|t| t.owner == OwnerKey::Unattributed)
            .map(|t| t.counts.total())
            .sum();
        if unattributed > 0 {
            view.warnings.push(Warning::new(
                WarningKind::Unattributed,
                format!(
                    "{unattributed} objects have no owner restop can name \
                     (creating thread exited, or created in another PID namespace)"
                ),
            ));
        }
        let mut keys: Vec<_> = tallies
            .iter()
            .filter_map(|t| match &t.owner {
                OwnerKey::Process(key) => Some(*key),
                _ => None,
            })
            .collect();
        keys.sort();
        keys.dedup();
        view.processes = keys
            .iter()
            .map(|k| {
                self.procs
                    .info(k)
                    .cloned()
                    .unwrap_or_else(|| ProcessInfo::unknown(*k))
            })
            .collect();
        // Quota use changes as fast as objects come and go: read every round.
        self.cgroups.begin_round();
        for process in &mut view.processes {
            process.rdma_cgroup = self.cgroups.for_process(process.key.pid).map(Box::new);
        }
        view.warnings.extend(self.procs.end_tick());
        let (fields, warning) = hidden.report();
        view.hidden_fields = fields;
        view.warnings.extend(warning);
        view.tallies = tallies;
        view.objects = objects;
        view
    }
}

impl<T: Transport> LiveSource<T> {
    /// Replaces how device limits are read (tests use a fake library).
    pub fn set_verbs(&mut self, verbs: VerbsLimits) {
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

/// Takes restop's own objects out of a device's summary counts.
fn subtract_own(device: &mut Device, own: &TypeCounts) {
    for (t, n) in own.iter() {
        if let Some(entry) = device.usage.0.get_mut(&t) {
            entry.current = entry.current.saturating_sub(n);
        }
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

/// Tracks whether the kernel withheld key fields (it does for callers without
/// CAP_NET_ADMIN), so they are reported as hidden rather than shown as zero.
#[derive(Default)]
struct HiddenFields {
    mrs: u64,
    mrs_without_keys: u64,
    pds: u64,
    pds_without_lkey: u64,
}

impl HiddenFields {
    fn observe(&mut self, obj: &Object) {
        match obj {
            Object::Mr(mr) => {
                self.mrs += 1;
                if mr.keys.is_none() {
                    self.mrs_without_keys += 1;
                }
            }
            Object::Pd(pd) => {
                self.pds += 1;
                if pd.local_dma_lkey.is_none() {
                    self.pds_without_lkey += 1;
                }
            }
            _ => {}
        }
    }

    fn report(&self) -> (Vec<String>, Option<Warning>) {
        let mut fields = Vec::new();
        // Only when the kernel withheld keys from every object: some kernel MRs
        // legitimately have none.
        if self.mrs > 0 && self.mrs_without_keys == self.mrs {
            fields.extend(["mr.rkey".to_string(), "mr.lkey".to_string()]);
        }
        if self.pds > 0 && self.pds_without_lkey == self.pds {
            fields.push("pd.local_dma_lkey".to_string());
        }
        let warning = (!fields.is_empty()).then(|| {
            Warning::new(
                WarningKind::Permission,
                "MR and PD keys hidden: the kernel shows them only to CAP_NET_ADMIN",
            )
        });
        (fields, warning)
    }
}

fn apply_info(device: &mut Device, info: &DeviceInfo) {
    device.node_guid = info.node_guid;
    device.sys_image_guid = info.sys_image_guid;
    device.fw_version = info.fw_version.clone();
    device.node_type = info
        .node_type
        .map(|t| crate::model::device::node_type_name(t).to_string());
    device.protocol = info.protocol.clone();
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
    /// Gives the netlink client back (tests inspect what was asked).
    pub fn into_client(self) -> NldevClient<T> {
        self.client
    }
}
