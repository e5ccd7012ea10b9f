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

use std::collections::{BTreeMap, BTreeSet};
use vm_support::compare::{compare_kernel_and_unattributed, compare_processes, either};
use vm_support::failures::Failures;
use vm_support::rdma::{Expected, TYPES};
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

#[test]
fn per_process_counts_match_rdma_grouped_by_process() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    compare_processes(
        &mut f,
        &c.results.before.tasks,
        "",
        &c.restop,
        &c.before,
        &c.after,
    );
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
            compare_processes(
                &mut f,
                &c.results.before.tasks,
                prefix,
                &view,
                &before,
                &after,
            );
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
            compare_processes(
                &mut f,
                &c.results.before.tasks,
                &prefix,
                &view,
                &before,
                &after,
            );
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

/// The types whose device limit `ibv_devinfo -v` shows (`max_qp`, ...).
const LIMITED_TYPES: [&str; 5] = ["qp", "cq", "mr", "pd", "srq"];

#[test]
fn device_limits_match_ibv_devinfo() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let mut f = Failures::default();
    let devices: BTreeSet<&str> = r.links.iter().map(|l| l.dev.as_str()).collect();
    eprintln!("device limits, ibv_devinfo -v / restop usage.<type>.max:");
    for dev in &devices {
        let mut line = format!("  {dev}:");
        for kind in LIMITED_TYPES {
            let key = (dev.to_string(), kind.to_string());
            let limit = r.limits.get(&key);
            let max = c.restop.usage_max.get(&key);
            line.push_str(&format!(
                "  {kind} {} / {}",
                limit.map_or("?".to_string(), u64::to_string),
                max.map_or("null".to_string(), u64::to_string)
            ));
            f.check(limit.is_some(), || {
                format!("ibv_devinfo -v shows no max_{kind} for {dev} (see env/ibv_devinfo.txt)")
            });
        }
        eprintln!("{line}");
    }
    for (key, max) in &c.restop.usage_max {
        let (dev, kind) = key;
        match r.limits.get(key) {
            Some(limit) => {
                f.check(max == limit, || {
                    format!(
                        "{dev} usage.{kind}.max: restop {max}, ibv_devinfo -v max_{kind} {limit}"
                    )
                });
            }
            None if LIMITED_TYPES.contains(&kind.as_str()) => f.fail(format!(
                "{dev} usage.{kind}.max: restop {max}, ibv_devinfo -v shows none"
            )),
            None => eprintln!(
                "notice: restop reports {dev} usage.{kind}.max {max}; ibv_devinfo has no such limit"
            ),
        }
    }
    if c.restop.usage_max.is_empty() {
        eprintln!(
            "notice: every usage.<type>.max is null: restop reports no device limits, \
             nothing to compare with ibv_devinfo"
        );
    }
    f.finish("device limits");
}

