//! Support for the real-kernel tests (tests/vm_e2e.rs): boot the VM once
//! (tests/vm/run-vm.sh + scenarios/main.sh), load what it recorded, and the
//! comparisons' building blocks.

pub mod boot;
pub mod cgroup;
pub mod checks;
pub mod compare;
pub mod failures;
pub mod phases;
pub mod rdma;
pub mod ready;
pub mod restop;
pub mod schema;
pub mod screen;

use cgroup::Cgroup;
use phases::{Churn, Tui, Vanish};
use rdma::Snapshot;
use ready::Ready;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One run of a restop command in the guest.
#[derive(Clone, Debug)]
pub struct Run {
    pub rc: Option<i32>,
    pub seconds: Option<f64>,
    /// Guest uptime (s) when it started and ended.
    pub window: Option<(f64, f64)>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Its stdout as JSON.
    pub fn parse(&self) -> Result<Value, String> {
        serde_json::from_str(&self.stdout).map_err(|e| {
            format!(
                "output is not JSON ({e}); exit status {:?}, stderr: {}",
                self.rc,
                self.stderr.trim()
            )
        })
    }

    /// Whether restop reported a panic (the Rust panic message).
    pub fn panicked(&self) -> bool {
        self.stdout.contains("panicked") || self.stderr.contains("panicked")
    }

    /// Exit status, seconds and stderr, for messages.
    pub fn outcome(&self) -> String {
        format!(
            "exit status {:?} after {:?} s; stderr: {:?}",
            self.rc,
            self.seconds,
            self.stderr.trim()
        )
    }

    pub fn load(dir: &Path, name: &str) -> Run {
        let read = |ext: &str| fs::read_to_string(dir.join(format!("{name}.{ext}")));
        Run {
            rc: read("rc").ok().and_then(|s| s.trim().parse().ok()),
            seconds: read("seconds").ok().and_then(|s| s.trim().parse().ok()),
            window: read("uptime").ok().and_then(|s| {
                let (a, b) = s.trim().split_once(' ')?;
                Some((a.parse().ok()?, b.parse().ok()?))
            }),
            stdout: read("stdout").unwrap_or_default(),
            stderr: read("stderr").unwrap_or_default(),
        }
    }

    /// Every run `PREFIX-*` in `dir` (by its `.stdout`), in name order.
    pub fn series(dir: &Path, prefix: &str) -> Vec<(String, Run)> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                let name = file.strip_suffix(".stdout")?;
                name.starts_with(&format!("{prefix}-"))
                    .then(|| name.to_string())
            })
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|n| {
                let run = Run::load(dir, &n);
                (n, run)
            })
            .collect()
    }
}

/// A port as `rdma -j link show` reported it.
#[derive(Clone, Debug)]
pub struct Link {
    pub dev: String,
    pub dev_index: u64,
    pub port: u64,
    pub state: String,
    pub phys_state: String,
    pub netdev: String,
}

/// Everything one boot recorded.
#[derive(Debug)]
pub struct Results {
    pub dir: PathBuf,
    pub before: Snapshot,
    pub after: Snapshot,
    pub json: Run,
    pub once: Run,
    /// `--json --dev rxe1` and `--json --pid <tid of a worker thread>`.
    pub json_dev_rxe1: Run,
    pub json_pid_thread: Run,
    /// `--json` and `--once` as an unprivileged user (uid 1000).
    pub user_json: Run,
    pub user_once: Run,
    /// The later phases, each loaded on its own so that one missing does not
    /// hide the others.
    pub tui: Result<Tui, String>,
    pub churn: Result<Churn, String>,
    pub vanish: Result<Vanish, String>,
    pub cgroup: Result<Cgroup, String>,
    pub ready: Vec<Ready>,
    pub links: Vec<Link>,
    /// (device, type) → the device limit `ibv_devinfo -v` printed.
    pub limits: BTreeMap<(String, String), u64>,
    /// `uname -r` and `uname -n` in the guest.
    pub kernel: String,
    pub hostname: String,
}

