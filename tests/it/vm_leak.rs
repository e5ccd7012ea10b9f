//! restop's trends against a real Linux RDMA stack (Soft-RoCE under QEMU,
//! tests/vm/): `restop --batch --json` watches a process that keeps creating
//! QPs and MRs, one that holds a steady pool, and a QP that goes to ERR after
//! restop started (tests/vm/scenarios/leak.sh, tests/vm/workloads/leak_workload.c).
//!
//! Skipped (with a notice) unless RESTOP_VM_TESTS=1; needs root. One boot
//! (about 45 s plus the minute restop watches) serves every test here.
//! `RESTOP_VM_LEAK_RESULTS=DIR` checks an earlier run's output folder instead
//! of booting; `RESTOP_VM_LEAK_OUT=DIR` chooses where a boot writes. See
//! docs/testing.md and docs/leaks.md.

use crate::vm_support::boot;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What the documentation promises: a verdict once a minute is observed.
const VERDICT_AFTER_S: f64 = 60.0;
/// Ticks the scenario asks for (`-n`).
const TICKS: usize = 32;

struct LeakRun {
    dir: PathBuf,
    rc: Option<i32>,
    stderr: String,
    lines: Vec<Value>,
    leaker: u64,
    steady: u64,
    broken: u64,
    broken_qpn: u64,
}

impl LeakRun {
    fn load(dir: &Path) -> Result<LeakRun, String> {
        if dir.join("restop.missing").exists() {
            return Err(format!("{}: the run had no restop binary", dir.display()));
        }
        let read = |name: &str| {
            fs::read_to_string(dir.join(name))
                .map_err(|e| format!("{}: {e}", dir.join(name).display()))
        };
        let stdout = read("restop-batch.stdout")?;
        let lines = stdout
            .lines()
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| format!("line {} is not JSON: {e}: {l}", i + 1))
            })
            .collect::<Result<Vec<Value>, String>>()?;
        let field = |file: &str, key: &str| -> Result<u64, String> {
            let text = read(&format!("ready/{file}.txt"))?;
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{key}=")))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("ready/{file}.txt has no {key}=: {text}"))
        };
        Ok(LeakRun {
            dir: dir.to_path_buf(),
            rc: read("restop-batch.rc")
                .ok()
                .and_then(|s| s.trim().parse().ok()),
            stderr: read("restop-batch.stderr").unwrap_or_default(),
            lines,
            leaker: field("leaker", "pid")?,
            steady: field("steady", "pid")?,
            broken: field("broken", "pid")?,
            broken_qpn: field("broken", "qpn")?,
        })
    }

    /// The `trends.owners[]` entry of process `pid` on each line.
    fn owner_on(&self, line: &Value, pid: u64) -> Option<Value> {
        line["trends"]["owners"]
            .as_array()?
            .iter()
            .find(|o| o["kind"] == "process" && o["pid"] == pid)
            .cloned()
    }

    fn context(&self) -> String {
        format!("results in {}", self.dir.display())
    }
}

fn run() -> Option<&'static LeakRun> {
    if !boot::enabled() {
        return None;
    }
    static RUN: OnceLock<Result<LeakRun, String>> = OnceLock::new();
    match RUN.get_or_init(|| boot::results_dir(&LEAK).and_then(|dir| LeakRun::load(&dir))) {
        Ok(run) => Some(run),
        Err(e) => panic!("{e}"),
    }
}

/// `scenarios/leak.sh`: ~110 s on an idle machine.
const LEAK: boot::Scenario = boot::Scenario {
    script: "leak.sh",
    out_dir: "vm-leak",
    out_var: "RESTOP_VM_LEAK_OUT",
    results_var: "RESTOP_VM_LEAK_RESULTS",
    timeout_s: 600,
};

#[test]
fn batch_json_lines_carry_trends_on_every_tick() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    assert_eq!(
        run.rc,
        Some(0),
        "restop --batch failed: {} ({ctx})",
        run.stderr
    );
    assert_eq!(run.lines.len(), TICKS, "{ctx}");
    let mut covered = -1.0;
    for (i, line) in run.lines.iter().enumerate() {
        assert_eq!(line["meta"]["source"], "live", "line {}", i + 1);
        let trends = &line["trends"];
        for key in [
            "window_s",
            "retention_s",
            "covered_s",
            "owners",
            "error_qps",
            "warnings",
        ] {
            assert!(
                !trends[key].is_null(),
                "line {}: no trends.{key} ({ctx})",
                i + 1
            );
        }
        assert_eq!(trends["window_s"], 300.0);
        let c = trends["covered_s"].as_f64().unwrap();
        assert!(c > covered, "line {}: covered_s {c} after {covered}", i + 1);
        covered = c;
    }
    assert!(
        covered >= VERDICT_AFTER_S,
        "the run covered {covered} s, less than the minute a verdict needs ({ctx})"
    );
}