#[test]
fn unprivileged_user_gets_the_same_counts_and_is_told_what_is_hidden() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let mut f = Failures::default();
    let mr_keys = ["mr.rkey", "mr.lkey"];
    // as root (the scenario's first run) nothing is hidden
    f.check(
        !c.restop
            .hidden_fields
            .iter()
            .any(|h| mr_keys.contains(&h.as_str())),
        || format!("as root: meta.hidden_fields {:?}", c.restop.hidden_fields),
    );
    f.check(!c.restop.warned("permission"), || {
        format!("as root: a permission warning: {:?}", c.restop.warnings)
    });

    let label = "as uid 1000: --json";
    eprintln!("{label} took {:?} s", r.user_json.seconds);
    if let Some(doc) = vm_support::checks::json_run(&mut f, label, &r.user_json) {
        let user = RestopView::from_json(&doc);
        for key in mr_keys {
            f.check(user.hidden_fields.iter().any(|h| h == key), || {
                format!(
                    "{label}: meta.hidden_fields {:?} lacks {key:?}",
                    user.hidden_fields
                )
            });
        }
        f.check(user.warned("permission"), || {
            format!(
                "{label}: no permission warning; warnings {:?}",
                user.warnings
            )
        });
        // the same counts as root's run...
        let root = &c.restop;
        f.check(user.usage == root.usage, || {
            format!("{label}: usage {:?}; as root {:?}", user.usage, root.usage)
        });
        let pids: BTreeSet<u32> = user
            .processes
            .keys()
            .chain(root.processes.keys())
            .copied()
            .collect();
        for pid in pids {
            let (u, ro) = (user.processes.get(&pid), root.processes.get(&pid));
            f.check(u.map(|p| &p.tally) == ro.map(|p| &p.tally), || {
                format!(
                    "{label}: process {pid}: {:?}; as root {:?}",
                    u.map(|p| &p.tally),
                    ro.map(|p| &p.tally)
                )
            });
        }
        f.check(user.kernel == root.kernel, || {
            format!(
                "{label}: kernel {:?}; as root {:?}",
                user.kernel, root.kernel
            )
        });
        f.check(user.unattributed == root.unattributed, || {
            format!(
                "{label}: unattributed {:?}; as root {:?}",
                user.unattributed, root.unattributed
            )
        });
        f.check(user.error_qps == root.error_qps, || {
            format!(
                "{label}: error_qps {:?}; as root {:?}",
                user.error_qps, root.error_qps
            )
        });
        // ...and as rdma's
        let prefix = format!("{label}: ");
        let tasks = &r.before.tasks;
        compare_processes(&mut f, tasks, &prefix, &user, &c.before, &c.after);
        compare_kernel_and_unattributed(&mut f, &prefix, &user, &c.before, &c.after);
    }

    let once = &r.user_once;
    let label = "as uid 1000: --once";
    f.check(once.rc == Some(0) && !once.panicked(), || {
        format!("{label}: {}", once.outcome())
    });
    f.check(once.stdout.to_lowercase().contains("hidden"), || {
        format!(
            "{label}: does not say what is hidden; stdout:\n{}",
            once.stdout
        )
    });
    for dev in ["rxe0", "rxe1"] {
        f.check(once.stdout.contains(dev), || {
            format!("{label}: does not mention {dev}; stdout:\n{}", once.stdout)
        });
    }
    f.finish("unprivileged user");
}

/// (device, lqpn, owner pid) of every row of the ERROR-QP pane, and the rows
/// whose owner name is not the process's comm.
fn error_pane_qps(
    table: &vm_support::screen::Table,
    tasks: &vm_support::rdma::Tasks,
) -> (BTreeSet<vm_support::rdma::ErrorQp>, Vec<String>) {
    let mut qps = BTreeSet::new();
    let mut misnamed = Vec::new();
    for row in &table.rows {
        let pid = row.get("PID").parse().ok();
        if let Some(comm) = pid.and_then(|p| tasks.comm(p))
            && row.get("OWNER") != comm
        {
            misnamed.push(format!("{:?} (comm {comm:?})", row.line));
        }
        qps.insert(vm_support::rdma::ErrorQp {
            dev: row.get("DEVICE").to_string(),
            lqpn: row.get("LQPN").parse().unwrap_or(u64::MAX),
            pid,
        });
    }
    (qps, misnamed)
}

/// The DEVICE column of the devices pane.
fn screen_devices(screen: &vm_support::screen::Screen) -> Option<BTreeSet<String>> {
    let table = screen.table("DEVICE", &["PORT", "QP"])?;
    Some(
        table
            .rows
            .iter()
            .map(|r| r.get("DEVICE").to_string())
            .collect(),
    )
}

