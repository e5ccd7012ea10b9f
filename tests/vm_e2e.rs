//! restop against a real Linux RDMA stack: Debian's kernel under QEMU with
//! Soft-RoCE (tests/vm/), real processes holding real QPs, CQs, MRs, PDs,
//! SRQs, contexts and rdma_cm ids, some QPs in ERR. restop's `--json` is
//! compared with what iproute2's `rdma` dumped right before and right after it
//! (a value must equal at least one of the two), and with what the workloads
//! say they created.
//!
//! Skipped (with a notice) unless RESTOP_VM_TESTS=1; needs root. One boot
//! serves every test here. See docs/testing.md.

mod vm_support;

use std::collections::BTreeSet;
use std::fmt::Debug;
use vm_support::failures::Failures;
use vm_support::rdma::{Expected, Owner, TYPES, Tally};
use vm_support::restop::RestopView;
use vm_support::{Results, results, schema};

/// restop's view and rdma's expectations before and after it.
struct Compared<'a> {
    results: &'a Results,
    restop: RestopView,
    before: Expected,
    after: Expected,
}

fn compared() -> Option<Compared<'static>> {
    let results = results()?;
    let doc = match results.restop_json() {
        Ok(doc) => doc,
        Err(e) => panic!("{e} (results in {})", results.dir.display()),
    };
    Some(Compared {
        results,
        restop: RestopView::from_json(&doc),
        before: results.before.expected(),
        after: results.after.expected(),
    })
}

/// Records a failure unless restop's value equals rdma's before or after.
fn either<T: PartialEq + Debug>(
    f: &mut Failures,
    what: &str,
    restop: &T,
    before: &T,
    after: &T,
    detail: impl FnOnce() -> String,
) {
    if restop != before && restop != after {
        let rdma = if before == after {
            format!("{before:?}")
        } else {
            format!("{before:?} (before) / {after:?} (after)")
        };
        let detail = detail();
        let sep = if detail.is_empty() { "" } else { "; " };
        f.fail(format!(
            "{what}: restop {restop:?}, rdma {rdma}{sep}{detail}"
        ));
    }
}

/// Compares one owner row's counts, MR bytes, QP states and devices.
fn compare_tally(
    f: &mut Failures,
    explain: &Expected,
    owner: &Owner,
    label: &str,
    restop: &Tally,
    before: &Tally,
    after: &Tally,
) {
    for kind in TYPES {
        either(
            f,
            &format!("{label}: {kind} count"),
            &restop.count(kind),
            &before.count(kind),
            &after.count(kind),
            || format!("rdma's objects: {}", explain.objects_of(owner, kind)),
        );
    }
    either(
        f,
        &format!("{label}: mr_bytes"),
        &restop.mr_bytes,
        &before.mr_bytes,
        &after.mr_bytes,
        || format!("rdma's MRs: {}", explain.objects_of(owner, "mr")),
    );
    either(
        f,
        &format!("{label}: qp_states"),
        &restop.qp_states,
        &before.qp_states,
        &after.qp_states,
        || format!("rdma's QPs: {}", explain.objects_of(owner, "qp")),
    );
    either(
        f,
        &format!("{label}: devices"),
        &restop.devices,
        &before.devices,
        &after.devices,
        String::new,
    );
}

