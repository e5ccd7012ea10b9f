//! The netdev side of a RoCE port against the real kernel (the counters
//! boot, tests/vm/scenarios/counters.sh, its `netdev/` phase): rxe2 over
//! one end of a veth pair; restop's `netdev_counters` of rxe2 port 1 must
//! lie between `ethtool -S` and `ip -s -j link` taken right before and right
//! after it, and a flap (the veth peer set down and up under `restop
//! --batch`) must grow `carrier_changes` and show in `health`.
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
