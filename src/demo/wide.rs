//! `--demo-devices PFSxVFS`: the simulated host with many devices, as on a
//! node with eight dual-port ConnectX cards in SR-IOV mode (`16x8`: 16 PFs
//! and 128 VFs), for the devices pane's grouping and scrolling, the
//! exporter's series count and the scale benchmark.
//!
//! The default host's story is kept: its five devices become the first
//! PF pair and three of their VFs, so its workloads, ERROR QPs, storms and
//! flaps happen as before. Every other device is added around them:
//!
//! - Names as the kernel gives them: mlx5 probes the PFs at boot
//!   (`mlx5_0`..`mlx5_{PFS-1}`), and the VFs once `sriov_numvfs` is
//!   written, PF by PF, so PF `p`'s VF `v` is `mlx5_{PFS + p*VFS + v}`.
//!   Netdevs as udev names them: card `c` function `f` is `ens{c}f{f}np{f}`,
//!   its VFs `ens{c}f{f}v{v}`.
//! - Every PF has the kernel's own objects (`mlx5_ib`, `ib_core`); every VF
//!   two or three tenant pods (trainers, inference, storage, MPI), their
//!   counts wandering a little with time.
//! - One VF deep in the tree (PF `PFS-3`, VF 5) runs at about 94 % of its
//!   QP limit, another (PF `PFS/2+1`, VF 3) has 6 QPs in ERR, so with
//!   many devices the worst are not the first in the tree.
//! - The VFs of the last PF pair are moved into their first pod's network
//!   namespace (exclusive netns mode, as rdma-cni does), so the pane's and
//!   the exporter's `netns`/`pod` marks have something to show.
//!
//! A post-processing of the default snapshot rather than a second world:
//! the story stays in one place (`scenario.rs`) and the added devices are
//! pure functions of the layout and the simulated time.

use super::clock::SimMs;
use super::counter_traffic;
use super::workloads::process;
use crate::model::{
    Container, Device, DeviceNetns, KubeNames, LimitSource, NetnsMode, NetnsOwner, Object,
    OwnerKey, PhysState, Port, PortState, ProcessInfo, Qp, QpState, QpType, ReportedOwner,
    ResourceType, Runtime, Snapshot, Tally, UsageEntry,
};

/// Fewest and most PFs and VFs per PF a layout may have: two PFs hold the
/// default host's devices; beyond 32 the simulated host stops being one
/// that exists.
pub(super) const PFS: std::ops::RangeInclusive<u32> = 2..=32;
pub(super) const VFS: std::ops::RangeInclusive<u32> = 2..=32;

/// How many PFs and VFs per PF the simulated host has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Physical functions (`PFS`: 1..=16).
    pub pfs: u32,
    /// VFs of each PF (`VFS`: 2..=32).
    pub vfs: u32,
}

impl Layout {
    /// `--demo-devices PFSxVFS`; out of range is an error naming the ranges.
    pub fn new(pfs: u32, vfs: u32) -> Result<Layout, String> {
        if !PFS.contains(&pfs) || !VFS.contains(&vfs) {
            return Err(format!(
                "{pfs}x{vfs}: the simulated host has {}..={} PFs with {}..={} VFs each",
                PFS.start(),
                PFS.end(),
                VFS.start(),
                VFS.end()
            ));
        }
        Ok(Layout { pfs, vfs })
    }

    /// RDMA devices in all: every PF and its VFs.
    pub fn devices(self) -> u32 {
        self.pfs * (1 + self.vfs)
    }

    /// The kernel's index (and `mlx5_N` number) of PF `pf`'s VF `vf`.
    pub fn vf_index(self, pf: u32, vf: u32) -> u32 {
        self.pfs + pf * self.vfs + vf
    }

    /// Where the default host's five devices go: its two PFs stay, its VFs
    /// become the first VFs of their PF.
    fn remap(self, old: u32) -> u32 {
        match old {
            2 => self.vf_index(0, 0),
            3 => self.vf_index(0, 1),
            4 => self.vf_index(1, 0),
            other => other,
        }
    }

    /// The VF near its QP limit and the one with ERR QPs.
    fn near_limit(self) -> u32 {
        self.vf_index(self.pfs.saturating_sub(3).max(1), 5 % self.vfs)
    }

    fn with_errors(self) -> u32 {
        self.vf_index((self.pfs / 2 + 1).min(self.pfs - 1), 3 % self.vfs)
    }

