//! The unprivileged user's run against root's and rdma's.

use super::*;

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
    if let Some(doc) = crate::vm_support::checks::json_run(&mut f, label, &r.user_json) {
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