#[test]
fn restop_exits_zero_and_its_json_follows_the_schema() {
    let Some(r) = results() else { return };
    let mut f = Failures::default();
    eprintln!(
        "restop --json took {:?} s, --once {:?} s (in the TCG guest)",
        r.json.seconds, r.once.seconds
    );
    f.check(r.json.rc == Some(0), || {
        format!(
            "restop --json exit status {:?}; stderr: {}",
            r.json.rc,
            r.json.stderr.trim()
        )
    });
    f.check(r.once.rc == Some(0), || {
        format!(
            "restop --once exit status {:?}; stderr: {}",
            r.once.rc,
            r.once.stderr.trim()
        )
    });
    for dev in ["rxe0", "rxe1"] {
        f.check(r.once.stdout.contains(dev), || {
            format!(
                "restop --once does not mention {dev}; stdout:\n{}",
                r.once.stdout
            )
        });
    }
    match r.restop_json() {
        Err(e) => f.fail(e),
        Ok(doc) => {
            schema::check(&doc, &mut f);
            let meta = &doc["meta"];
            f.check(meta["kernel"] == r.kernel.as_str(), || {
                format!(
                    "meta.kernel: restop {}, uname -r {}",
                    meta["kernel"], r.kernel
                )
            });
            f.check(meta["host"] == r.hostname.as_str(), || {
                format!(
                    "meta.host: restop {}, uname -n {}",
                    meta["host"], r.hostname
                )
            });
            // the scenario runs as root: nothing is withheld
            f.check(
                meta["hidden_fields"].as_array().is_some_and(Vec::is_empty),
                || format!("meta.hidden_fields as root: {}", meta["hidden_fields"]),
            );
            for w in meta["warnings"].as_array().into_iter().flatten() {
                eprintln!("restop warning: {w}");
                let kind = w["kind"].as_str().unwrap_or("");
                f.check(!matches!(kind, "permission" | "dump_failed"), || {
                    format!("restop warned as root on a healthy system: {w}")
                });
            }
            for d in doc["devices"].as_array().into_iter().flatten() {
                let errors = &d["object_errors"];
                f.check(errors.as_array().is_none_or(Vec::is_empty), || {
                    format!("device {}: object_errors {errors}", d["name"])
                });
            }
        }
    }
    f.finish("restop's runs and JSON schema");
}

#[test]
fn devices_ports_and_usage_match_rdma() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let doc = r.restop_json().unwrap_or_default();
    let mut f = Failures::default();
    let rdma_devs: BTreeSet<&str> = r.links.iter().map(|l| l.dev.as_str()).collect();
    let restop_devs: BTreeSet<&str> = doc["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["name"].as_str())
        .collect();
    f.check(restop_devs == rdma_devs, || {
        format!("devices: restop {restop_devs:?}, rdma link show {rdma_devs:?}")
    });
    for link in &r.links {
        let Some(dev) = doc["devices"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| d["name"] == link.dev.as_str())
        else {
            continue;
        };
        f.check(dev["index"] == link.dev_index, || {
            format!(
                "{}: index: restop {}, rdma ifindex {}",
                link.dev, dev["index"], link.dev_index
            )
        });
        let port = dev["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["index"] == link.port);
        match port {
            None => f.fail(format!("{}: restop lists no port {}", link.dev, link.port)),
            Some(p) => {
                for (key, want) in [
                    ("netdev", &link.netdev),
                    ("state", &link.state),
                    ("phys_state", &link.phys_state),
                ] {
                    f.check(p[key] == want.as_str(), || {
                        format!(
                            "{} port {}: {key}: restop {}, rdma {want}",
                            link.dev, link.port, p[key]
                        )
                    });
                }
            }
        }
    }
    let keys: BTreeSet<&(String, String)> = r
        .before
        .summary
        .keys()
        .chain(r.after.summary.keys())
        .collect();
    for key in keys {
        let (dev, kind) = key;
        either(
            &mut f,
            &format!("{dev}: usage.{kind}.current"),
            &c.restop.usage.get(key).copied(),
            &r.before.summary.get(key).copied(),
            &r.after.summary.get(key).copied(),
            || "from `rdma -j res show`".to_string(),
        );
    }
    for (key, max) in &c.restop.usage_max {
        if let Some(limit) = r.limits.get(key) {
            f.check(max == limit, || {
                format!(
                    "{} usage.{}.max: restop {max}, ibv_devinfo -v {limit}",
                    key.0, key.1
                )
            });
        }
    }
    f.finish("devices, ports and usage");
}

#[test]
fn error_qps_match_rdma() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    let restop = &c.restop.error_qps;
    if restop != &c.before.error_qps && restop != &c.after.error_qps {
        let mut sets = vec![(&c.before.error_qps, "before")];
        if c.after.error_qps != c.before.error_qps {
            sets.push((&c.after.error_qps, "after"));
        }
        for (set, when) in sets {
            for missing in set.difference(restop) {
                let how = c
                    .results
                    .before
                    .rows
                    .iter()
                    .find(|r| r.kind == "qp" && r.dev == missing.dev && r.id == missing.lqpn);
                let how = how
                    .map(|row| c.results.before.owner(row).1)
                    .unwrap_or_default();
                f.fail(format!(
                    "ERR QP {} lqpn {} of {:?} (rdma {when}: {how}) is not in restop's error_qps \
                     as such; restop has {:?}",
                    missing.dev,
                    missing.lqpn,
                    missing.pid,
                    restop
                        .iter()
                        .find(|q| q.dev == missing.dev && q.lqpn == missing.lqpn)
                ));
            }
            for extra in restop.difference(set) {
                f.fail(format!(
                    "restop's error QP {} lqpn {} pid {:?} is not an ERR/SQE QP of that owner in rdma {when}",
                    extra.dev, extra.lqpn, extra.pid
                ));
            }
        }
    }
    for q in restop {
        let owner = c.restop.error_qp_owner.get(&(q.dev.clone(), q.lqpn));
        if let Some(process) = q.pid.and_then(|pid| c.restop.processes.get(&pid)) {
            f.check(owner == Some(&process.name), || {
                format!(
                    "error QP {} lqpn {}: owner {owner:?}, but restop's process {:?} is named {:?}",
                    q.dev, q.lqpn, q.pid, process.name
                )
            });
        }
    }
    f.finish("error QPs");
}

