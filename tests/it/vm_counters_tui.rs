//! More of the NIC-counter VM run (tests/vm/scenarios/counters.sh, one boot
//! shared with `vm_counters`): the interactive view under tmux shows rxe0's
//! throughput while traffic runs and opens its counters view with `c`; and
//! with QPs bound to counters by the scenario itself (as an operator would:
//! `rdma statistic qp set link rxe0/1 auto type on`; restop never binds),
//! `--json` shows exactly the counters `rdma -j statistic qp show` lists,
//! with their QPs and owners. In the fault phase, the real retransmit storm
//! and the ERR QP it leaves are entries of the view's problems strip, as
//! many as the header counts, and Enter on each opens its port's counters
//! and its owner's ERROR QPs.

use crate::vm_counters::{ports_of, read, run};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Non-zero `<number> <prefix>p/s` or `B/s` figures on a line.
fn nonzero_rates(line: &str) -> Vec<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[1].ends_with("p/s") || w[1].ends_with("B/s"))
        .filter_map(|w| w[0].parse::<f64>().ok())
        .filter(|v| *v > 0.0)
        .collect()
}

#[test]
fn the_tui_shows_throughput_during_traffic_and_opens_the_counters_view() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let main = read(&run.dir, "traffic/tui/main.txt").unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let header = main
        .lines()
        .find(|l| l.starts_with("DEVICE "))
        .unwrap_or_else(|| panic!("no devices pane:\n{main}"));
    assert!(header.contains(" TX") && header.contains(" RX"), "{header}");
    let rxe0 = main
        .lines()
        .find(|l| l.starts_with("rxe0 "))
        .unwrap_or_else(|| panic!("no rxe0 row:\n{main}"));
    assert!(
        !nonzero_rates(rxe0).is_empty(),
        "no non-zero throughput on rxe0 during traffic: {rxe0}\n{main}"
    );
    let counters =
        read(&run.dir, "traffic/tui/counters.txt").unwrap_or_else(|e| panic!("{e} ({ctx})"));
    assert!(counters.contains("Counters of rxe0 port 1"), "{counters}");
    let sent = counters
        .lines()
        .find(|l| l.trim_start().starts_with("sent_pkts "))
        .unwrap_or_else(|| panic!("no sent_pkts row:\n{counters}"));
    assert!(!sent.contains(" 0/s"), "sent_pkts not moving: {sent}");
}

/// One entry of `rdma -j statistic qp show`.
#[derive(Debug)]
struct RdmaCounter {
    pid: Option<u64>,
    qps: BTreeSet<u64>,
    counters: BTreeMap<String, u64>,
}

/// rxe0 port 1's entries by counter id (`cntn`).
fn rdma_qp_counters(text: &str) -> BTreeMap<u64, RdmaCounter> {
    let rows: Vec<Value> = serde_json::from_str(text).unwrap_or_default();
    let mut out = BTreeMap::new();
    for row in rows {
        if row["ifname"] != "rxe0" || row["port"] != 1 {
            continue;
        }
        let Some(id) = row["cntn"].as_u64() else {
            continue;
        };
        let meta = ["ifname", "port", "cntn", "qp-type", "pid", "comm", "lqpn"];
        let counters = row
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !meta.contains(&k.as_str()))
            .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
            .collect();
        let qps = row["lqpn"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        out.insert(
            id,
            RdmaCounter {
                pid: row["pid"].as_u64(),
                qps,
                counters,
            },
        );
    }
    out
}

/// `rdma -j res show qp`: lqpn → pid, on rxe0.
fn qp_pids(text: &str) -> BTreeMap<u64, u64> {
    let rows: Vec<Value> = serde_json::from_str(text).unwrap_or_default();
    rows.iter()
        .filter(|r| r["ifname"] == "rxe0")
        .filter_map(|r| Some((r["lqpn"].as_u64()?, r["pid"].as_u64()?)))
        .collect()
}

