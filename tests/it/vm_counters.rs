//! restop's NIC counters against a real Linux RDMA stack (Soft-RoCE under
//! QEMU, tests/vm/scenarios/counters.sh): while RC traffic runs between two
//! ibv_rc_pingpong processes on rxe0, once it stopped, and around a peer
//! killed mid-transfer, every counter restop reports must lie between
//! `rdma -j statistic show` taken right before and right after it, sysfs
//! must agree, and rates must be positive under traffic and zero without.
//!
//! Skipped (with a notice) unless RESTOP_VM_TESTS=1; needs root. One boot
//! serves every test here. `RESTOP_VM_COUNTERS_RESULTS=DIR` checks an
//! earlier run's output folder instead of booting; `RESTOP_VM_COUNTERS_OUT=DIR`
//! chooses where a boot writes. See docs/testing.md and docs/counters.md.

use crate::vm_support::boot;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

type Counters = BTreeMap<String, u64>;
/// (device, port) → counters.
type PerPort = BTreeMap<(String, u64), Counters>;

struct Phase {
    before: PerPort,
    after: PerPort,
    sysfs_before: PerPort,
    sysfs_after: PerPort,
    json: Option<Value>,
    json_run: String,
}

pub(crate) struct CountersRun {
    pub(crate) dir: PathBuf,
    first: Phase,
    traffic: Phase,
    idle: Phase,
    fault: Phase,
    once: String,
    traffic_batch: Vec<Value>,
    fault_batch: Vec<Value>,
}

pub(crate) fn read(dir: &Path, name: &str) -> Result<String, String> {
    fs::read_to_string(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
}

/// `rdma -j statistic show`: one row per port, counters beside ifname/port.
fn rdma_stat(text: &str) -> Result<PerPort, String> {
    let rows: Vec<Value> = serde_json::from_str(text).map_err(|e| format!("{e}: {text}"))?;
    let mut out = PerPort::new();
    for row in rows {
        let dev = row["ifname"].as_str().ok_or("no ifname")?.to_string();
        let port = row["port"].as_u64().ok_or("no port")?;
        let counters = row
            .as_object()
            .ok_or("row is not an object")?
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
            .filter(|(k, _)| k != "port")
            .collect();
        out.insert((dev, port), counters);
    }
    Ok(out)
}

/// A `sysfs-*` folder: `<dev>/<port>/{hw_counters,counters}.tsv`.
fn sysfs(dir: &Path, file: &str) -> PerPort {
    let mut out = PerPort::new();
    let Ok(devs) = fs::read_dir(dir) else {
        return out;
    };
    for dev in devs.flatten() {
        let Ok(ports) = fs::read_dir(dev.path()) else {
            continue;
        };
        for port in ports.flatten() {
            let Ok(text) = fs::read_to_string(port.path().join(file)) else {
                continue;
            };
            let counters = text
                .lines()
                .filter_map(|l| {
                    let (k, v) = l.split_once('\t')?;
                    // hw_counters/lifespan is the refresh period (ms), not a counter.
                    (k != "lifespan").then_some(())?;
                    Some((k.to_string(), v.trim().parse().ok()?))
                })
                .collect();
            let key = (
                dev.file_name().to_string_lossy().into_owned(),
                port.file_name().to_string_lossy().parse().unwrap_or(0),
            );
            out.insert(key, counters);
        }
    }
    out
}

fn lines(text: &str) -> Result<Vec<Value>, String> {
    text.lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("not JSON ({e}): {l}")))
        .collect()
}

impl Phase {
    fn load(dir: &Path, name: &str) -> Result<Phase, String> {
        let d = dir.join(name);
        let json_run = format!(
            "rc {:?}, stderr {:?}",
            read(&d, "json.rc").unwrap_or_default().trim(),
            read(&d, "json.stderr").unwrap_or_default().trim()
        );
        Ok(Phase {
            before: rdma_stat(&read(&d, "stat-before.json")?)?,
            after: rdma_stat(&read(&d, "stat-after.json")?)?,
            sysfs_before: sysfs(&d.join("sysfs-before"), "hw_counters.tsv"),
            sysfs_after: sysfs(&d.join("sysfs-after"), "hw_counters.tsv"),
            json: read(&d, "json.stdout")
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok()),
            json_run,
        })
    }

    /// restop's ports: (device, port) → the port object.
    fn ports(&self) -> BTreeMap<(String, u64), Value> {
        ports_of(self.json.as_ref().unwrap_or(&Value::Null))
    }
}