/// Every process restop or rdma (before/after) knows: one row each, same tallies.
fn compare_processes(
    f: &mut Failures,
    c: &Compared,
    prefix: &str,
    view: &RestopView,
    before: &Expected,
    after: &Expected,
) {
    f.check(view.duplicate_pids.is_empty(), || {
        format!(
            "{prefix}restop lists these pids more than once: {:?}",
            view.duplicate_pids
        )
    });
    let pids: BTreeSet<u32> = before
        .processes
        .keys()
        .chain(after.processes.keys())
        .chain(view.processes.keys())
        .copied()
        .collect();
    let empty = Tally::default();
    let tasks = &c.results.before.tasks;
    for pid in pids {
        let row = view.processes.get(&pid);
        let comm = row
            .map(|p| p.comm.clone())
            .or_else(|| tasks.comm(pid).map(str::to_string))
            .unwrap_or_default();
        let label = match tasks.tgid(pid) {
            Some(tgid) if tgid != pid => {
                format!("{prefix}process {pid} ({comm}; /proc says it is a thread of pid {tgid})")
            }
            _ => format!("{prefix}process {pid} ({comm})"),
        };
        let Some(row) = row else {
            f.fail(format!(
                "{label} owns objects in rdma but has no row in restop: {}",
                TYPES
                    .iter()
                    .map(|k| before.objects_of(&Owner::Process(pid), k))
                    .filter(|s| s != "none")
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            continue;
        };
        compare_tally(
            f,
            before,
            &Owner::Process(pid),
            &label,
            &row.tally,
            before.processes.get(&pid).unwrap_or(&empty),
            after.processes.get(&pid).unwrap_or(&empty),
        );
    }
}

/// Kernel owner rows and the unattributed row.
fn compare_kernel_and_unattributed(
    f: &mut Failures,
    prefix: &str,
    view: &RestopView,
    before: &Expected,
    after: &Expected,
) {
    let empty = Tally::default();
    let names: BTreeSet<&String> = before
        .kernel
        .keys()
        .chain(after.kernel.keys())
        .chain(view.kernel.keys())
        .collect();
    for name in names {
        compare_tally(
            f,
            before,
            &Owner::Kernel(name.clone()),
            &format!("{prefix}kernel [{name}]"),
            view.kernel.get(name).unwrap_or(&empty),
            before.kernel.get(name).unwrap_or(&empty),
            after.kernel.get(name).unwrap_or(&empty),
        );
    }
    compare_tally(
        f,
        before,
        &Owner::Unattributed,
        &format!("{prefix}unattributed"),
        &view.unattributed,
        &before.unattributed,
        &after.unattributed,
    );
}

#[test]
fn per_process_counts_match_rdma_grouped_by_process() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    compare_processes(&mut f, &c, "", &c.restop, &c.before, &c.after);
    f.finish("per-process counts");
}

#[test]
fn kernel_unattributed_and_totals_match_rdma() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    compare_kernel_and_unattributed(&mut f, "", &c.restop, &c.before, &c.after);
    for kind in TYPES {
        let rows = |e: &Expected| e.rows_per_type.get(kind).copied().unwrap_or(0);
        let summary = |s: &vm_support::rdma::Snapshot| {
            s.summary
                .iter()
                .filter(|((_, k), _)| k == kind)
                .map(|(_, n)| n)
                .sum::<u64>()
        };
        either(
            &mut f,
            &format!("{kind}: processes + kernel + unattributed"),
            &c.restop.total(kind),
            &rows(&c.before),
            &rows(&c.after),
            || {
                format!(
                    "rdma dump rows over all devices; rdma summary total {} (before) / {} (after)",
                    summary(&c.results.before),
                    summary(&c.results.after)
                )
            },
        );
    }
    f.finish("kernel rows, unattributed and totals");
}