#[test]
fn a_workload_that_keeps_creating_qps_and_mrs_is_a_leak_suspect_after_a_minute() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let mut first_flagged = None;
    for (i, line) in run.lines.iter().enumerate() {
        let owner = run.owner_on(line, run.leaker).unwrap_or_else(|| {
            panic!(
                "line {}: no trend for the leaker pid {} ({ctx})",
                i + 1,
                run.leaker
            )
        });
        for t in ["qp", "mr"] {
            let trend = &owner["types"][t];
            let span = trend["span_s"].as_f64().unwrap_or(0.0);
            let suspect = trend["leak_suspect"] == true;
            // The documented rule: no verdict before a minute is observed,
            // and a steady climb is a suspect as soon as it is.
            assert_eq!(
                suspect,
                span >= VERDICT_AFTER_S,
                "line {}: {t} span {span} s, leak_suspect {suspect}: {trend} ({ctx})",
                i + 1
            );
            if suspect {
                let explanation = trend["explanation"].as_str().unwrap_or_default();
                let what = if t == "qp" { "QPs" } else { "MRs" };
                assert!(
                    explanation.starts_with('+')
                        && explanation.contains(&format!(" {what} in "))
                        && explanation.ends_with(", never decreased"),
                    "line {}: {explanation}",
                    i + 1
                );
                assert!(trend["rate_per_min"].as_f64().unwrap() > 0.0);
            }
        }
        if owner["leak_suspect"] == true && first_flagged.is_none() {
            first_flagged = Some(line["trends"]["covered_s"].as_f64().unwrap());
            let warned = line["trends"]["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["kind"] == "leak_suspect" && w["pid"] == run.leaker);
            assert!(warned, "line {}: no leak_suspect warning ({ctx})", i + 1);
        }
    }
    let at = first_flagged.unwrap_or_else(|| panic!("the leaker was never flagged ({ctx})"));
    // One tick of slack: the object dump of the minute's last tick.
    assert!(
        at <= VERDICT_AFTER_S + 4.0,
        "first flagged after {at} s of history ({ctx})"
    );
}

#[test]
fn a_steady_workload_is_never_a_leak_suspect() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let mut seen = 0;
    for (i, line) in run.lines.iter().enumerate() {
        if let Some(owner) = run.owner_on(line, run.steady) {
            seen += 1;
            assert_eq!(
                owner["leak_suspect"],
                false,
                "line {}: {owner} ({ctx})",
                i + 1
            );
        }
        for o in line["trends"]["owners"].as_array().unwrap() {
            if o["leak_suspect"] == true {
                assert_eq!(o["pid"], run.leaker, "line {}: {o} flagged ({ctx})", i + 1);
            }
        }
        for w in line["trends"]["warnings"].as_array().unwrap() {
            if w["kind"] == "leak_suspect" {
                assert_eq!(w["pid"], run.leaker, "line {}: {w} ({ctx})", i + 1);
            }
        }
    }
    assert_eq!(
        seen, TICKS,
        "the steady workload was not on every line ({ctx})"
    );
}

#[test]
fn an_err_qp_age_grows_across_ticks() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let mut sightings = Vec::new();
    for (i, line) in run.lines.iter().enumerate() {
        let Some(qp) = line["trends"]["error_qps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["lqpn"] == run.broken_qpn && q["pid"] == run.broken)
        else {
            assert!(
                sightings.is_empty(),
                "line {}: the ERR QP vanished ({ctx})",
                i + 1
            );
            continue;
        };
        assert_eq!(qp["state"], "ERR");
        assert_eq!(qp["device"], "rxe0");
        let now = line["meta"]["collected_at_ms"].as_u64().unwrap();
        let first_seen = qp["first_seen_ms"].as_u64().unwrap();
        let age = qp["age_s"].as_f64().unwrap();
        assert!(
            (age - (now - first_seen) as f64 / 1000.0).abs() < 1e-6,
            "line {}: age {age} s, first seen {first_seen}, now {now}",
            i + 1
        );
        assert_eq!(qp["lingering"], age >= 60.0);
        sightings.push((first_seen, age, qp["age_is_lower_bound"] == true));
    }
    assert!(
        sightings.len() >= 5,
        "the ERR QP was seen on {} lines ({ctx})",
        sightings.len()
    );
    assert!(
        sightings
            .windows(2)
            .all(|w| w[0].0 == w[1].0 && w[1].1 > w[0].1),
        "first sighting changed or the age did not grow: {sightings:?} ({ctx})"
    );
    assert_eq!(sightings[0].1, 0.0, "seen when it broke: {sightings:?}");
    assert!(
        !sightings[0].2,
        "it broke after restop started, so its age is exact ({ctx})"
    );
}

/// The problems list of every line: the leaker a `leak_suspect` problem from
/// its verdict on, the broken workload's lingering ERR QP an `error_qps` one,
/// and nothing about the steady workload.
#[test]
fn the_leaker_and_the_broken_qp_are_problems_and_the_steady_workload_never_is() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let mut leak_listed = false;
    let mut err_listed = false;
    for (i, line) in run.lines.iter().enumerate() {
        let problems = line["problems"].as_array().cloned().unwrap_or_default();
        let of = |pid: u64| {
            problems
                .iter()
                .filter(move |p| p["subject"]["pid"] == pid)
                .map(|p| p["kind"].as_str().unwrap_or_default().to_string())
        };
        let flagged = run
            .owner_on(line, run.leaker)
            .is_some_and(|o| o["leak_suspect"] == true);
        let leak_problem = of(run.leaker).any(|k| k == "leak_suspect");
        assert_eq!(
            leak_problem,
            flagged,
            "line {}: leak_suspect problem {leak_problem}, verdict {flagged}: {problems:?} ({ctx})",
            i + 1
        );
        leak_listed |= leak_problem;
        err_listed |= of(run.broken).any(|k| k == "error_qps");
        let steady: Vec<String> = of(run.steady).collect();
        assert!(
            steady.is_empty(),
            "line {}: the steady workload is a problem: {steady:?} ({ctx})",
            i + 1
        );
    }
    assert!(leak_listed, "the leaker was never a problem ({ctx})");
    assert!(
        err_listed,
        "the lingering ERR QP was never a problem ({ctx})"
    );
}
