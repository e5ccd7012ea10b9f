//! The netdev side of a RoCE port against the real kernel (the counters
//! boot, tests/vm/scenarios/counters.sh, its `netdev/` phase): rxe2 over
//! one end of a veth pair; restop's `netdev_counters` of rxe2 port 1 must
//! lie between `ethtool -S` and `ip -s -j link` taken right before and right
//! after it, and a flap (the veth peer set down and up under `restop
//! --batch`) must grow `carrier_changes` and show in `health`, and be the
//! `link_flap` problem of rxe2 port 1 in the batch lines' `problems` and in
//! `restop_problem` of an exporter writing its textfile every second, raised
//! on the read after the flap and cleared on the next read without one.
//!
//! Skipped unless RESTOP_VM_TESTS=1, as `vm_counters` (one boot for both).

use crate::vm_counters::{ports_of, read, run};
use serde_json::Value;
use std::collections::BTreeMap;

/// `ethtool -S` output: `     name: value` lines after `NIC statistics:`.
fn ethtool_s(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.trim().rsplit_once(':')?;
            Some((k.trim().to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// `ip -s -j link show DEV`: the sysfs statistics' names for what it prints.
fn ip_stats(text: &str) -> BTreeMap<String, u64> {
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let s = &doc[0]["stats64"];
    let mut out = BTreeMap::new();
    for (dir, key, name) in [
        ("rx", "bytes", "rx_bytes"),
        ("rx", "packets", "rx_packets"),
        ("rx", "errors", "rx_errors"),
        ("rx", "dropped", "rx_dropped"),
        ("tx", "bytes", "tx_bytes"),
        ("tx", "packets", "tx_packets"),
        ("tx", "errors", "tx_errors"),
        ("tx", "dropped", "tx_dropped"),
    ] {
        if let Some(v) = s[dir][key].as_u64() {
            out.insert(name.to_string(), v);
        }
    }
    out
}

fn rxe2(doc: &Value) -> Value {
    ports_of(doc)
        .remove(&("rxe2".to_string(), 1))
        .unwrap_or_else(|| panic!("no rxe2 port 1 in {doc}"))
}

fn phase(name: &str) -> Option<(std::path::PathBuf, String)> {
    let run = run()?;
    let setup = read(&run.dir, "netdev/setup.rc").unwrap_or_default();
    assert_eq!(
        setup.trim(),
        "0",
        "netdev set-up failed: {} ({})",
        read(&run.dir, "netdev/setup.out").unwrap_or_default(),
        run.context()
    );
    Some((run.dir.join("netdev"), format!("{name}: {}", run.context())))
}

#[test]
fn the_netdev_counters_lie_between_ethtool_and_ip_before_and_after() {
    let Some((dir, ctx)) = phase("json") else {
        return;
    };
    let text = read(&dir, "json.stdout").unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let port = rxe2(&doc);
    let n = &port["netdev_counters"];
    assert_eq!(n["name"], "rxv0", "{port} ({ctx})");
    let check = |what: &str,
                 restop: &Value,
                 before: BTreeMap<String, u64>,
                 after: BTreeMap<String, u64>| {
        assert!(!after.is_empty(), "{what}: nothing to compare ({ctx})");
        for (name, hi) in &after {
            let lo = before.get(name).copied().unwrap_or(0);
            let got = restop[name]
                .as_u64()
                .unwrap_or_else(|| panic!("{what}: restop has no {name}: {restop} ({ctx})"));
            assert!(
                lo <= got && got <= *hi,
                "{what} {name}: restop {got}, before {lo}, after {hi} ({ctx})"
            );
        }
    };
    let load = |f: &str| read(&dir, f).unwrap_or_else(|e| panic!("{e} ({ctx})"));
    check(
        "ethtool -S",
        &n["driver"],
        ethtool_s(&load("before-ethtool.txt")),
        ethtool_s(&load("after-ethtool.txt")),
    );
    check(
        "ip -s link",
        &n["statistics"],
        ip_stats(&load("before-ip.json")),
        ip_stats(&load("after-ip.json")),
    );
    let carrier: u64 = load("after-carrier").trim().parse().unwrap_or(0);
    assert_eq!(n["carrier_changes"].as_u64(), Some(carrier), "({ctx})");
}

#[test]
fn a_flap_grows_carrier_changes_and_restop_shows_it() {
    let Some((dir, ctx)) = phase("batch") else {
        return;
    };
    let text = read(&dir, "batch.stdout").unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l} ({ctx})")))
        .collect();
    let changes: Vec<u64> = lines
        .iter()
        .filter_map(|d| rxe2(d)["netdev_counters"]["carrier_changes"].as_u64())
        .collect();
    assert!(changes.len() >= 4, "{changes:?} ({ctx})");
    let before: u64 = read(&dir, "after-carrier")
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0);
    let after: u64 = read(&dir, "flapped-carrier")
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(
        after >= before + 2,
        "the flap did not move carrier_changes: {before} → {after} ({ctx})"
    );
    assert_eq!(changes.first().copied(), Some(before), "({ctx})");
    assert_eq!(changes.last().copied(), Some(after), "({ctx})");
    let flapped = lines.iter().any(|d| {
        rxe2(d)["netdev_counters"]["health"]["carrier_changes"]
            .as_u64()
            .is_some_and(|c| c > 0)
    });
    assert!(flapped, "no batch line shows the flap in health ({ctx})");
}

/// `link_flap` of rxe2 port 1 among a document's problems.
fn lists_the_flap(doc: &Value) -> bool {
    doc["problems"].as_array().into_iter().flatten().any(|p| {
        p["kind"] == "link_flap"
            && p["subject"]["device"] == "rxe2"
            && p["subject"]["port"] == 1
            && p["detail"] == "carrier_changes"
            && p["severity"] == "warning"
    })
}

/// `restop_problem{kind="link_flap",...,device="rxe2",port="1",...} 1`.
fn exports_the_flap(exposition: &str) -> bool {
    exposition.lines().any(|l| {
        l.starts_with("restop_problem{")
            && l.contains("kind=\"link_flap\"")
            && l.contains("device=\"rxe2\"")
            && l.contains("port=\"1\"")
            && l.ends_with(" 1")
    })
}

#[test]
fn the_flap_is_a_link_flap_problem_in_json_and_the_exporter_until_it_clears() {
    let Some((dir, ctx)) = phase("problems") else {
        return;
    };
    let text = read(&dir, "batch.stdout").unwrap_or_else(|e| panic!("{e} ({ctx})"));
    let raised: Vec<bool> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l} ({ctx})")))
        .map(|d: Value| lists_the_flap(&d))
        .collect();
    // Raised on the reads that saw carrier changes, cleared on the reads after.
    let first = raised
        .iter()
        .position(|r| *r)
        .unwrap_or_else(|| panic!("no batch line lists the flap: {text} ({ctx})"));
    assert!(first > 0, "raised on the first read: {raised:?} ({ctx})");
    assert_eq!(
        raised.last(),
        Some(&false),
        "never cleared: {raised:?} ({ctx})"
    );
    // The exporter's file, every half second from the flap on.
    let mut files: Vec<(u32, String)> = std::fs::read_dir(dir.join("export"))
        .unwrap_or_else(|e| panic!("export/: {e} ({ctx})"))
        .flatten()
        .filter_map(|e| {
            let n = e.path().file_stem()?.to_str()?.parse().ok()?;
            Some((n, std::fs::read_to_string(e.path()).ok()?))
        })
        .collect();
    files.sort();
    let exported: Vec<bool> = files.iter().map(|(_, t)| exports_the_flap(t)).collect();
    let stderr = read(&dir, "export.stderr").unwrap_or_default();
    assert!(
        exported.iter().any(|e| *e),
        "no restop_problem for the flap in {} files: {exported:?}; stderr {stderr} ({ctx})",
        files.len()
    );
    let last_raised = exported.iter().rposition(|e| *e).unwrap_or(0);
    assert!(
        last_raised + 1 < exported.len(),
        "the exporter never cleared it: {exported:?} ({ctx})"
    );
}