#[test]
fn json_shows_the_bound_counters_rdma_lists_with_their_qps_and_owners() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let file = |name: &str| read(&run.dir, name).unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let set = file("bound/set.out");
    let before = rdma_qp_counters(&file("bound/qp-before.json"));
    let after = rdma_qp_counters(&file("bound/qp-after.json"));
    let owners = qp_pids(&file("bound/res-qp.json"));
    let doc: Value = serde_json::from_str(&file("bound/json.stdout"))
        .unwrap_or_else(|e| panic!("restop --json: {e} ({ctx})"));
    let port = ports_of(&doc)
        .remove(&("rxe0".to_string(), 1))
        .unwrap_or_else(|| panic!("no rxe0 port 1 ({ctx})"));
    assert!(
        port["bound_counters_note"].is_null(),
        "restop could not read them: {} ({ctx})",
        port["bound_counters_note"]
    );
    let ours: BTreeMap<u64, &Value> = port["bound_counters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["counter_id"].as_u64()?, c)))
        .collect();
    let ids = |m: &BTreeMap<u64, RdmaCounter>| m.keys().copied().collect::<BTreeSet<_>>();
    // Counters living through both rdma reads must be restop's, and restop
    // lists none that neither read had.
    let stable: BTreeSet<u64> = ids(&before).intersection(&ids(&after)).copied().collect();
    let seen: BTreeSet<u64> = ids(&before).union(&ids(&after)).copied().collect();
    let mut failures = Vec::new();
    for id in ours.keys() {
        if !seen.contains(id) {
            failures.push(format!("restop lists counter {id}, rdma never did"));
        }
    }
    for id in &stable {
        let (lo, hi) = (&before[id], &after[id]);
        let Some(c) = ours.get(id) else {
            failures.push(format!("counter {id}: rdma lists it, restop does not"));
            continue;
        };
        let qps: BTreeSet<u64> = c["qps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|q| q["lqpn"].as_u64())
            .collect();
        if qps != hi.qps {
            failures.push(format!("counter {id}: QPs {qps:?}, rdma {:?}", hi.qps));
        }
        if c["pid"].as_u64() != hi.pid {
            failures.push(format!("counter {id}: pid {}, rdma {:?}", c["pid"], hi.pid));
        }
        for q in c["qps"].as_array().into_iter().flatten() {
            let lqpn = q["lqpn"].as_u64().unwrap_or(0);
            if let Some(pid) = owners.get(&lqpn)
                && q["owner"]["pid"].as_u64() != Some(*pid)
            {
                failures.push(format!("QP {lqpn}: owner {}, rdma pid {pid}", q["owner"]));
            }
        }
        for (name, high) in &hi.counters {
            let low = lo.counters.get(name).copied().unwrap_or(0);
            match c["counters"][name].as_u64() {
                Some(v) if low <= v && v <= *high => {}
                v => failures.push(format!(
                    "counter {id} {name}: restop {v:?}, rdma {low}..{high}"
                )),
            }
        }
    }
    eprintln!(
        "bound counters: rdma before {:?} after {:?}, restop {:?}; set: {}",
        ids(&before),
        ids(&after),
        ours.keys().collect::<Vec<_>>(),
        set.trim()
    );
    assert!(
        failures.is_empty(),
        "{} failures ({ctx}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The problems strip's entries on a screen: the lines that start with a
/// severity word (`crit`, `warn`, `note` on a narrow strip).
fn strip_entries(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .filter(|l| severity_of(l).is_some())
        .collect()
}

/// An entry's severity, as the reports name it.
fn severity_of(entry: &str) -> Option<&'static str> {
    match entry.split_whitespace().next()? {
        "critical" | "crit" => Some("critical"),
        "warning" | "warn" => Some("warning"),
        "notice" | "note" => Some("notice"),
        _ => None,
    }
}

/// `⚑ 1 critical · 2 warning (a)` in the header: severity → count.
fn header_counts(screen: &str) -> BTreeMap<String, usize> {
    let line = screen
        .lines()
        .take(3)
        .find(|l| l.contains('⚑'))
        .unwrap_or_else(|| panic!("no problem counts in the header:\n{screen}"));
    let counts = line.split('⚑').nth(1).unwrap_or_default();
    let counts = counts.split(" (a)").next().unwrap_or_default();
    counts
        .split('·')
        .filter_map(|part| {
            let mut words = part.split_whitespace();
            let n = words.next()?.parse().ok()?;
            Some((words.next()?.to_string(), n))
        })
        .collect()
}

/// The strip's entries by severity, and how many its last line says are
/// left out (`+N more (a)`).
fn strip_counts(screen: &str) -> (BTreeMap<String, usize>, usize) {
    let mut by = BTreeMap::new();
    let entries = strip_entries(screen);
    for e in &entries {
        *by.entry(severity_of(e).unwrap_or_default().to_string())
            .or_insert(0) += 1;
    }
    let more = entries
        .last()
        .and_then(|l| l.rsplit_once("  +"))
        .and_then(|(_, t)| t.strip_suffix(" more (a)"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    (by, more)
}

/// The header counts what the strip lists: by severity when every entry
/// is shown, in all when the last line says how many more `a` lists.
fn assert_header_counts_the_strip(screen: &str, ctx: &str) {
    let header = header_counts(screen);
    let (strip, more) = strip_counts(screen);
    if more == 0 {
        assert_eq!(header, strip, "header against strip ({ctx}):\n{screen}");
    } else {
        let total = |m: &BTreeMap<String, usize>| m.values().sum::<usize>();
        assert_eq!(total(&header), total(&strip) + more, "({ctx}):\n{screen}");
    }
}

/// A `strip_open` pick (`N: entry`): the entry.
fn picked(dir: &std::path::Path, name: &str, ctx: &str) -> String {
    let pick = read(dir, &format!("{name}.pick")).unwrap_or_default();
    let screen = read(dir, &format!("{name}.txt")).unwrap_or_default();
    let (_, entry) = pick
        .trim_end()
        .split_once(':')
        .unwrap_or_else(|| panic!("the strip never listed it ({ctx}):\n{screen}"));
    entry.to_string()
}

/// The batch lines' problems of `kind` on rxe0: (detail or pid, severity).
fn batch_problems(dir: &std::path::Path, kind: &str) -> BTreeSet<(String, String)> {
    read(dir, "fault/batch.stdout")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .flat_map(|d| d["problems"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["kind"] == kind)
        .map(|p| {
            let what = match &p["detail"] {
                Value::String(d) => d.clone(),
                _ => p["subject"]["pid"].to_string(),
            };
            (what, p["severity"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn the_strip_lists_the_real_storm_and_err_qp_and_enter_opens_them() {
    let Some(run) = run() else { return };
    let ctx = run.context();
    let fault = run.dir.join("fault");
    // The storm: `rxe0 port 1: <counter> keeps rising`, a counter the batch
    // run raised as nic_errors on rxe0, at a severity it gave it.
    let storm = picked(&fault, "tui/storm", &ctx);
    let screen = read(&fault, "tui/storm.txt").unwrap_or_default();
    let counter = storm
        .split("rxe0 port 1: ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or_default();
    let raised = batch_problems(&run.dir, "nic_errors");
    let severity = severity_of(&storm).unwrap_or_default();
    assert!(
        raised.contains(&(counter.to_string(), severity.to_string())),
        "strip entry {storm:?}: no nic_errors problem of {counter} at {severity} in the batch run: \
         {raised:?} ({ctx})"
    );
    assert_header_counts_the_strip(&screen, &ctx);
    let opened = read(&fault, "tui/storm-enter.txt").unwrap_or_default();
    assert!(
        opened.contains("Counters of rxe0 port 1"),
        "Enter on {storm:?} opened ({ctx}):\n{opened}"
    );
    // The ERR QP, in a view started after it broke.
    let text = read(&run.dir, "ready/pair.txt").unwrap_or_default();
    let pid: u64 = text
        .lines()
        .filter(|l| l.contains("mode=pair"))
        .flat_map(str::split_whitespace)
        .find_map(|w| w.strip_prefix("pid=")?.parse().ok())
        .unwrap_or_else(|| panic!("ready/pair.txt names no pair process: {text} ({ctx})"));
    let err = picked(&fault, "tui-err/err", &ctx);
    let screen = read(&fault, "tui-err/err.txt").unwrap_or_default();
    assert!(
        err.contains(&format!("(pid {pid}) in ERR on rxe0")),
        "{err:?} is not pid {pid}'s ERR QP ({ctx})"
    );
    let severity = severity_of(&err).unwrap_or_default();
    let mut raised = batch_problems(&run.dir, "error_qps");
    let json = run.dir.join("fault/json.stdout");
    let once: Value =
        serde_json::from_str(&read(&run.dir, "fault/json.stdout").unwrap_or_default())
            .unwrap_or_else(|e| panic!("{}: {e} ({ctx})", json.display()));
    for p in once["problems"].as_array().into_iter().flatten() {
        if p["kind"] == "error_qps" {
            let sev = p["severity"].as_str().unwrap_or_default();
            raised.insert((p["subject"]["pid"].to_string(), sev.to_string()));
        }
    }
    assert!(
        raised.contains(&(pid.to_string(), severity.to_string())),
        "strip entry {err:?}: --batch and --json never gave pid {pid}'s ERR QPs {severity}: \
         {raised:?} ({ctx})"
    );
    assert_header_counts_the_strip(&screen, &ctx);
    let opened = read(&fault, "tui-err/err-enter.txt").unwrap_or_default();
    let title = opened
        .lines()
        .find(|l| l.contains("QPs in ERR/SQE ("))
        .unwrap_or_else(|| panic!("Enter on {err:?} opened ({ctx}):\n{opened}"));
    assert!(
        title.contains(&format!("(pid {pid})")),
        "not pid {pid}'s ERROR QPs: {title} ({ctx})"
    );
}
