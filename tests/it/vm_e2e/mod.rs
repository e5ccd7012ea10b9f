//! restop against a real Linux RDMA stack: Debian's kernel under QEMU with
//! Soft-RoCE (tests/vm/), real processes holding real QPs, CQs, MRs, PDs,
//! SRQs, contexts and rdma_cm ids, some QPs in ERR. restop's `--json` is
//! compared with what iproute2's `rdma` dumped right before and right after it
//! (a value must equal at least one of the two), and with what the workloads
//! say they created.
//!
//! Skipped (with a notice) unless RESTOP_VM_TESTS=1; needs root. One boot
//! serves every test here. See docs/testing.md.

use crate::vm_support::compare::{compare_kernel_and_unattributed, compare_processes, either};
use crate::vm_support::failures::Failures;
use crate::vm_support::rdma::{Expected, TYPES};
use crate::vm_support::restop::RestopView;
use crate::vm_support::{Results, results, schema};
use std::collections::{BTreeMap, BTreeSet};

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

mod cgroup;
mod churn;
mod exporter;
mod snapshot;
mod threads_filters_limits;
mod tui;
mod user;
mod vanish;
