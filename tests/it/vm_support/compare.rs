//! The comparisons of restop's view with rdma's: a value must equal rdma's
//! before or after restop ran; a failure names both and the objects involved.

use super::failures::Failures;
use super::rdma::{Expected, Owner, TYPES, Tally, Tasks};
use super::restop::RestopView;
use std::collections::BTreeSet;
use std::fmt::Debug;

/// Records a failure unless restop's value equals rdma's before or after.
pub fn either<T: PartialEq + Debug>(
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
pub fn compare_tally(
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

/// Every process restop or rdma (before/after) knows: one row each, same tallies.
pub fn compare_processes(
    f: &mut Failures,
    tasks: &Tasks,
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
pub fn compare_kernel_and_unattributed(
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
