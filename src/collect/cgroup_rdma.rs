//! Quotas of the cgroup `rdma` controller for the processes that own RDMA
//! objects: `rdma.max` and `rdma.current` of the process's cgroup and of
//! every ancestor, reduced to the quota with the least headroom per device
//! and resource (see `model::limits::cgroup` for why the ancestors matter).
//!
//! Both cgroup v2 (`0::/path`, the unified mount) and a v1 `rdma` hierarchy
//! (`N:rdma:/path`) are read. Nothing here fails: a missing controller, an
//! unreadable file or a garbled line just means no quota is shown.

use super::procfs::read_limited;
use crate::model::limits::{DeviceQuota, Quota, RdmaCgroup};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// One device's line of `rdma.max` or `rdma.current`. `None`: `max`, no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RdmaValues {
    pub hca_handle: Option<u64>,
    pub hca_object: Option<u64>,
}

/// Parses `rdma.max` / `rdma.current`: one line per device,
/// `mlx5_0 hca_handle=2 hca_object=2000` (`max` where unlimited). Lines or
/// values that do not parse are skipped.
pub(crate) fn parse_rdma_file(text: &str) -> BTreeMap<String, RdmaValues> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(device) = words.next() else {
            continue;
        };
        let mut values = RdmaValues::default();
        for word in words {
            let Some((key, value)) = word.split_once('=') else {
                continue;
            };
            let parsed = if value == "max" {
                None
            } else {
                match value.parse::<u64>() {
                    Ok(v) => Some(v),
                    Err(_) => continue,
                }
            };
            match key {
                "hca_handle" => values.hca_handle = parsed,
                "hca_object" => values.hca_object = parsed,
                _ => {}
            }
        }
        out.insert(device.to_string(), values);
    }
    out
}

/// Which hierarchy a process's rdma cgroup path belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Hierarchy {
    /// cgroup v2, the unified hierarchy.
    Unified,
    /// A cgroup v1 hierarchy with the `rdma` controller.
    V1Rdma,
}

/// The process's cgroup for the rdma controller, from `/proc/<pid>/cgroup`:
/// the v1 `rdma` line when there is one (the controller lives there then),
/// otherwise the v2 `0::` line.
pub(crate) fn rdma_cgroup_path(proc_cgroup: &str) -> Option<(Hierarchy, String)> {
    let mut unified = None;
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if controllers.split(',').any(|c| c == "rdma") {
            return Some((Hierarchy::V1Rdma, path.to_string()));
        }
        if id == "0" && controllers.is_empty() {
            unified = Some((Hierarchy::Unified, path.to_string()));
        }
    }
    unified
}

/// Where the hierarchies are mounted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CgroupMounts {
    pub unified: Option<PathBuf>,
    pub v1_rdma: Option<PathBuf>,
}

impl CgroupMounts {
    fn of(&self, h: Hierarchy) -> Option<&Path> {
        match h {
            Hierarchy::Unified => self.unified.as_deref(),
            Hierarchy::V1Rdma => self.v1_rdma.as_deref(),
        }
    }
}

/// Finds the cgroup2 mount and a v1 `rdma` mount in `/proc/self/mountinfo`
/// (fields: `id parent maj:min root mount-point options ... - fstype source super-options`).
pub(crate) fn parse_cgroup_mounts(mountinfo: &str) -> CgroupMounts {
    let mut mounts = CgroupMounts::default();
    for line in mountinfo.lines() {
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let Some(mount_point) = before.split(' ').nth(4) else {
            continue;
        };
        let mut after = after.split(' ');
        let (Some(fstype), _, Some(options)) = (after.next(), after.next(), after.next()) else {
            continue;
        };
        let path = PathBuf::from(unescape_octal(mount_point));
        match fstype {
            "cgroup2" if mounts.unified.is_none() => mounts.unified = Some(path),
            "cgroup" if options.split(',').any(|o| o == "rdma") => {
                mounts.v1_rdma.get_or_insert(path);
            }
            _ => {}
        }
    }
    mounts
}

