//! Multi-threaded owners, the `--dev`/`--pid` filters, and device limits against `ibv_devinfo`.

use super::*;

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