    /// VFs of the last PF pair live in their pod's network namespace.
    fn in_pod_netns(self, pf: u32) -> bool {
        pf + 2 >= self.pfs && pf >= 2
    }
}

/// What a VF's QP limit is (the SR-IOV profile's), in `ResourceType::ALL` order.
const VF_LIMITS: [Option<u64>; 7] = [
    Some(4_096),
    Some(8_192),
    Some(65_536),
    Some(8_192),
    None,
    None,
    Some(2_048),
];
const PF_LIMITS: [Option<u64>; 7] = [
    Some(131_072),
    Some(16_777_216),
    Some(16_777_216),
    Some(16_777_216),
    None,
    None,
    Some(8_388_608),
];

/// Tenants a VF is handed to: (namespace, pod prefix, container, comm, command).
const TENANTS: [(&str, &str, &str, &str, &str); 5] = [
    (
        "ml-training",
        "llama-sft-worker",
        "pytorch",
        "python3",
        "torchrun --nnodes=16 sft.py",
    ),
    ("inference", "vllm-qwen72b", "vllm", "python3", "vllm serve"),
    (
        "storage",
        "spdk-nvmf-target",
        "spdk",
        "nvmf_tgt",
        "/usr/local/bin/nvmf_tgt -m 0xF0",
    ),
    (
        "hpc",
        "openfoam-mpi",
        "mpi",
        "simpleFoam",
        "mpirun -np 64 simpleFoam -parallel",
    ),
    (
        "ml-training",
        "deepspeed-moe-rank",
        "deepspeed",
        "python3",
        "deepspeed train_moe.py",
    ),
];

/// Pids of the added tenants start here, above the default host's.
const FIRST_PID: u32 = 40_000;
/// Namespace inodes of the pods' network namespaces start here.
const FIRST_NETNS_INODE: u64 = 4_026_533_000;

/// Spreads the default snapshot over `layout`'s devices (see the module doc).
/// `now` and `previous` are the simulated times of this read and the one
/// before, for the added ports' counters.
pub(super) fn widen(snapshot: &mut Snapshot, layout: Layout, now: SimMs, previous: Option<SimMs>) {
    renumber_default_devices(snapshot, layout);
    let template = snapshot.devices.first().cloned();
    let mut added = Vec::new();
    for pf in 0..layout.pfs {
        if pf >= 2 {
            added.push(device(layout, pf, None, template.as_ref()));
        }
        for vf in 0..layout.vfs {
            let index = layout.vf_index(pf, vf);
            if snapshot.devices.iter().all(|d| d.index != index) {
                added.push(device(layout, pf, Some(vf), template.as_ref()));
            }
        }
    }
    counter_traffic::attach(&mut added, now, previous);
    for d in &added {
        owners_of(snapshot, layout, d, now);
    }
    for d in &mut added {
        count_usage(d, &snapshot.tallies);
    }
    snapshot.devices.extend(added);
    snapshot.devices.sort_by_key(|d| d.index);
    snapshot.processes.sort_by_key(|p| p.key);
    snapshot.meta.netns_mode = Some(NetnsMode::Exclusive);
    for d in &mut snapshot.devices {
        // The VFs of the last PF pair were moved into their first pod's namespace.
        let Some(pf) = d.pf.as_deref().and_then(|n| n.strip_prefix("mlx5_")) else {
            continue;
        };
        let Ok(pf) = pf.parse::<u32>() else { continue };
        if layout.in_pod_netns(pf) {
            d.netns = pod_netns(&snapshot.processes, &snapshot.tallies, d.index);
        }
    }
}

/// The default host's VFs get their place among the VFs of their PF.
fn renumber_default_devices(snapshot: &mut Snapshot, layout: Layout) {
    for d in &mut snapshot.devices {
        d.index = layout.remap(d.index);
        d.name = format!("mlx5_{}", d.index);
    }
    for t in &mut snapshot.tallies {
        t.device = layout.remap(t.device);
    }
    for o in &mut snapshot.objects {
        let device = match o {
            Object::Qp(o) => &mut o.device,
            Object::Cq(o) => &mut o.device,
            Object::Mr(o) => &mut o.device,
            Object::Pd(o) => &mut o.device,
            Object::CmId(o) => &mut o.device,
            Object::Ctx(o) => &mut o.device,
            Object::Srq(o) => &mut o.device,
        };
        *device = layout.remap(*device);
    }
    // The unattributed-objects warning named the devices by their old names.
    for w in &mut snapshot.meta.warnings {
        w.message = rename_words(&w.message, layout);
    }
}

