//! The keys of restop's `--json` document (schema_version 1): every key the
//! contract lists must be present (`null` where unknown), at every level.

use super::failures::Failures;
use super::rdma::TYPES;
use serde_json::Value;

const TOP: &[&str] = &[
    "schema_version",
    "meta",
    "devices",
    "processes",
    "kernel",
    "unattributed",
    "error_qps",
];
const META: &[&str] = &[
    "source",
    "restop_version",
    "host",
    "kernel",
    "collected_at",
    "collected_at_ms",
    "collect_ms",
    "netns_mode",
    "hidden_fields",
    "warnings",
];
const WARNING: &[&str] = &["kind", "message"];
const WARNING_KINDS: &[&str] = &[
    "permission",
    "dump_failed",
    "device_vanished",
    "netns",
    "unattributed",
    "procfs",
    "slow_dump",
    "limit",
    "other",
];
pub(crate) const DEVICE: &[&str] = &[
    "name",
    "index",
    "node_guid",
    "fw_version",
    "node_type",
    "protocol",
    "pci",
    "pf",
    "ports",
    "usage",
    "object_limits",
    "objects_collected_at_ms",
    "objects_collected_at_ms_by_type",
    "object_errors",
];
pub(crate) const PORT: &[&str] = &[
    "index",
    "state",
    "phys_state",
    "netdev",
    "counters",
    "counters_source",
    "sysfs_counters",
    "counters_read_at_ms",
    "rates",
    "sysfs_rates",
    "rates_interval_s",
    "counter_resets",
    "link_rate",
    "link_rate_mbps",
    "throughput",
    "health",
    "counter_notes",
    "bound_counters",
    "bound_counters_note",
    "netdev_counters",
];
const USAGE: &[&str] = &["current", "max", "ratio"];
const OBJECT_ERROR: &[&str] = &["type", "message"];
const PROCESS: &[&str] = &[
    "pid",
    "start_time",
    "started_at",
    "comm",
    "name",
    "cmdline",
    "uid",
    "user",
    "container",
    "threads",
    "counts",
    "mr_bytes",
    "qp_states",
    "devices",
];
const CONTAINER: &[&str] = &["runtime", "id", "pod", "kubernetes"];
const THREAD: &[&str] = &["tid", "comm"];
const OWNER_ROW: &[&str] = &["counts", "mr_bytes", "qp_states", "devices"];
const ERROR_QP: &[&str] = &[
    "device", "port", "lqpn", "rqpn", "type", "state", "pid", "comm", "owner",
];

/// Checks the document against the schema; returns nothing, records failures.
pub fn check(doc: &Value, f: &mut Failures) {
    if !keys(doc, "", TOP, f) {
        return;
    }
    f.check(doc["schema_version"] == 1, || {
        format!("schema_version is {}, want 1", doc["schema_version"])
    });
    let meta = &doc["meta"];
    if keys(meta, "meta", META, f) {
        f.check(meta["source"] == "live", || {
            format!("meta.source is {}, want \"live\"", meta["source"])
        });
        f.check(
            meta["netns_mode"].is_null()
                || matches!(meta["netns_mode"].as_str(), Some("shared" | "exclusive")),
            || format!("meta.netns_mode is {}", meta["netns_mode"]),
        );
        f.check(meta["collected_at_ms"].is_u64(), || {
            format!(
                "meta.collected_at_ms is {}, want unix ms",
                meta["collected_at_ms"]
            )
        });
        f.check(meta["collect_ms"].is_number(), || {
            format!("meta.collect_ms is {}, want a number", meta["collect_ms"])
        });
        f.check(meta["hidden_fields"].is_array(), || {
            format!("meta.hidden_fields is {}", meta["hidden_fields"])
        });
        each(meta, "meta", "warnings", WARNING, f, |w, path, f| {
            f.check(
                w["kind"]
                    .as_str()
                    .is_some_and(|k| WARNING_KINDS.contains(&k)),
                || format!("{path}.kind is {}", w["kind"]),
            );
        });
    }
    each(doc, "", "devices", DEVICE, f, |d, path, f| {
        each(d, path, "ports", PORT, f, |_, _, _| {});
        each(d, path, "object_errors", OBJECT_ERROR, f, |_, _, _| {});
        // every type of the 6.1 kernel's summary is there, so none may be omitted
        for kind in TYPES {
            keys(&d["usage"][kind], &format!("{path}.usage.{kind}"), USAGE, f);
        }
    });
    each(doc, "", "processes", PROCESS, f, |p, path, f| {
        each(p, path, "threads", THREAD, f, |_, _, _| {});
        counts(&p["counts"], &format!("{path}.counts"), f);
        if !p["container"].is_null() {
            keys(&p["container"], &format!("{path}.container"), CONTAINER, f);
        }
        f.check(p["cmdline"].is_array(), || {
            format!("{path}.cmdline is {}", p["cmdline"])
        });
    });
    each(doc, "", "kernel", &["name"], f, |k, path, f| {
        keys(k, path, OWNER_ROW, f);
        counts(&k["counts"], &format!("{path}.counts"), f);
    });
    if keys(&doc["unattributed"], "unattributed", OWNER_ROW, f) {
        counts(&doc["unattributed"]["counts"], "unattributed.counts", f);
    }
    each(doc, "", "error_qps", ERROR_QP, f, |_, _, _| {});
}

fn keys(v: &Value, path: &str, want: &[&str], f: &mut Failures) -> bool {
    let Some(obj) = v.as_object() else {
        f.fail(format!("{} is {v}, want an object", display(path)));
        return false;
    };
    let missing: Vec<&str> = want
        .iter()
        .copied()
        .filter(|k| !obj.contains_key(*k))
        .collect();
    f.check(missing.is_empty(), || {
        format!("{} lacks key(s) {missing:?}", display(path))
    })
}

fn counts(v: &Value, path: &str, f: &mut Failures) {
    if keys(v, path, &TYPES, f) {
        for kind in TYPES {
            f.check(v[kind].is_u64(), || format!("{path}.{kind} is {}", v[kind]));
        }
    }
}

/// Checks `parent[key]` is an array whose items have `want`, then runs `more` on each.
fn each(
    parent: &Value,
    path: &str,
    key: &str,
    want: &[&str],
    f: &mut Failures,
    more: impl Fn(&Value, &str, &mut Failures),
) {
    let path = if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    };
    let Some(items) = parent[key].as_array() else {
        f.fail(format!("{path} is {}, want an array", parent[key]));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        if keys(item, &item_path, want, f) {
            more(item, &item_path, f);
        }
    }
}

fn display(path: &str) -> &str {
    if path.is_empty() {
        "the document"
    } else {
        path
    }
}