impl Results {
    pub fn load(dir: &Path) -> Result<Results, String> {
        if dir.join("restop.missing").exists() {
            return Err(format!("{}: the run had no restop binary", dir.display()));
        }
        let mut ready = Vec::new();
        let ready_dir = dir.join("ready");
        let entries =
            fs::read_dir(&ready_dir).map_err(|e| format!("{}: {e}", ready_dir.display()))?;
        for entry in entries.flatten() {
            ready.push(Ready::load(&entry.path())?);
        }
        ready.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Results {
            dir: dir.to_path_buf(),
            before: Snapshot::load(&dir.join("rdma-before"), &dir.join("tasks-before.tsv"))?,
            after: Snapshot::load(&dir.join("rdma-after"), &dir.join("tasks-after.tsv"))?,
            json: Run::load(dir, "restop-json"),
            once: Run::load(dir, "restop-once"),
            json_dev_rxe1: Run::load(dir, "restop-json-dev-rxe1"),
            json_pid_thread: Run::load(dir, "restop-json-pid-thread"),
            user_json: Run::load(dir, "restop-user-json"),
            user_once: Run::load(dir, "restop-user-once"),
            tui: Tui::load(&dir.join("tui")),
            churn: Churn::load(&dir.join("churn"), &dir.join("procs")),
            vanish: Vanish::load(&dir.join("vanish")),
            cgroup: Cgroup::load(&dir.join("cgroup")),
            ready,
            links: load_links(&dir.join("env/rdma-link.json"))?,
            limits: load_limits(&dir.join("env/ibv_devinfo.txt"))?,
            kernel: read_trimmed(&dir.join("env/kernel.txt")),
            hostname: read_trimmed(&dir.join("env/hostname.txt")),
        })
    }

    /// restop's `--json` output, parsed.
    pub fn restop_json(&self) -> Result<Value, String> {
        self.json.parse()
    }

    pub fn workload(&self, name: &str) -> Option<&Ready> {
        self.ready.iter().find(|r| r.name == name)
    }
}

fn read_trimmed(path: &Path) -> String {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn load_links(path: &Path) -> Result<Vec<Link>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let s = |l: &Value, k: &str| l.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let n = |l: &Value, k: &str| l.get(k).and_then(Value::as_u64).unwrap_or(u64::MAX);
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .map(|l| Link {
            dev: s(l, "ifname"),
            dev_index: n(l, "ifindex"),
            port: n(l, "port"),
            state: s(l, "state"),
            phys_state: s(l, "physical_state"),
            netdev: s(l, "netdev"),
        })
        .collect())
}

/// `max_qp:  1048560` etc. under each `hca_id:  rxe0` of `ibv_devinfo -v`.
fn load_limits(path: &Path) -> Result<BTreeMap<(String, String), u64>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut limits = BTreeMap::new();
    let mut dev = String::new();
    for line in text.lines() {
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        if key == "hca_id" {
            dev = value.to_string();
        } else if let Some(kind) = key.strip_prefix("max_")
            && ["qp", "cq", "mr", "pd", "srq"].contains(&kind)
            && let Ok(n) = value.parse()
        {
            limits.insert((dev.clone(), kind.to_string()), n);
        }
    }
    Ok(limits)
}

/// The results of the one VM boot this test binary makes, or `None` (after a
/// printed notice) when the real-kernel tests are not enabled.
///
/// `RESTOP_VM_TESTS=1` enables them. `RESTOP_VM_RESULTS=DIR` checks an earlier
/// run's output folder instead of booting; `RESTOP_VM_OUT=DIR` chooses where a
/// boot writes (default: `<target>/tmp/vm-e2e`).
pub fn results() -> Option<&'static Results> {
    if !boot::enabled() {
        return None;
    }
    static RESULTS: OnceLock<Result<Results, String>> = OnceLock::new();
    match RESULTS.get_or_init(|| boot::results_dir(&MAIN).and_then(|dir| Results::load(&dir))) {
        Ok(results) => Some(results),
        Err(e) => panic!("{e}"),
    }
}

/// `scenarios/main.sh`: ~2.5 min on an idle 2-core TCG host; the timeout leaves room for a
/// loaded one.
const MAIN: boot::Scenario = boot::Scenario {
    script: "main.sh",
    out_dir: "vm-e2e",
    out_var: "RESTOP_VM_OUT",
    results_var: "RESTOP_VM_RESULTS",
    timeout_s: 900,
};