/// `mlx5_2` → its new name, leaving `mlx5_20` alone.
fn rename_words(text: &str, layout: Layout) -> String {
    text.split_inclusive([' ', ','])
        .map(|word| {
            let trimmed = word.trim_end_matches([' ', ',']);
            let tail = &word[trimmed.len()..];
            match trimmed.strip_prefix("mlx5_").and_then(|n| n.parse().ok()) {
                Some(old) if old < 5 => format!("mlx5_{}{tail}", layout.remap(old)),
                _ => word.to_string(),
            }
        })
        .collect()
}

/// PF `pf` (`vf: None`) or its VF `vf`, as a live collection reports it.
fn device(layout: Layout, pf: u32, vf: Option<u32>, template: Option<&Device>) -> Device {
    let (card, function) = (pf / 2 + 1, pf % 2);
    let bus = 0x17 + (pf / 2) * 0x10;
    let (index, netdev, pci, netdev_index) = match vf {
        None => (
            pf,
            format!("ens{card}f{function}np{function}"),
            format!("0000:{bus:02x}:00.{function}"),
            4 + pf,
        ),
        Some(v) => {
            let slot = 2 + function * layout.vfs + v;
            (
                layout.vf_index(pf, v),
                format!("ens{card}f{function}v{v}"),
                format!("0000:{bus:02x}:{:02x}.{}", slot / 8, slot % 8),
                4 + layout.pfs + pf * layout.vfs + v,
            )
        }
    };
    let mut d = Device::new(index, format!("mlx5_{index}"));
    if let Some(t) = template {
        d.fw_version = t.fw_version.clone();
        d.node_type = t.node_type.clone();
        d.protocol = t.protocol.clone();
        d.sys_image_guid = t.sys_image_guid.map(|g| g + u64::from(pf / 2) * 0x100);
        d.objects = t.objects.clone();
    }
    d.node_guid = Some(0xb83f_d203_00a4_0000 + u64::from(index));
    d.pci = Some(pci);
    d.pf = vf.map(|_| format!("mlx5_{pf}"));
    d.ports = vec![Port {
        index: 1,
        state: Some(PortState::Active),
        phys_state: Some(PhysState::LinkUp),
        netdev: Some(netdev),
        netdev_index: Some(netdev_index),
        counters: None,
    }];
    let limits = if vf.is_some() { VF_LIMITS } else { PF_LIMITS };
    for (t, max) in ResourceType::ALL.into_iter().zip(limits) {
        d.usage.set(
            t,
            UsageEntry {
                current: 0,
                max,
                max_source: max.map(|_| LimitSource::Demo),
            },
        );
    }
    d
}