pub(crate) fn ports_of(doc: &Value) -> BTreeMap<(String, u64), Value> {
    let mut out = BTreeMap::new();
    for d in doc["devices"].as_array().into_iter().flatten() {
        for p in d["ports"].as_array().into_iter().flatten() {
            let key = (
                d["name"].as_str().unwrap_or("?").to_string(),
                p["index"].as_u64().unwrap_or(0),
            );
            out.insert(key, p.clone());
        }
    }
    out
}

impl CountersRun {
    fn load(dir: &Path) -> Result<CountersRun, String> {
        if dir.join("restop.missing").exists() {
            return Err(format!("{}: the run had no restop binary", dir.display()));
        }
        Ok(CountersRun {
            dir: dir.to_path_buf(),
            first: Phase::load(dir, "first")?,
            traffic: Phase::load(dir, "traffic")?,
            idle: Phase::load(dir, "idle")?,
            fault: Phase::load(dir, "fault")?,
            once: read(dir, "traffic/once.stdout")?,
            traffic_batch: lines(&read(dir, "traffic/batch.stdout")?)?,
            fault_batch: lines(&read(dir, "fault/batch.stdout")?)?,
        })
    }

    pub(crate) fn context(&self) -> String {
        format!("results in {}", self.dir.display())
    }
}

pub(crate) fn run() -> Option<&'static CountersRun> {
    if !boot::enabled() {
        return None;
    }
    static RUN: OnceLock<Result<CountersRun, String>> = OnceLock::new();
    match RUN.get_or_init(|| boot::results_dir(&COUNTERS).and_then(|dir| CountersRun::load(&dir))) {
        Ok(run) => Some(run),
        Err(e) => panic!("{e}"),
    }
}

/// `scenarios/counters.sh`: ~190 s under TCG on a loaded machine.
const COUNTERS: boot::Scenario = boot::Scenario {
    script: "counters.sh",
    out_dir: "vm-counters",
    out_var: "RESTOP_VM_COUNTERS_OUT",
    results_var: "RESTOP_VM_COUNTERS_RESULTS",
    timeout_s: 600,
};

/// Every counter of every port in restop's document lies between `lo` and
/// `hi`, and restop reports exactly the names `hi` has.
fn between(
    what: &str,
    ports: &BTreeMap<(String, u64), Value>,
    key: &str,
    lo: &PerPort,
    hi: &PerPort,
    failures: &mut Vec<String>,
) {
    for ((dev, port), hi_counters) in hi {
        let Some(p) = ports.get(&(dev.clone(), *port)) else {
            failures.push(format!("{what}: restop has no {dev} port {port}"));
            continue;
        };
        let ours = p[key].as_object().cloned().unwrap_or_default();
        for (name, &high) in hi_counters {
            let low = lo
                .get(&(dev.clone(), *port))
                .and_then(|c| c.get(name))
                .copied()
                .unwrap_or(0);
            match ours.get(name).and_then(Value::as_u64) {
                Some(v) if low <= v && v <= high => {}
                Some(v) => failures.push(format!(
                    "{what}: {dev}/{port} {name}: restop {v}, reference before {low} after {high}"
                )),
                None => failures.push(format!("{what}: {dev}/{port} {name}: missing in restop")),
            }
        }
        for name in ours.keys() {
            if !hi_counters.contains_key(name) {
                failures.push(format!(
                    "{what}: {dev}/{port} {name}: restop reports a counter the reference has not"
                ));
            }
        }
    }
}

