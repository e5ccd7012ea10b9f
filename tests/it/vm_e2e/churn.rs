//! Snapshots while objects churn.

use super::*;

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
    let empty = crate::vm_support::rdma::Tally::default();
    for (name, run) in &churn.json {
        let label = format!("churn {name}");
        let Some(doc) = crate::vm_support::checks::json_run(&mut f, &label, run) else {
            continue;
        };
        crate::vm_support::checks::plausible(&mut f, &label, &doc);
        let view = RestopView::from_json(&doc);
        // the processes that do not churn keep their exact counts
        for (pid, after) in &c.after.processes {
            let owner = crate::vm_support::rdma::Owner::Process(*pid);
            match view.processes.get(pid) {
                None => f.fail(format!("{label}: the steady process {pid} is missing")),
                Some(row) => crate::vm_support::compare::compare_tally(
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