/// A small deterministic hash of a device and a salt.
fn mix(index: u32, salt: u32) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ (u64::from(index) << 16) ^ u64::from(salt);
    for _ in 0..3 {
        h = (h ^ (h >> 29)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// What owns objects on an added device: the kernel on every device, two
/// or three tenants on a VF.
fn owners_of(snapshot: &mut Snapshot, layout: Layout, d: &Device, now: SimMs) {
    let kernel = |name: &str, counts: &[(ResourceType, u64)]| {
        let mut t = Tally::new(OwnerKey::Kernel(name.to_string()), d.index);
        for (ty, n) in counts {
            t.counts.add(*ty, *n);
        }
        t.qp_states
            .add(QpState::Rts, t.counts.get(ResourceType::Qp));
        t
    };
    snapshot.tallies.push(kernel(
        "mlx5_ib",
        &[
            (ResourceType::Pd, 1),
            (ResourceType::Cq, 1),
            (ResourceType::Qp, 1),
        ],
    ));
    snapshot.tallies.push(kernel(
        "ib_core",
        &[(ResourceType::Pd, 1), (ResourceType::Cq, 2)],
    ));
    if !d.is_vf() {
        return;
    }
    let tenants = 2 + (mix(d.index, 1) % 2) as u32;
    // Counts wander by a few every 10 s of simulated time.
    let phase = u64::try_from(now.max(0) / 10_000).unwrap_or(0);
    for k in 0..tenants {
        let pid = FIRST_PID + d.index * 4 + k;
        let (ns, prefix, container, comm, command) =
            TENANTS[(mix(d.index, 2 + k) % TENANTS.len() as u64) as usize];
        let pod_name = format!("{prefix}-{}", mix(d.index, 7 + k) % 1000);
        let started: SimMs = -((mix(d.index, 11 + k) % 86_400) as SimMs) * 1_000;
        let info = process(
            pid,
            started,
            comm,
            &command.split(' ').collect::<Vec<_>>(),
            (1000 + k, "tenant"),
            Some(tenant_container(ns, &pod_name, container)),
        );
        let wander = (mix(d.index, 13 + k) + phase) % 5;
        let mut t = Tally::new(OwnerKey::Process(info.key), d.index);
        let mut qps = 8 + mix(d.index, 17 + k) % 120 + wander;
        if d.index == layout.near_limit() && k == 0 {
            // One tenant's connection pool grew to fill its VF.
            qps = 3_830 + wander * 3;
        }
        let mrs = 16 + mix(d.index, 19 + k) % 600 + wander * 2;
        t.counts.add(ResourceType::Ctx, 1);
        t.counts.add(ResourceType::Pd, 1 + mix(d.index, 23 + k) % 2);
        t.counts.add(ResourceType::Cq, 2 + qps / 16);
        t.counts.add(ResourceType::Qp, qps);
        t.counts.add(ResourceType::Mr, mrs);
        t.mr_bytes = mrs << 21;
        let failed = if d.index == layout.with_errors() && k == 0 {
            6
        } else {
            0
        };
        t.qp_states.add(QpState::Rts, qps - failed);
        if failed > 0 {
            t.qp_states.add(QpState::Err, failed);
            for n in 0..failed {
                snapshot.objects.push(Object::Qp(Qp {
                    device: d.index,
                    port: Some(1),
                    lqpn: 0x1200 + d.index * 0x40 + n as u32,
                    rqpn: Some(0x8a0 + n as u32),
                    qp_type: QpType::Rc,
                    state: QpState::Err,
                    pdn: Some(3),
                    sq_psn: Some(0x3a_1100 + n as u32),
                    rq_psn: Some(0x51_0200 + n as u32),
                    reported: ReportedOwner::Task(pid),
                    owner: OwnerKey::Process(info.key),
                }));
            }
        }
        snapshot.tallies.push(t);
        snapshot.processes.push(info);
    }
}

fn tenant_container(namespace: &str, pod: &str, container: &str) -> Container {
    let seed = pod.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    Container {
        runtime: Runtime::Containerd,
        id: format!("{seed:016x}{:016x}", seed.rotate_left(17) ^ 0x5bd1_e995),
        pod: Some(format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            seed >> 32,
            (seed >> 16) & 0xffff,
            seed & 0xfff,
            (seed >> 20) & 0xfff,
            seed.rotate_left(7) & 0xffff_ffff_ffff
        )),
        kube: Some(KubeNames {
            namespace: namespace.to_string(),
            pod: pod.to_string(),
            container: container.to_string(),
        }),
    }
}

/// The namespace of the first tenant on device `index`, as `collect/netns`
/// would name it: no `ip netns` name, owned by that tenant's process.
fn pod_netns(processes: &[ProcessInfo], tallies: &[Tally], index: u32) -> Option<DeviceNetns> {
    let pid = tallies
        .iter()
        .filter(|t| t.device == index)
        .find_map(|t| t.owner.pid())?;
    let p = processes.iter().find(|p| p.key.pid == pid)?;
    let kube = p.container.as_ref().and_then(|c| c.kube.as_ref());
    Some(DeviceNetns {
        inode: FIRST_NETNS_INODE + u64::from(index),
        names: Vec::new(),
        owner: Some(NetnsOwner {
            pid,
            comm: p.comm.clone(),
            container: p
                .container
                .as_ref()
                .map(|c| c.id.chars().take(12).collect()),
            pod: kube.map(|k| format!("{}/{}", k.namespace, k.pod)),
        }),
    })
}

/// The kernel summary's part: the device's counts are its owners' sums.
fn count_usage(d: &mut Device, tallies: &[Tally]) {
    for (t, entry) in d.usage.0.iter_mut() {
        entry.current = tallies
            .iter()
            .filter(|x| x.device == d.index)
            .map(|x| x.counts.get(*t))
            .sum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use crate::source::{CollectRequest, Source};
    use std::time::Duration;

    fn wide(pfs: u32, vfs: u32) -> Snapshot {
        let mut demo =
            DemoSource::new(1, Duration::from_secs(2)).with_devices(Layout::new(pfs, vfs).unwrap());
        demo.collect(&CollectRequest::default()).unwrap()
    }

    #[test]
    fn sixteen_pfs_with_eight_vfs_are_named_as_the_kernel_names_them() {
        let s = wide(16, 8);
        assert_eq!(s.devices.len(), 144);
        let names: Vec<&str> = s.devices.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names[0], "mlx5_0");
        assert_eq!(names[143], "mlx5_143");
        for (i, d) in s.devices.iter().enumerate() {
            assert_eq!(d.index as usize, i);
            assert_eq!(d.name, format!("mlx5_{i}"));
            let want_pf = (i >= 16).then(|| format!("mlx5_{}", (i - 16) / 8));
            assert_eq!(d.pf, want_pf, "{}", d.name);
            assert!(d.ports[0].counters.is_some(), "{}", d.name);
        }
        let netdev = |i: usize| s.devices[i].ports[0].netdev.clone().unwrap();
        assert_eq!(netdev(0), "ens1f0np0");
        assert_eq!(netdev(15), "ens8f1np1");
        assert_eq!(netdev(16), "ens1f0v0");
        assert_eq!(netdev(143), "ens8f1v7");
    }

    #[test]
    fn the_default_hosts_devices_keep_their_story_under_their_pf() {
        let s = wide(16, 8);
        // mlx5_2 (max_qp 2048, ~83 % full) is now VF 0 of mlx5_0.
        let vf = &s.devices[16];
        assert_eq!(vf.pf.as_deref(), Some("mlx5_0"));
        assert_eq!(vf.usage.get(ResourceType::Qp).unwrap().max, Some(2_048));
        assert!(vf.usage.current(ResourceType::Qp).unwrap() > 1_000);
        assert_eq!(s.devices[24].ports[0].state, Some(PortState::Down));
        assert!(s.tallies.iter().all(|t| (t.device as usize) < 144));
        for w in &s.meta.warnings {
            for old in ["mlx5_2,", "mlx5_3,", "mlx5_4 "] {
                assert!(!w.message.contains(old), "{}", w.message);
            }
        }
    }

    #[test]
    fn every_vf_has_a_few_tenants_one_is_near_its_limit_one_has_err_qps() {
        let s = wide(16, 8);
        let layout = Layout::new(16, 8).unwrap();
        for d in s.devices.iter().filter(|d| d.is_vf()) {
            let tenants = s
                .tallies
                .iter()
                .filter(|t| t.device == d.index && t.owner.pid().is_some())
                .count();
            // The default host's VFs keep their own users (none on the one that is down).
            if ![16, 17, 24].contains(&d.index) {
                assert!((2..=3).contains(&tenants), "{}: {tenants}", d.name);
            }
        }
        let near = &s.devices[layout.near_limit() as usize];
        let ratio = near.usage.get(ResourceType::Qp).unwrap().ratio().unwrap();
        assert!((0.9..1.0).contains(&ratio), "{ratio}");
        let errs = s
            .objects
            .iter()
            .filter(|o| matches!(o, Object::Qp(q) if q.device == layout.with_errors()))
            .count();
        assert_eq!(errs, 6);
        for p in &s.processes {
            assert!(s.tallies.iter().any(|t| t.owner.pid() == Some(p.key.pid)));
        }
    }

    #[test]
    fn the_last_pf_pairs_vfs_are_in_their_pods_namespaces() {
        let s = wide(16, 8);
        let foreign: Vec<&Device> = s.devices.iter().filter(|d| d.netns.is_some()).collect();
        assert_eq!(foreign.len(), 16);
        assert!(foreign.iter().all(|d| d.index >= 16 + 14 * 8));
        let ns = foreign[0].netns.as_ref().unwrap();
        assert!(ns.owner.as_ref().unwrap().pod.is_some());
    }

    #[test]
    fn layouts_out_of_range_are_refused_and_small_ones_work() {
        assert!(Layout::new(1, 8).is_err());
        assert!(Layout::new(16, 33).is_err());
        let s = wide(2, 2);
        assert_eq!(s.devices.len(), 6);
    }

    #[test]
    fn renaming_leaves_longer_names_alone() {
        let layout = Layout::new(16, 8).unwrap();
        assert_eq!(
            rename_words("objects on mlx5_2, mlx5_20 and mlx5_4 have", layout),
            "objects on mlx5_16, mlx5_20 and mlx5_24 have"
        );
    }
}
