//! A device deleted while restop runs.

use super::tui::{check_quit, screen_devices};
use super::*;

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
        let Some(doc) = crate::vm_support::checks::json_run(&mut f, &label, run) else {
            continue;
        };
        crate::vm_support::checks::plausible(&mut f, &label, &doc);
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