/// restop ended with 0 after `q`, left the alternate screen, the terminal in
/// cooked mode, and did not panic.
fn check_quit(f: &mut Failures, label: &str, run: &vm_support::phases::TuiRun) {
    f.check(run.rc == Some(0), || {
        format!(
            "{label}: restop's exit status after q: {:?} (none: still running 20 s after q); \
             stderr: {:?}; screen:\n{}",
            run.rc,
            run.stderr.trim(),
            run.quit.quoted()
        )
    });
    f.check(!run.stderr.contains("panicked"), || {
        format!("{label}: restop panicked: {}", run.stderr.trim())
    });
    f.check(run.quit.alternate == Some(false), || {
        format!(
            "{label}: after q the pane is on the alternate screen: {:?}; screen:\n{}",
            run.quit.alternate,
            run.quit.quoted()
        )
    });
    f.check(run.cooked(), || {
        format!(
            "{label}: the terminal is not back in cooked mode (icanon, echo); stty -a:\n{}",
            run.stty_after.trim()
        )
    });
}

#[test]
fn interactive_view_shows_live_data_and_the_error_qps_then_quits_cleanly() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let tui = match &r.tui {
        Ok(tui) => tui,
        Err(e) => panic!(
            "the tui phase left no results: {e} (in {})",
            r.dir.display()
        ),
    };
    let mut f = Failures::default();

    let main = &tui.main;
    let label = "main screen";
    f.check(main.alternate == Some(true), || {
        format!(
            "{label}: not on the alternate screen ({:?})",
            main.alternate
        )
    });
    f.check(main.text.contains("LIVE"), || {
        format!("{label}: no LIVE badge:\n{}", main.quoted())
    });
    let want: BTreeSet<String> = r.links.iter().map(|l| l.dev.clone()).collect();
    let shown = screen_devices(main);
    f.check(shown.as_ref() == Some(&want), || {
        format!(
            "{label}: devices {shown:?}, rdma link show {want:?}; screen:\n{}",
            main.quoted()
        )
    });
    match main.table("PID", &["NAME", "QP", "ERR"]) {
        None => f.fail(format!("{label}: no consumers table:\n{}", main.quoted())),
        Some(table) => {
            let tasks = &r.before.tasks;
            for (pid, tally) in &c.after.processes {
                let Some(row) = table
                    .rows
                    .iter()
                    .find(|row| row.get("PID") == pid.to_string())
                else {
                    f.fail(format!(
                        "{label}: no row for process {pid} ({}); screen:\n{}",
                        tasks.comm(*pid).unwrap_or("?"),
                        main.quoted()
                    ));
                    continue;
                };
                let comm = tasks.comm(*pid).unwrap_or("?");
                f.check(row.get("NAME") == comm, || {
                    format!("{label}: process {pid}: NAME {:?}, comm {comm:?}", row.line)
                });
                let before_qps = c.before.processes.get(pid).map_or(0, |t| t.count("qp"));
                f.check(
                    row.get("QP") == tally.count("qp").to_string()
                        || row.get("QP") == before_qps.to_string(),
                    || {
                        format!(
                            "{label}: process {pid} ({comm}): QP {:?}, rdma {} ({})",
                            row.get("QP"),
                            tally.count("qp"),
                            c.after
                                .objects_of(&vm_support::rdma::Owner::Process(*pid), "qp")
                        )
                    },
                );
                let errors = c
                    .after
                    .error_qps
                    .iter()
                    .filter(|q| q.pid == Some(*pid))
                    .count();
                f.check(row.get("ERR") == errors.to_string(), || {
                    format!(
                        "{label}: process {pid} ({comm}): ERR {:?}, rdma {errors}; row {:?}",
                        row.get("ERR"),
                        row.line
                    )
                });
            }
        }
    }

    let errors = &tui.errors;
    let label = "ERROR-QP pane (e)";
    f.check(errors.alternate == Some(true), || {
        format!(
            "{label}: not on the alternate screen ({:?})",
            errors.alternate
        )
    });
    match errors.table("PID", &["OWNER", "DEVICE", "LQPN"]) {
        None => f.fail(format!("{label}: no ERROR-QP table:\n{}", errors.quoted())),
        Some(table) => {
            let (shown, misnamed) = error_pane_qps(&table, &tui.before.tasks);
            let title = format!("QPs in ERR/SQE ({})", table.rows.len());
            f.check(errors.text.contains(&title), || {
                format!(
                    "{label}: title does not say {title:?}:\n{}",
                    errors.quoted()
                )
            });
            f.check(misnamed.is_empty(), || {
                format!("{label}: owner is not the process's comm: {misnamed:?}")
            });
            let (before, after) = (tui.before.expected(), tui.after.expected());
            if shown != before.error_qps && shown != after.error_qps {
                let rdma = &after.error_qps;
                // rdma's row of a QP (right after), with how its owner was found
                let rdma_row = |q: &vm_support::rdma::ErrorQp| {
                    tui.after
                        .rows
                        .iter()
                        .find(|row| row.kind == "qp" && row.dev == q.dev && row.id == q.lqpn)
                        .map_or("not in rdma's dump".to_string(), |row| {
                            format!("{} [{}]", row.label(), tui.after.owner(row).1)
                        })
                };
                let missing: Vec<String> = rdma
                    .difference(&shown)
                    .map(|q| format!("pid {:?}: {}", q.pid, rdma_row(q)))
                    .collect();
                let extra: Vec<String> = shown
                    .difference(rdma)
                    .map(|q| format!("pid {:?} lqpn {}: rdma has {}", q.pid, q.lqpn, rdma_row(q)))
                    .collect();
                f.fail(format!(
                    "{label}: restop shows {} ERROR QPs, rdma (right after) {}: missing {missing:?}, \
                     not in rdma {extra:?}; screen:\n{}",
                    shown.len(),
                    rdma.len(),
                    errors.quoted()
                ));
            }
        }
    }
    check_quit(&mut f, "interactive view", &tui.run);
    f.finish("interactive view");
}

