//! Checks of one restop `--json` run that need no reference: it exited 0,
//! did not panic, printed a document that follows the schema, and the document
//! is consistent with itself. For runs taken while the system changes, where
//! no `rdma` dump can be taken at the same moment.

use super::Run;
use super::failures::Failures;
use super::schema;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Records why `run` is not a successful `--json` run; returns its document
/// when there is one to look at.
pub fn json_run(f: &mut Failures, label: &str, run: &Run) -> Option<Value> {
    f.check(run.rc == Some(0), || format!("{label}: {}", run.outcome()));
    f.check(!run.panicked(), || {
        format!("{label}: restop panicked: {}", run.stderr.trim())
    });
    match run.parse() {
        Err(e) => {
            f.fail(format!("{label}: {e}"));
            None
        }
        Ok(doc) => {
            let mut schema_failures = Failures::default();
            schema::check(&doc, &mut schema_failures);
            f.absorb(&format!("{label}: "), schema_failures);
            Some(doc)
        }
    }
}

fn rows<'a>(doc: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    doc.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// What holds in any snapshot, however busy the system: usage and counts are
/// non-negative integers; every (pid, start_time) is listed once; each owner's
/// QP states add up to its QP count and name only listed devices; each ERROR
/// QP is listed once, and a process's ERROR QPs are as many as its ERR + SQE
/// QPs.
pub fn plausible(f: &mut Failures, label: &str, doc: &Value) {
    let devices: BTreeSet<&str> = rows(doc, "devices")
        .filter_map(|d| d["name"].as_str())
        .collect();
    for d in rows(doc, "devices") {
        for (kind, usage) in d["usage"].as_object().into_iter().flatten() {
            f.check(usage["current"].is_u64(), || {
                format!(
                    "{label}: {} usage.{kind}.current is {}",
                    d["name"], usage["current"]
                )
            });
        }
    }
    let mut seen = BTreeSet::new();
    let mut owners: Vec<(String, &Value)> = Vec::new();
    for p in rows(doc, "processes") {
        let key = (p["pid"].as_u64(), p["start_time"].as_u64());
        f.check(seen.insert(key), || {
            format!(
                "{label}: process pid {} start_time {} is listed twice",
                p["pid"], p["start_time"]
            )
        });
        owners.push((format!("process {} ({})", p["pid"], p["comm"]), p));
    }
    for k in rows(doc, "kernel") {
        owners.push((format!("kernel [{}]", k["name"]), k));
    }
    if let Some(u) = doc.get("unattributed") {
        owners.push(("unattributed".to_string(), u));
    }
    for (who, row) in &owners {
        f.check(row["mr_bytes"].is_u64(), || {
            format!("{label}: {who}: mr_bytes is {}", row["mr_bytes"])
        });
        let states: Option<u64> = row["qp_states"]
            .as_object()
            .map(|m| m.values().filter_map(Value::as_u64).sum());
        f.check(states == row["counts"]["qp"].as_u64(), || {
            format!(
                "{label}: {who}: qp_states {} do not add up to its qp count {}",
                row["qp_states"], row["counts"]["qp"]
            )
        });
        for dev in row["devices"].as_array().into_iter().flatten() {
            f.check(dev.as_str().is_some_and(|d| devices.contains(d)), || {
                format!("{label}: {who}: device {dev} is not among the devices {devices:?}")
            });
        }
    }
    let mut error_qps = BTreeSet::new();
    let mut errors_per_pid: BTreeMap<u64, u64> = BTreeMap::new();
    for q in rows(doc, "error_qps") {
        f.check(
            error_qps.insert((q["device"].to_string(), q["lqpn"].as_u64())),
            || {
                format!(
                    "{label}: error QP {} lqpn {} listed twice",
                    q["device"], q["lqpn"]
                )
            },
        );
        if let Some(pid) = q["pid"].as_u64() {
            *errors_per_pid.entry(pid).or_default() += 1;
        }
    }
    let pids: BTreeMap<u64, &Value> = rows(doc, "processes")
        .filter_map(|p| Some((p["pid"].as_u64()?, p)))
        .collect();
    for (pid, n) in &errors_per_pid {
        f.check(pids.contains_key(pid), || {
            format!("{label}: {n} error QP(s) of pid {pid}, which is not among the processes")
        });
    }
    for (pid, p) in &pids {
        let in_err = ["ERR", "SQE"]
            .iter()
            .filter_map(|s| p["qp_states"][s].as_u64())
            .sum::<u64>();
        let listed = errors_per_pid.get(pid).copied().unwrap_or(0);
        f.check(in_err == listed, || {
            format!(
                "{label}: process {pid} ({}): qp_states {} but {listed} error_qps with its pid",
                p["comm"], p["qp_states"]
            )
        });
    }
}
