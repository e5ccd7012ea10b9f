//! The interactive view under tmux on live data.

use super::*;

/// (device, lqpn, owner pid) of every row of the ERROR-QP pane, and the rows
/// whose owner name is not the process's comm.
fn error_pane_qps(
    table: &crate::vm_support::screen::Table,
    tasks: &crate::vm_support::rdma::Tasks,
) -> (BTreeSet<crate::vm_support::rdma::ErrorQp>, Vec<String>) {
    let mut qps = BTreeSet::new();
    let mut misnamed = Vec::new();
    for row in &table.rows {
        let pid = row.get("PID").parse().ok();
        if let Some(comm) = pid.and_then(|p| tasks.comm(p))
            && row.get("OWNER") != comm
        {
            misnamed.push(format!("{:?} (comm {comm:?})", row.line));
        }
        qps.insert(crate::vm_support::rdma::ErrorQp {
            dev: row.get("DEVICE").to_string(),
            lqpn: row.get("LQPN").parse().unwrap_or(u64::MAX),
            pid,
        });
    }
    (qps, misnamed)
}

/// The DEVICE column of the devices pane.
pub(super) fn screen_devices(
    screen: &crate::vm_support::screen::Screen,
) -> Option<BTreeSet<String>> {
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
pub(super) fn check_quit(f: &mut Failures, label: &str, run: &crate::vm_support::phases::TuiRun) {
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
                                .objects_of(&crate::vm_support::rdma::Owner::Process(*pid), "qp")
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
                let rdma_row = |q: &crate::vm_support::rdma::ErrorQp| {
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

/// The device named by the device view's consumers title (`Consumers on rxe0 (3)`).
fn device_of_view(screen: &crate::vm_support::screen::Screen) -> Option<String> {
    let rest = screen.text.split("Consumers on ").nth(1)?;
    rest.split_whitespace().next().map(str::to_string)
}

#[test]
fn device_view_shows_rdmas_per_device_counts() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let tui = match &r.tui {
        Ok(tui) => tui,
        Err(e) => panic!(
            "the tui phase left no results: {e} (in {})",
            r.dir.display()
        ),
    };
    let (screen, rdma) = match &tui.device {
        Ok(pair) => pair,
        Err(e) => panic!("no device view was captured: {e} (in {})", r.dir.display()),
    };
    let label = "device view (Tab, Enter)";
    let Some(dev) = device_of_view(screen) else {
        panic!(
            "{label}: no 'Consumers on DEVICE' title:\n{}",
            screen.quoted()
        );
    };
    let Some(table) = screen.table("PID", &["NAME", "QP"]) else {
        panic!("{label}: no consumers table:\n{}", screen.quoted());
    };
    let mut f = Failures::default();
    // Two dumps around the capture: a count shown must be one of them.
    let (earlier, later) = (
        tui.after.expected_on(Some(&dev)),
        rdma.expected_on(Some(&dev)),
    );
    let mut compared = 0;
    for (pid, tally) in &later.processes {
        let Some(row) = table
            .rows
            .iter()
            .find(|row| row.get("PID") == pid.to_string())
        else {
            f.fail(format!(
                "{label}: no row for process {pid} on {dev}; screen:\n{}",
                screen.quoted()
            ));
            continue;
        };
        let shown = row.get("QP");
        let before = earlier.processes.get(pid).map_or(0, |t| t.count("qp"));
        f.check(
            shown == tally.count("qp").to_string() || shown == before.to_string(),
            || {
                format!(
                    "{label}: process {pid} on {dev}: QP {shown:?}, rdma {} (before {before}); row {:?}",
                    tally.count("qp"),
                    row.line
                )
            },
        );
        compared += 1;
    }
    // Per-device, not per-host: no process holding objects only elsewhere.
    for row in &table.rows {
        if let Ok(pid) = row.get("PID").parse::<u32>() {
            f.check(
                later.processes.contains_key(&pid) || earlier.processes.contains_key(&pid),
                || format!("{label}: process {pid} is listed on {dev} but holds nothing there"),
            );
        }
    }
    f.check(compared > 0, || {
        format!(
            "{label}: rdma lists no process on {dev}; screen:\n{}",
            screen.quoted()
        )
    });
    f.finish("device view");
}

#[test]
fn the_signal_dialog_ends_a_throwaway_workload_and_says_so() {
    let Some(c) = compared() else { return };
    let dir = c.results.dir.join("tui");
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("tui/{name}: {e} (in {})", dir.display()))
    };
    let pid = read("victim.pid").trim().to_string();
    let dialog = read("signal-dialog.txt");
    assert!(
        dialog.contains(&format!("pid {pid} ")) && dialog.contains("SIGTERM"),
        "the dialog (K) does not name the throwaway process {pid}:\n{dialog}"
    );
    let rc = read("victim.rc").trim().to_string();
    assert_ne!(
        rc, "alive",
        "process {pid} still ran 10 s after the signal was confirmed"
    );
    let sent = read("signal-sent.txt");
    assert!(
        sent.contains(&format!("sent to pid {pid}")),
        "the footer does not say the signal was sent:\n{sent}"
    );
}