/// How many `--json` runs the churn phase makes (scenarios/main.sh).
const CHURN_JSON_RUNS: usize = 20;

#[test]
fn snapshots_under_churn_never_fail_and_stay_consistent() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let churn = match &r.churn {
        Ok(churn) => churn,
        Err(e) => panic!(
            "the churn phase left no results: {e} (in {})",
            r.dir.display()
        ),
    };
    let mut f = Failures::default();
    let seconds: Vec<String> = churn
        .json
        .iter()
        .map(|(_, run)| format!("{:.1}", run.seconds.unwrap_or(f64::NAN)))
        .collect();
    eprintln!(
        "churn: {:?}; {} short-lived processes started; --json took {} s",
        churn.stats,
        churn.flash_started,
        seconds.join(" ")
    );
    f.check(churn.json.len() == CHURN_JSON_RUNS, || {
        format!(
            "{} --json runs under churn, want {CHURN_JSON_RUNS}",
            churn.json.len()
        )
    });
    f.check(churn.once.len() == 3, || {
        format!("{} --once runs under churn, want 3", churn.once.len())
    });
    let stat = |k: &str| churn.stats.get(k).copied().unwrap_or(0);
    f.check(
        stat("rounds") > 0 && stat("qps_to_err") > 0 && stat("threads") > 0 && stat("contexts") > 1,
        || {
            format!(
                "the churn workload did not churn: {:?} (see procs/churn.log)",
                churn.stats
            )
        },
    );
    f.check(churn.flash_started > 0, || {
        "no short-lived process was started (churn/flash.log)".to_string()
    });
    let mut flash_seen: BTreeSet<u32> = BTreeSet::new();
    let empty = vm_support::rdma::Tally::default();
    for (name, run) in &churn.json {
        let label = format!("churn {name}");
        let Some(doc) = vm_support::checks::json_run(&mut f, &label, run) else {
            continue;
        };
        vm_support::checks::plausible(&mut f, &label, &doc);
        let view = RestopView::from_json(&doc);
        // the processes that do not churn keep their exact counts
        for (pid, after) in &c.after.processes {
            let owner = vm_support::rdma::Owner::Process(*pid);
            match view.processes.get(pid) {
                None => f.fail(format!("{label}: the steady process {pid} is missing")),
                Some(row) => vm_support::compare::compare_tally(
                    &mut f,
                    &c.after,
                    &owner,
                    &format!("{label}: steady process {pid}"),
                    &row.tally,
                    c.before.processes.get(pid).unwrap_or(&empty),
                    after,
                ),
            }
        }
        if let Some(pid) = churn.churn_pid {
            f.check(view.processes.contains_key(&pid), || {
                format!("{label}: the churn workload (pid {pid}, holding a context) is missing")
            });
        }
        flash_seen.extend(
            churn
                .flash_pids
                .iter()
                .filter(|p| view.processes.contains_key(p)),
        );
    }
    eprintln!(
        "churn: restop saw {} of the {} short-lived processes",
        flash_seen.len(),
        churn.flash_pids.len()
    );
    for (name, run) in &churn.once {
        let label = format!("churn {name}");
        f.check(run.rc == Some(0) && !run.panicked(), || {
            format!("{label}: {}", run.outcome())
        });
        f.check(run.stdout.contains("rxe0"), || {
            format!("{label}: does not mention rxe0; stdout:\n{}", run.stdout)
        });
    }
    f.finish("churn");
}