#[test]
fn workload_facts_appear_in_restop() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    for w in &c.results.ready {
        let label = format!("workload {} (pid {})", w.name, w.pid);
        let Some(row) = c.restop.processes.get(&w.pid) else {
            f.fail(format!("{label}: no restop process row"));
            continue;
        };
        let qps = w.final_qps();
        for ((dev, qpn), line) in &qps {
            if line.get("state") == Some("ERR") {
                let want = vm_support::rdma::ErrorQp {
                    dev: dev.clone(),
                    lqpn: *qpn,
                    pid: Some(w.pid),
                };
                f.check(c.restop.error_qps.contains(&want), || {
                    format!(
                        "{label}: ERR QP {dev} {qpn} ({}) not in restop's error_qps with pid {}",
                        line.get("how").unwrap_or("?"),
                        w.pid
                    )
                });
            }
        }
        let states = qps
            .values()
            .fold(std::collections::BTreeMap::new(), |mut m, l| {
                *m.entry(l.get("state").unwrap_or("?").to_string())
                    .or_insert(0u64) += 1;
                m
            });
        f.check(row.tally.qp_states == states, || {
            format!(
                "{label}: qp_states: restop {:?}, ready file {states:?}",
                row.tally.qp_states
            )
        });
        let mr_lengths: Vec<u64> = w.all("mr").filter_map(|l| l.num("length")).collect();
        f.check(row.tally.count("mr") == mr_lengths.len() as u64, || {
            format!(
                "{label}: MRs: restop {}, ready file {mr_lengths:?}",
                row.tally.count("mr")
            )
        });
        f.check(row.tally.mr_bytes == mr_lengths.iter().sum::<u64>(), || {
            format!(
                "{label}: mr_bytes: restop {}, ready file MR lengths {mr_lengths:?} (sum {})",
                row.tally.mr_bytes,
                mr_lengths.iter().sum::<u64>()
            )
        });
        let cm_ids = w.all("cm_id").count() as u64;
        f.check(row.tally.count("cm_id") == cm_ids, || {
            format!(
                "{label}: cm_ids: restop {}, ready file {cm_ids}",
                row.tally.count("cm_id")
            )
        });
        let devs: BTreeSet<String> = w
            .lines
            .iter()
            .filter_map(|l| l.get("dev").map(str::to_string))
            .collect();
        f.check(row.tally.devices == devs, || {
            format!(
                "{label}: devices: restop {:?}, ready file {devs:?}",
                row.tally.devices
            )
        });
    }
    f.check(c.results.ready.len() == 4, || {
        format!("expected 4 ready files, found {}", c.results.ready.len())
    });
    f.finish("workload facts");
}

