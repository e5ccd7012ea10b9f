//! What the cgroup phase of scenarios/main.sh recorded (`cgroup/`): a workload
//! in cgroup v2 `/pod1/c1` under `rdma.max` quotas, the controller's files
//! around restop's runs, and the quota each resource is bound by according to
//! those files.

use super::Run;
use super::ready::Ready;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The cgroups of the phase, leaf first, as restop names them.
pub const PATH: [&str; 2] = ["/pod1/c1", "/pod1"];

/// One `rdma.max` or `rdma.current` file: (device, resource) → value, `None`
/// for `max` (no limit).
pub type RdmaFile = BTreeMap<(String, String), Option<u64>>;

/// `rdma.max` and `rdma.current` of one cgroup.
#[derive(Clone, Debug)]
pub struct CgroupFiles {
    pub cgroup: String,
    pub max: RdmaFile,
    pub current: RdmaFile,
}

/// The quota that binds a resource: the one with the least headroom on the path.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub cgroup: String,
    pub current: u64,
    pub max: u64,
}

/// `cgroup/`.
#[derive(Clone, Debug)]
pub struct Cgroup {
    pub json: Run,
    pub once: Run,
    /// The workload's ready file (its pid and what it created).
    pub workload: Ready,
    /// Its `/proc/PID/cgroup`.
    pub proc_cgroup: String,
    /// The files right before `--json` and right after `--once`, leaf first.
    pub before: Vec<CgroupFiles>,
    pub after: Vec<CgroupFiles>,
}

impl Cgroup {
    pub fn load(dir: &Path) -> Result<Cgroup, String> {
        if !dir.is_dir() {
            return Err(format!("{}: no such folder", dir.display()));
        }
        Ok(Cgroup {
            json: Run::load(dir, "json"),
            once: Run::load(dir, "once"),
            workload: Ready::load(&dir.join("ready.txt"))?,
            proc_cgroup: fs::read_to_string(dir.join("proc-cgroup.txt")).unwrap_or_default(),
            before: load_files(&dir.join("files-before"))?,
            after: load_files(&dir.join("files-after"))?,
        })
    }
}

fn load_files(dir: &Path) -> Result<Vec<CgroupFiles>, String> {
    PATH.iter()
        .map(|cgroup| {
            let stem = cgroup.trim_start_matches('/').replace('/', "-");
            let read = |ext: &str| {
                let path = dir.join(format!("{stem}.{ext}"));
                fs::read_to_string(&path)
                    .map(|text| parse(&text))
                    .map_err(|e| format!("{}: {e}", path.display()))
            };
            Ok(CgroupFiles {
                cgroup: cgroup.to_string(),
                max: read("max")?,
                current: read("current")?,
            })
        })
        .collect()
}

/// `rxe0 hca_handle=1 hca_object=max` lines.
fn parse(text: &str) -> RdmaFile {
    let mut values = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(device) = words.next() else { continue };
        for (resource, value) in words.filter_map(|w| w.split_once('=')) {
            values.insert(
                (device.to_string(), resource.to_string()),
                value.parse().ok(),
            );
        }
    }
    values
}

/// The quota binding `resource` on `device` along `files` (a cgroup and its
/// ancestors): of the cgroups with a numeric `max`, the one with the least
/// headroom (`max - current`), the leaf first on a tie.
pub fn binding(files: &[CgroupFiles], device: &str, resource: &str) -> Option<Binding> {
    let key = (device.to_string(), resource.to_string());
    files
        .iter()
        .filter_map(|f| {
            let max = (*f.max.get(&key)?)?;
            let current = f.current.get(&key).copied().flatten().unwrap_or(0);
            Some(Binding {
                cgroup: f.cgroup.clone(),
                current,
                max,
            })
        })
        .min_by_key(|b| b.max.saturating_sub(b.current))
}

/// The files as one line each, for messages.
pub fn describe(files: &[CgroupFiles]) -> String {
    files
        .iter()
        .map(|f| {
            let show = |file: &RdmaFile| {
                file.iter()
                    .map(|((d, r), v)| match v {
                        Some(n) => format!("{d} {r}={n}"),
                        None => format!("{d} {r}=max"),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "{}: rdma.max [{}] rdma.current [{}]",
                f.cgroup,
                show(&f.max),
                show(&f.current)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