#[test]
fn a_device_deleted_while_restop_runs_is_gone_and_collection_continues() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let v = match &r.vanish {
        Ok(v) => v,
        Err(e) => panic!(
            "the vanish phase left no results: {e} (in {})",
            r.dir.display()
        ),
    };
    let mut f = Failures::default();
    f.check(v.delete_rc == Some(0), || {
        format!(
            "rdma link delete rxe1: exit status {:?} (124: still blocked after 60 s); stderr {:?}",
            v.delete_rc,
            v.delete_stderr.trim()
        )
    });
    let Some((del_start, del_end)) = v.delete_window else {
        panic!("no vanish/delete.uptime: the delete did not run");
    };
    let timeline: Vec<String> = v
        .json
        .iter()
        .map(|(name, run)| format!("{name} {:?}", run.window))
        .collect();
    eprintln!(
        "vanish: rdma link delete rxe1 from {del_start} to {del_end} s (uptime); runs: {}",
        timeline.join(", ")
    );
    let (before, after) = (v.before.expected(), v.after.expected());
    let (mut n_before, mut n_after) = (0, 0);
    for (name, run) in &v.json {
        let label = format!("vanish {name}");
        let Some(doc) = vm_support::checks::json_run(&mut f, &label, run) else {
            continue;
        };
        vm_support::checks::plausible(&mut f, &label, &doc);
        let view = RestopView::from_json(&doc);
        f.check(view.devices.iter().any(|d| d == "rxe0"), || {
            format!(
                "{label}: rxe0 is not collected any more: devices {:?}",
                view.devices
            )
        });
        let prefix = format!("{label}: ");
        match run.window {
            Some((_, end)) if end < del_start => {
                n_before += 1;
                f.check(view.devices == ["rxe0", "rxe1"], || {
                    format!("{label} (before the delete): devices {:?}", view.devices)
                });
                compare_processes(&mut f, &v.before.tasks, &prefix, &view, &before, &before);
            }
            Some((start, _)) if start > del_end => {
                n_after += 1;
                f.check(view.devices == ["rxe0"], || {
                    format!("{label} (after the delete): devices {:?}", view.devices)
                });
                let usage: Vec<_> = view
                    .usage
                    .iter()
                    .filter(|((d, _), _)| d != "rxe0")
                    .collect();
                f.check(usage.is_empty(), || format!("{label}: usage of {usage:?}"));
                for (key, n) in &v.after.summary {
                    either(
                        &mut f,
                        &format!("{label}: {} usage.{}.current", key.0, key.1),
                        &view.usage.get(key).copied(),
                        &Some(*n),
                        &Some(*n),
                        String::new,
                    );
                }
                compare_processes(&mut f, &v.after.tasks, &prefix, &view, &after, &after);
                compare_kernel_and_unattributed(&mut f, &prefix, &view, &after, &after);
                let stale: Vec<_> = view.error_qps.iter().filter(|q| q.dev != "rxe0").collect();
                f.check(stale.is_empty(), || format!("{label}: error QPs {stale:?}"));
            }
            _ => eprintln!(
                "{label} ran across the delete: devices {:?}, device_vanished warning: {}",
                view.devices,
                view.warned("device_vanished")
            ),
        }
    }
    f.check(n_before > 0 && n_after > 0, || {
        format!(
            "want --json runs before and after the delete ({del_start}..{del_end} s): {}",
            timeline.join(", ")
        )
    });

    let want_before: BTreeSet<String> = ["rxe0", "rxe1"].map(String::from).into();
    let shown = screen_devices(&v.tui_before);
    f.check(shown.as_ref() == Some(&want_before), || {
        format!(
            "interactive view before the delete: devices {shown:?}; screen:\n{}",
            v.tui_before.quoted()
        )
    });
    let shown = screen_devices(&v.tui_after);
    f.check(shown == Some(["rxe0".to_string()].into()), || {
        format!(
            "interactive view after the delete: devices {shown:?}, want only rxe0; screen:\n{}",
            v.tui_after.quoted()
        )
    });
    f.check(v.tui_after.alternate == Some(true), || {
        format!(
            "interactive view after the delete: no longer running (alternate screen {:?}); \
             stderr {:?}; screen:\n{}",
            v.tui_after.alternate,
            v.tui.stderr.trim(),
            v.tui_after.quoted()
        )
    });
    check_quit(&mut f, "interactive view across the delete", &v.tui);
    f.finish("device deleted while restop runs");
}