fn assert_none(failures: Vec<String>, ctx: &str) {
    assert!(
        failures.is_empty(),
        "{} failures ({ctx}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_counter_restop_reports_lies_between_rdma_statistic_before_and_after() {
    let Some(run) = run() else { return };
    let mut failures = Vec::new();
    for (name, phase) in [
        ("first", &run.first),
        ("traffic", &run.traffic),
        ("idle", &run.idle),
    ] {
        if phase.json.is_none() {
            failures.push(format!(
                "{name}: restop --json gave no document: {}",
                phase.json_run
            ));
            continue;
        }
        let ports = phase.ports();
        between(
            name,
            &ports,
            "counters",
            &phase.before,
            &phase.after,
            &mut failures,
        );
        for p in ports.values() {
            if p["counters_source"] != "netlink" {
                failures.push(format!(
                    "{name}: counters_source is {}",
                    p["counters_source"]
                ));
            }
        }
    }
    assert_none(failures, &run.context());
}

#[test]
fn sysfs_hw_counters_agree_with_restop() {
    let Some(run) = run() else { return };
    let mut failures = Vec::new();
    for (name, phase) in [("traffic", &run.traffic), ("idle", &run.idle)] {
        assert!(
            !phase.sysfs_after.is_empty(),
            "no sysfs hw_counters ({})",
            run.context()
        );
        between(
            name,
            &phase.ports(),
            "counters",
            &phase.sysfs_before,
            &phase.sysfs_after,
            &mut failures,
        );
    }
    assert_none(failures, &run.context());
}

#[test]
fn the_first_read_has_totals_and_no_rates() {
    let Some(run) = run() else { return };
    for ((dev, port), p) in run.first.ports() {
        assert!(
            p["rates"].is_null(),
            "{dev}/{port}: rates {} on a first read",
            p["rates"]
        );
        assert!(p["throughput"].is_null(), "{dev}/{port}");
        assert!(
            p["counters"].as_object().is_some_and(|c| !c.is_empty()),
            "{dev}/{port}: no totals ({})",
            run.context()
        );
    }
}

fn rate(p: &Value, name: &str) -> Option<f64> {
    p["rates"][name].as_f64()
}

#[test]
fn rates_are_positive_while_traffic_runs() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let ports = run.traffic.ports();
    let rxe0 = ports.get(&("rxe0".to_string(), 1)).expect("rxe0 port 1");
    for name in ["sent_pkts", "rcvd_pkts"] {
        let r = rate(rxe0, name);
        assert!(r.is_some_and(|r| r > 0.0), "rxe0 {name} rate {r:?} ({ctx})");
    }
    let t = &rxe0["throughput"];
    assert!(
        t["tx_packets_per_s"].as_f64().is_some_and(|v| v > 0.0),
        "{t} ({ctx})"
    );
    assert!(
        rxe0["rates_interval_s"].as_f64().is_some_and(|s| s >= 1.0),
        "{ctx}"
    );
    // --batch: every line after the first has rates, all positive.
    assert_eq!(run.traffic_batch.len(), 4, "{ctx}");
    for (i, line) in run.traffic_batch.iter().enumerate().skip(1) {
        let ports = ports_of(line);
        let p = ports.get(&("rxe0".to_string(), 1)).expect("rxe0");
        let r = rate(p, "sent_pkts");
        assert!(
            r.is_some_and(|r| r > 0.0),
            "batch line {}: {r:?} ({ctx})",
            i + 1
        );
    }
    assert!(run.once.contains("COUNTERS"), "{}", run.once);
    assert!(run.once.contains("\n  rxe0/1 ACTIVE  tx "), "{}", run.once);
}

#[test]
fn rates_are_zero_once_traffic_stopped() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let mut failures = Vec::new();
    for ((dev, port), p) in run.idle.ports() {
        let rates = p["rates"].as_object().cloned().unwrap_or_default();
        if rates.is_empty() {
            failures.push(format!("{dev}/{port}: no rates: {}", p["counter_notes"]));
        }
        for (name, r) in rates {
            if r.as_f64() != Some(0.0) {
                failures.push(format!("{dev}/{port} {name}: rate {r} while idle"));
            }
        }
        if p["health"].as_array().is_some_and(|h| !h.is_empty()) {
            failures.push(format!("{dev}/{port}: health {} while idle", p["health"]));
        }
    }
    assert_none(failures, &ctx);
}

/// Error counters rxe moves when a peer dies under an RC sender.
const RETRY_COUNTERS: &[&str] = &["retry_exceeded_err", "completer_retry_err"];

#[test]
fn a_peer_killed_mid_transfer_moves_error_counters_and_restop_shows_them() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let key = ("rxe0".to_string(), 1);
    let before = &run.fault.before[&key];
    let after = &run.fault.after[&key];
    let rose: Vec<&str> = RETRY_COUNTERS
        .iter()
        .copied()
        .filter(|n| after.get(*n) > before.get(*n))
        .collect();
    assert!(
        !rose.is_empty(),
        "no retry counter rose: {before:?} → {after:?} ({ctx})"
    );
    // The totals after the fault are rdma's.
    let ports = run.fault.ports();
    let p = ports.get(&key).expect("rxe0 port 1");
    for name in &rose {
        assert_eq!(
            p["counters"][*name].as_u64(),
            after.get(*name).copied(),
            "{name} ({ctx})"
        );
    }
    // restop --batch named them in a port's health on the tick they moved.
    let named: Vec<String> = run
        .fault_batch
        .iter()
        .flat_map(|line| {
            ports_of(line)
                .get(&key)
                .and_then(|p| p["health"].as_array().cloned())
                .unwrap_or_default()
        })
        .filter_map(|v| v.as_str().map(String::from))
        .collect();
    for name in &rose {
        assert!(
            named.iter().any(|n| n == name),
            "{name} rose but no batch line named it in health: {named:?} ({ctx})"
        );
    }
}