/// mountinfo writes space, tab, newline and backslash as `\040` style escapes.
fn unescape_octal(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(code) = bytes
                .get(i + 1..i + 4)
                .and_then(|d| std::str::from_utf8(d).ok())
                .and_then(|d| u8::from_str_radix(d, 8).ok())
        {
            out.push(code);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What one cgroup directory says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Level {
    /// The cgroup path (`/a/b`).
    path: String,
    max: BTreeMap<String, RdmaValues>,
    current: BTreeMap<String, RdmaValues>,
}

/// Reduces the levels of one path (leaf first) to the binding quotas.
/// `None` when no level limits anything.
fn binding_quotas(own_path: &str, levels: &[Level]) -> Option<RdmaCgroup> {
    let mut devices = BTreeMap::new();
    let names: std::collections::BTreeSet<&String> =
        levels.iter().flat_map(|l| l.max.keys()).collect();
    for name in names {
        let pick = |get: fn(&RdmaValues) -> Option<u64>| -> Quota {
            let mut best: Option<Quota> = None;
            for level in levels {
                let Some(max) = level.max.get(name).and_then(get) else {
                    continue;
                };
                let current = level.current.get(name).and_then(get).unwrap_or(0);
                let candidate = Quota {
                    current,
                    max: Some(max),
                    cgroup: level.path.clone(),
                };
                // Least headroom binds first; on a tie the nearer one is kept.
                if best
                    .as_ref()
                    .is_none_or(|b| candidate.headroom() < b.headroom())
                {
                    best = Some(candidate);
                }
            }
            best.unwrap_or_else(|| Quota {
                current: levels
                    .first()
                    .and_then(|l| l.current.get(name))
                    .and_then(get)
                    .unwrap_or(0),
                max: None,
                cgroup: own_path.to_string(),
            })
        };
        let quota = DeviceQuota {
            hca_handle: pick(|v| v.hca_handle),
            hca_object: pick(|v| v.hca_object),
        };
        if quota.hca_handle.max.is_some() || quota.hca_object.max.is_some() {
            devices.insert(name.clone(), quota);
        }
    }
    (!devices.is_empty()).then(|| RdmaCgroup {
        path: own_path.to_string(),
        devices,
    })
}

/// `/proc/<pid>/cgroup` is a few short lines; the bound the other procfs
/// readers use. A larger file is refused rather than cut, since a cut path
/// would name some other cgroup.
const CGROUP_FILE_LIMIT: u64 = 64 * 1024;

/// `rdma.max` and `rdma.current` hold one short line per device (at most
/// 4,096 devices of about 60 bytes): a larger one is not the kernel's and is
/// refused (no quota shown) rather than cut, which could drop a limit.
const RDMA_FILE_LIMIT: u64 = 1 << 20;

/// `/proc/self/mountinfo` is a line per mount; a node with 10,000 mounts
/// gives about 2 MB. A larger one is refused and the default cgroup mount
/// (`/sys/fs/cgroup`) is used instead.
const MOUNTINFO_LIMIT: u64 = 8 << 20;

/// A kernel text file of at most `limit` bytes; `None` when it cannot be
/// read or is larger.
fn read_bounded(path: &Path, limit: u64) -> Option<String> {
    let bytes = read_limited(path, limit + 1).ok()?;
    if bytes.len() as u64 > limit {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The kernel refuses longer paths (`PATH_MAX`), so deeper levels cannot be
/// opened; skipping them without building their file names keeps the work
/// per level bounded however deep a (hostile) path is.
const PATH_MAX: usize = 4096;

/// `/a/b/c` → `/a/b/c`, `/a/b`, `/a` (the root has no `rdma.max`): slices of
/// `path`, each found by one backwards search from the previous one, so
/// walking a path costs its length once instead of once per level.
fn ancestry(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(path.trim_end_matches('/')), |p| {
        p.rfind('/')
            .map(|i| p.get(..i).unwrap_or_default().trim_end_matches('/'))
    })
    .take_while(|p| !p.is_empty())
}

/// Reads quotas for processes; one instance lives as long as the source, with
/// a per-round cache because the processes of one pod share their cgroups.
#[derive(Debug)]
pub(crate) struct CgroupRdmaReader {
    proc_root: PathBuf,
    /// Used when mountinfo cannot be read (and by tests with fake trees).
    fallback_unified: PathBuf,
    mounts: Option<CgroupMounts>,
    levels: HashMap<(Hierarchy, String), Option<Level>>,
}

impl CgroupRdmaReader {
    /// `proc_root` and `sys_root` are `/proc` and `/sys` in production.
    pub(crate) fn new(proc_root: &Path, sys_root: &Path) -> CgroupRdmaReader {
        CgroupRdmaReader {
            proc_root: proc_root.to_path_buf(),
            fallback_unified: sys_root.join("fs").join("cgroup"),
            mounts: None,
            levels: HashMap::new(),
        }
    }

    /// Forget the last round's file contents (usage changes all the time).
    pub(crate) fn begin_round(&mut self) {
        self.levels.clear();
    }

    /// The quotas binding process `pid`, if any limit is set on its path.
    pub(crate) fn for_process(&mut self, pid: u32) -> Option<RdmaCgroup> {
        let file = self.proc_root.join(pid.to_string()).join("cgroup");
        let bytes = read_limited(&file, CGROUP_FILE_LIMIT + 1).ok()?;
        if bytes.len() as u64 > CGROUP_FILE_LIMIT {
            return None;
        }
        let (hierarchy, path) = rdma_cgroup_path(&String::from_utf8_lossy(&bytes))?;
        let mut levels = Vec::new();
        for level_path in ancestry(&path).filter(|p| p.len() <= PATH_MAX) {
            if let Some(level) = self.level(hierarchy, level_path) {
                levels.push(level.clone());
            }
        }
        binding_quotas(&path, &levels)
    }

    fn level(&mut self, hierarchy: Hierarchy, path: &str) -> Option<&Level> {
        let key = (hierarchy, path.to_string());
        if !self.levels.contains_key(&key) {
            let level = self.read_level(hierarchy, path);
            self.levels.insert(key.clone(), level);
        }
        self.levels.get(&key).and_then(Option::as_ref)
    }

    fn read_level(&mut self, hierarchy: Hierarchy, path: &str) -> Option<Level> {
        let mounts = self.mounts.get_or_insert_with(|| {
            let mountinfo = self.proc_root.join("self").join("mountinfo");
            let mut m = read_bounded(&mountinfo, MOUNTINFO_LIMIT)
                .map(|t| parse_cgroup_mounts(&t))
                .unwrap_or_default();
            if m.unified.is_none() {
                m.unified = Some(self.fallback_unified.clone());
            }
            m
        });
        let dir = mounts.of(hierarchy)?.join(path.trim_start_matches('/'));
        let max = read_bounded(&dir.join("rdma.max"), RDMA_FILE_LIMIT)?;
        let current = read_bounded(&dir.join("rdma.current"), RDMA_FILE_LIMIT).unwrap_or_default();
        Some(Level {
            path: path.to_string(),
            max: parse_rdma_file(&max),
            current: parse_rdma_file(&current),
        })
    }
}

#[cfg(test)]
#[path = "cgroup_rdma_tests.rs"]
mod tests;