/// restop's quota for `resource` on `device` in a process's `rdma_cgroup`:
/// (cgroup, current, max, ratio).
fn restop_quota(
    rdma_cgroup: &serde_json::Value,
    device: &str,
    resource: &str,
) -> Option<(String, u64, Option<u64>, Option<f64>)> {
    let q = rdma_cgroup.get("devices")?.get(device)?.get(resource)?;
    Some((
        q.get("cgroup")?.as_str()?.to_string(),
        q.get("current")?.as_u64()?,
        q.get("max").and_then(serde_json::Value::as_u64),
        q.get("ratio").and_then(serde_json::Value::as_f64),
    ))
}

#[test]
fn cgroup_rdma_quotas_match_the_controller_files() {
    use vm_support::cgroup::{self, binding, describe};
    let Some(r) = results() else { return };
    let cg = match &r.cgroup {
        Ok(cg) => cg,
        Err(e) => panic!(
            "the cgroup phase left no results: {e} (in {}; see scenario.log)",
            r.dir.display()
        ),
    };
    let mut f = Failures::default();
    let pid = cg.workload.pid;
    eprintln!(
        "cgroup: workload pid {pid} in {:?}; files before restop: {}; after: {}; \
         restop --json {:?} s, --once {:?} s",
        cg.proc_cgroup.trim(),
        describe(&cg.before),
        describe(&cg.after),
        cg.json.seconds,
        cg.once.seconds
    );
    f.check(cg.proc_cgroup.lines().any(|l| l == "0::/pod1/c1"), || {
        format!(
            "the workload (pid {pid}) is not in /pod1/c1: /proc/{pid}/cgroup says {:?}",
            cg.proc_cgroup.trim()
        )
    });
    f.check(cg.once.rc == Some(0) && !cg.once.panicked(), || {
        format!("restop --once: {}", cg.once.outcome())
    });
    let doc = vm_support::checks::json_run(&mut f, "restop --json", &cg.json);
    let process = doc.as_ref().and_then(|d| {
        d["processes"]
            .as_array()?
            .iter()
            .find(|p| p["pid"].as_u64() == Some(u64::from(pid)))
    });
    let rdma_cgroup = process.map(|p| &p["rdma_cgroup"]);
    if doc.is_some() {
        f.check(rdma_cgroup.is_some(), || {
            format!("restop --json does not list the workload (pid {pid})")
        });
    }
    if let Some(rc) = rdma_cgroup {
        f.check(rc["path"] == cgroup::PATH[0], || {
            format!(
                "pid {pid}: rdma_cgroup.path: restop {}, /proc/{pid}/cgroup {:?}",
                rc["path"],
                cg.proc_cgroup.trim()
            )
        });
    }
    let warnings: Vec<&str> = doc
        .as_ref()
        .and_then(|d| d["meta"]["warnings"].as_array())
        .into_iter()
        .flatten()
        .filter(|w| w["kind"] == "limit")
        .filter_map(|w| w["message"].as_str())
        .collect();
    let once = &cg.once.stdout;
    let section: Vec<&str> = once
        .lines()
        .skip_while(|l| !l.starts_with("CGROUP RDMA QUOTAS"))
        .take_while(|l| !l.trim().is_empty())
        .collect();
    f.check(!section.is_empty(), || {
        format!("restop --once has no CGROUP RDMA QUOTAS section:\n{once}")
    });
    f.check(
        section.iter().any(|l| {
            l.trim_start().starts_with("under")
                && l.split(|c: char| !c.is_ascii_digit())
                    .any(|w| w == pid.to_string())
        }),
        || {
            format!(
                "restop --once: no quota lists pid {pid} under it:\n{}",
                section.join("\n")
            )
        },
    );
    let mut warned = 0;
    for resource in ["hca_handle", "hca_object"] {
        let before = binding(&cg.before, "rxe0", resource);
        let after = binding(&cg.after, "rxe0", resource);
        let files = || {
            format!(
                "the files: before {before:?}, after {after:?} ({})",
                describe(&cg.before)
            )
        };
        let Some(expected) = before.clone().or(after.clone()) else {
            f.fail(format!(
                "{resource} on rxe0: no rdma.max limit in the files, the phase set none; {}",
                describe(&cg.before)
            ));
            continue;
        };
        if let Some(rc) = rdma_cgroup {
            let got = restop_quota(rc, "rxe0", resource);
            let matches = |b: &Option<cgroup::Binding>| {
                b.as_ref().is_some_and(|b| {
                    got.as_ref().is_some_and(|(cgroup, current, max, _)| {
                        *cgroup == b.cgroup && *current == b.current && *max == Some(b.max)
                    })
                })
            };
            f.check(matches(&before) || matches(&after), || {
                format!(
                    "pid {pid}: {resource} on rxe0: restop (cgroup, current, max, ratio) {got:?}; {}",
                    files()
                )
            });
            if let Some((_, current, Some(max), ratio)) = got {
                let want = current as f64 / max as f64;
                f.check(ratio.is_some_and(|x| (x - want).abs() < 1e-9), || {
                    format!(
                        "pid {pid}: {resource} on rxe0: ratio {ratio:?}, {current}/{max} = {want}"
                    )
                });
            }
        }
        let head = format!(
            "{}: rxe0 {resource} {}/{} (",
            expected.cgroup, expected.current, expected.max
        );
        f.check(
            section.iter().any(|l| l.trim_start().starts_with(&head)),
            || {
                format!(
                    "restop --once: no quota line {head:?}...; {}; the section:\n{}",
                    files(),
                    section.join("\n")
                )
            },
        );
        // at or above the default warning threshold (80%): a `limit` warning
        if expected.current as f64 >= 0.8 * expected.max as f64 {
            warned += 1;
            let prefix = format!("cgroup {}: {resource} on rxe0 at ", expected.cgroup);
            let figures = format!("of rdma.max ({}/{}, ", expected.current, expected.max);
            let named = |m: &str| m.starts_with(&prefix) && m.contains(&figures);
            f.check(warnings.iter().any(|m| named(m)), || {
                format!(
                    "restop --json: no limit warning \"{prefix}... {figures}...\"; limit warnings {warnings:?}; {}",
                    files()
                )
            });
            f.check(
                once.lines()
                    .any(|l| l.contains(&prefix) && l.contains(&figures)),
                || format!("restop --once does not warn \"{prefix}... {figures}...\":\n{once}"),
            );
        }
    }
    f.check(warned > 0, || {
        format!(
            "no quota at 80% or more, the phase sets c1's hca_handle to its current use: {}",
            describe(&cg.before)
        )
    });
    f.finish("cgroup rdma quotas");
}