#[test]
fn multi_threaded_workload_is_one_process() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    let Some(w) = c.results.workload("threads") else {
        panic!(
            "no ready file of the threads workload in {}",
            c.results.dir.display()
        );
    };
    let tid_of = |name: &str| {
        w.all("thread")
            .find(|l| l.get("name") == Some(name))
            .and_then(|l| l.num("tid"))
            .and_then(|t| u32::try_from(t).ok())
    };
    let (Some(live), Some(gone)) = (tid_of("wl_live"), tid_of("wl_gone")) else {
        panic!("threads ready file lacks its thread lines: {w:?}");
    };
    for tid in [live, gone] {
        f.check(!c.restop.processes.contains_key(&tid), || {
            format!(
                "thread {tid} of pid {} has a process row of its own in restop",
                w.pid
            )
        });
    }
    match c.restop.processes.get(&w.pid) {
        None => f.fail(format!("threads workload pid {} has no restop row", w.pid)),
        Some(p) => {
            f.check(p.threads.iter().any(|(t, comm)| *t == live && comm == "wl_live"), || {
                format!(
                    "pid {}: restop threads {:?} lack the live creating thread {live} (wl_live)",
                    w.pid, p.threads
                )
            });
            // the objects of the exited thread (no pid in rdma) count here too
            let qps = w.final_qps().len() as u64;
            f.check(p.tally.count("qp") == qps, || {
                format!(
                    "pid {}: QPs: restop {}, ready file {qps} (of which by exited thread {gone}: {})",
                    w.pid,
                    p.tally.count("qp"),
                    w.all("qp").filter(|l| l.num("tid") == Some(u64::from(gone))).count()
                )
            });
            let tids = c.results.before.tasks.threads_of(w.pid);
            f.check(tids.contains(&live) && !tids.contains(&gone), || {
                format!(
                    "pid {} threads in /proc: {tids:?} (live {live}, gone {gone})",
                    w.pid
                )
            });
        }
    }
    f.finish("multi-threaded workload");
}

#[test]
fn filters_select_one_device_and_the_process_of_a_thread() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let mut f = Failures::default();

    let prefix = "--dev rxe1: ";
    match r.json_dev_rxe1.parse() {
        Err(e) => f.fail(format!("{prefix}{e}")),
        Ok(doc) => {
            f.check(r.json_dev_rxe1.rc == Some(0), || {
                format!("{prefix}exit status {:?}", r.json_dev_rxe1.rc)
            });
            let devices: Vec<&str> = doc["devices"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["name"].as_str())
                .collect();
            f.check(devices == ["rxe1"], || {
                format!("{prefix}devices {devices:?}")
            });
            let view = RestopView::from_json(&doc);
            let before = r.before.expected_on(Some("rxe1"));
            let after = r.after.expected_on(Some("rxe1"));
            compare_processes(&mut f, &c, prefix, &view, &before, &after);
            compare_kernel_and_unattributed(&mut f, prefix, &view, &before, &after);
            either(
                &mut f,
                &format!("{prefix}error_qps"),
                &view.error_qps,
                &before.error_qps,
                &after.error_qps,
                String::new,
            );
        }
    }

    let Some(w) = r.workload("threads") else {
        panic!(
            "no ready file of the threads workload in {}",
            r.dir.display()
        );
    };
    let live = w
        .all("thread")
        .find(|l| l.get("name") == Some("wl_live"))
        .and_then(|l| l.num("tid"));
    let prefix = format!(
        "--pid {} (thread wl_live of pid {}): ",
        live.unwrap_or(0),
        w.pid
    );
    match r.json_pid_thread.parse() {
        Err(e) => f.fail(format!("{prefix}{e}")),
        Ok(doc) => {
            f.check(r.json_pid_thread.rc == Some(0), || {
                format!("{prefix}exit status {:?}", r.json_pid_thread.rc)
            });
            let view = RestopView::from_json(&doc);
            let pids: Vec<u32> = view.processes.keys().copied().collect();
            f.check(pids == [w.pid], || {
                format!("{prefix}processes {pids:?}, want only [{}]", w.pid)
            });
            // only that process: no kernel rows, nothing unattributed
            let only = |e: &Expected| Expected {
                processes: e
                    .processes
                    .iter()
                    .filter(|(pid, _)| **pid == w.pid)
                    .map(|(pid, t)| (*pid, t.clone()))
                    .collect(),
                error_qps: e
                    .error_qps
                    .iter()
                    .filter(|q| q.pid == Some(w.pid))
                    .cloned()
                    .collect(),
                explain: e.explain.clone(),
                ..Expected::default()
            };
            let (before, after) = (only(&c.before), only(&c.after));
            compare_processes(&mut f, &c, &prefix, &view, &before, &after);
            compare_kernel_and_unattributed(&mut f, &prefix, &view, &before, &after);
            either(
                &mut f,
                &format!("{prefix}error_qps"),
                &view.error_qps,
                &before.error_qps,
                &after.error_qps,
                String::new,
            );
        }
    }
    f.finish("filters");
}