/// `name{device="d",type="t"} v` lines of an exposition, keyed by the two labels.
fn samples(text: &str, metric: &str, second_label: &str) -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    let prefix = format!("{metric}{{device=\"");
    for line in text.lines().filter(|l| l.starts_with(&prefix)) {
        let rest = &line[prefix.len()..];
        let Some((device, rest)) = rest.split_once('"') else {
            continue;
        };
        let label = format!(",{second_label}=\"");
        let Some(rest) = rest.strip_prefix(label.as_str()) else {
            continue;
        };
        let Some((value_of_label, rest)) = rest.split_once('"') else {
            continue;
        };
        let Some(value) = rest.trim_start_matches('}').trim().parse::<f64>().ok() else {
            continue;
        };
        out.insert((device.to_string(), value_of_label.to_string()), value);
    }
    out
}

#[test]
fn exporter_textfile_counts_match_rdma() {
    let Some(r) = results() else { return };
    let mut f = Failures::default();
    let run = vm_support::Run::load(&r.dir, "restop-export");
    f.check(run.rc == Some(0), || {
        format!(
            "restop export --textfile --once: exit {:?}, stderr {:?}",
            run.rc, run.stderr
        )
    });
    let text = std::fs::read_to_string(r.dir.join("restop.prom")).unwrap_or_default();
    f.check(text.contains("restop_up{source=\"live\"} 1"), || {
        "restop.prom: no restop_up{source=\"live\"} 1".to_string()
    });
    let resources = samples(&text, "restop_resources", "type");
    for ((device, t), before) in &r.before.summary {
        let after = r.after.summary.get(&(device.clone(), t.clone()));
        let ours = resources.get(&(device.clone(), t.clone())).copied();
        f.check(
            ours == Some(*before as f64) || ours.is_some_and(|v| Some(&(v as u64)) == after),
            || {
                format!(
                    "restop_resources{{device={device},type={t}}}: exported {ours:?}, \
                     rdma res show {before} before / {after:?} after"
                )
            },
        );
    }
    let exported_devices: BTreeSet<&str> = resources.keys().map(|(d, _)| d.as_str()).collect();
    let rdma_devices: BTreeSet<&str> = r.before.summary.keys().map(|(d, _)| d.as_str()).collect();
    f.check(exported_devices == rdma_devices, || {
        format!("exported devices {exported_devices:?}, rdma {rdma_devices:?}")
    });
    // QPs per device and state equal rdma's rows (before or after).
    let qps = samples(&text, "restop_queue_pairs", "state");
    for ((device, state), value) in &qps {
        let count = |snap: &vm_support::rdma::Snapshot| {
            snap.rows
                .iter()
                .filter(|row| {
                    row.kind == "qp"
                        && &row.dev == device
                        && row.state.as_deref() == Some(state.as_str())
                })
                .count() as f64
        };
        let (before, after) = (count(&r.before), count(&r.after));
        f.check(*value == before || *value == after, || {
            format!("restop_queue_pairs{{device={device},state={state}}}: exported {value}, rdma {before} before / {after} after")
        });
    }
    f.finish("exporter textfile vs rdma");
}
