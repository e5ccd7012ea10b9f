//! Which devices the device pane shows first when not all of them fit: the
//! ones most in trouble (usage past the thresholds, counters that keep
//! rising, a port not ACTIVE), so a short terminal hides the healthy ones
//! and never the device at 96 %. When every device fits, the pane keeps
//! the PF-then-VF tree; when not, on a host of many devices, each PF stands
//! for its VFs in one row
//! (the fullest usage of them all, their moved counters and ERROR QPs, how
//! many are in trouble, the namespaces they live in) until `v` opens it, so
//! 16 PFs with 128 VFs are 16 rows. What counts as trouble is the model's
//! (`model::device::trouble`); this file only arranges the rows by it.

use crate::interactive::rows::devices::{DeviceRow, Fold, Tree};
use crate::model::PortState;
use crate::model::device::{self, TroubleSigns};
use crate::model::limits::{Level, Thresholds};
use std::collections::BTreeSet;

/// How much trouble a device row shows: a higher key is worse (the
/// model's reading, `model::device::trouble`, of what the row shows).
pub(crate) fn trouble(row: &DeviceRow, thresholds: &Thresholds) -> Trouble {
    let fullest = row
        .usage
        .iter()
        .filter_map(|(_, e)| e.as_ref().and_then(|e| e.ratio()))
        .fold(0.0_f64, f64::max);
    let traffic = row.traffic();
    let signs = TroubleSigns {
        fullest,
        counters_moved: !traffic.moved.is_empty(),
        counters_alerting: traffic.alerting,
        port_not_active: row
            .ports
            .first()
            .and_then(|p| p.state)
            .is_some_and(|s| s != PortState::Active),
        error_qps: row.error_qps,
    };
    device::trouble(&signs, thresholds)
}

/// The key [`trouble`] gives: level, fullest usage in ‰, ERROR QPs.
type Trouble = (Level, u64, u64);

/// No trouble at all.
const NONE: Trouble = (Level::Normal, 0, 0);

/// The rows in tree order when `room` holds them all; otherwise, below
/// [`FOLD_FROM`] devices, every device worst first. From there on each PF
/// with VFs is one row that stands for them all ([`fold`]) unless `open`
/// names it (`v`), and the rows go most troubled first (a PF by the worst
/// of its VFs; an opened PF's VFs under it, worst first; ties in tree
/// order). A row whose PF may no longer be the row above is named without
/// its tree mark.
pub(crate) fn arrange(
    tree: &[DeviceRow],
    room: usize,
    thresholds: &Thresholds,
    open: &BTreeSet<String>,
) -> Vec<DeviceRow> {
    if tree.len() <= room {
        return tree.to_vec();
    }
    if tree.len() < FOLD_FROM {
        return worst_first(tree, thresholds);
    }
    let mut groups: Vec<(Trouble, usize, Vec<DeviceRow>)> = Vec::new();
    for (i, (root, vfs)) in families(tree).into_iter().enumerate() {
        let mut rows = if vfs.is_empty() {
            let mut r = root.clone();
            r.tree = Tree::Root;
            vec![r]
        } else if open.contains(&root.name) {
            opened(root, &vfs, thresholds)
        } else {
            vec![fold(root, &vfs, thresholds)]
        };
        let worst = rows
            .iter()
            .map(|r| trouble(r, thresholds))
            .max()
            .unwrap_or(NONE);
        groups.push((worst, i, std::mem::take(&mut rows)));
    }
    groups.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    groups.into_iter().flat_map(|(_, _, rows)| rows).collect()
}

/// Hosts with fewer devices than this are listed device by device, worst
/// first, when they do not fit: a handful of rows shows every troubled
/// device by name and scrolling reaches the rest in a few steps. From here
/// on (a host of many VFs) each PF folds over its VFs.
pub(crate) const FOLD_FROM: usize = 16;

/// Every device on its own row, the most troubled first (ties in tree
/// order), named without tree marks.
fn worst_first(tree: &[DeviceRow], thresholds: &Thresholds) -> Vec<DeviceRow> {
    let mut rows: Vec<(usize, Trouble, DeviceRow)> = tree
        .iter()
        .enumerate()
        .map(|(i, r)| (i, trouble(r, thresholds), r.clone()))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    rows.into_iter()
        .map(|(_, _, mut r)| {
            r.tree = Tree::Root;
            r
        })
        .collect()
}

/// The tree cut into its families: each root with the VFs under it.
fn families(tree: &[DeviceRow]) -> Vec<(&DeviceRow, Vec<&DeviceRow>)> {
    let mut out: Vec<(&DeviceRow, Vec<&DeviceRow>)> = Vec::new();
    for row in tree {
        match (row.tree, out.last_mut()) {
            (Tree::Vf { .. }, Some((_, vfs))) => vfs.push(row),
            _ => out.push((row, Vec::new())),
        }
    }
    out
}

fn troubled(vfs: &[&DeviceRow], thresholds: &Thresholds) -> usize {
    vfs.iter()
        .filter(|v| trouble(v, thresholds).0 > Level::Normal)
        .count()
}

/// An opened PF: its row, then its VFs worst first.
fn opened(root: &DeviceRow, vfs: &[&DeviceRow], thresholds: &Thresholds) -> Vec<DeviceRow> {
    let mut pf = root.clone();
    pf.tree = Tree::Root;
    pf.fold = Some(Fold {
        vfs: vfs.len(),
        open: true,
        troubled: troubled(vfs, thresholds),
    });
    let mut under: Vec<(usize, Trouble, DeviceRow)> = vfs
        .iter()
        .enumerate()
        .map(|(i, v)| (i, trouble(v, thresholds), (*v).clone()))
        .collect();
    under.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let last = under.len().saturating_sub(1);
    let mut out = vec![pf];
    for (k, (_, _, mut r)) in under.into_iter().enumerate() {
        r.tree = Tree::Vf { last: k == last };
        out.push(r);
    }
    out
}

/// A PF's row standing for its VFs too: per type the fullest of them all,
/// the PF's own ports with the counters that moved on any of them, and how
/// many VFs are in trouble.
pub(crate) fn fold(root: &DeviceRow, vfs: &[&DeviceRow], thresholds: &Thresholds) -> DeviceRow {
    let mut row = root.clone();
    row.tree = Tree::Root;
    for (i, (_, entry)) in row.usage.iter_mut().enumerate() {
        let ratio = |e: &Option<crate::model::UsageEntry>| e.and_then(|e| e.ratio());
        for vf in vfs {
            let Some((_, theirs)) = vf.usage.get(i) else {
                continue;
            };
            if ratio(theirs).unwrap_or(-1.0) > ratio(entry).unwrap_or(-1.0) {
                *entry = *theirs;
            }
        }
    }
    if let Some(first) = row.ports.first_mut() {
        for vf in vfs {
            for p in &vf.ports {
                for m in &p.moved {
                    if !first.moved.contains(m) {
                        first.moved.push(m.clone());
                    }
                }
                for a in &p.alerting {
                    if !first.alerting.contains(a) {
                        first.alerting.push(a.clone());
                    }
                }
            }
        }
    }
    row.dump_errors += vfs.iter().map(|v| v.dump_errors).sum::<usize>();
    row.error_qps += vfs.iter().map(|v| v.error_qps).sum::<u64>();
    if row.netns.is_none() {
        row.netns = namespaces_of(vfs);
    }
    row.fold = Some(Fold {
        vfs: vfs.len(),
        open: false,
        troubled: troubled(vfs, thresholds),
    });
    row
}

/// The NETNS tag of a folded PF whose VFs live in other namespaces: the one
/// they share, else how many there are (`8 netns`); `None` when all are in
/// restop's own.
fn namespaces_of(vfs: &[&DeviceRow]) -> Option<String> {
    let tags: BTreeSet<&str> = vfs.iter().filter_map(|v| v.netns.as_deref()).collect();
    match tags.len() {
        0 => None,
        1 => tags.first().map(|t| t.to_string()),
        n => Some(format!("{n} netns")),
    }
}

/// `v` on `selected`: the PF it is or belongs to, opened if it was folded
/// and folded if it was open. `None` when the row is of no PF with VFs.
pub(crate) fn toggle(
    rows: &[DeviceRow],
    selected: usize,
    open: &mut BTreeSet<String>,
) -> Option<String> {
    let row = rows.get(selected)?;
    let pf = match (row.fold, row.tree) {
        (Some(_), _) => row.name.clone(),
        // A VF under an opened PF: the PF above it.
        (None, Tree::Vf { .. }) => rows[..selected]
            .iter()
            .rev()
            .find(|r| r.fold.is_some_and(|f| f.open))?
            .name
            .clone(),
        (None, Tree::Root) => return None,
    };
    if !open.remove(&pf) {
        open.insert(pf.clone());
    }
    Some(pf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ResourceType, UsageEntry};

    fn row(name: &str, used: u64, state: PortState) -> DeviceRow {
        let port = crate::model::Port {
            index: 1,
            state: Some(state),
            phys_state: None,
            netdev: None,
            netdev_index: None,
            counters: None,
        };
        DeviceRow {
            name: name.to_string(),
            tree: Tree::Root,
            ports: vec![crate::interactive::rows::devices::PortSummary::new(
                &port,
                name,
                &[],
            )],
            usage: vec![(
                ResourceType::Mr,
                Some(UsageEntry {
                    current: used,
                    max: Some(100),
                    max_source: None,
                }),
            )],
            dump_errors: 0,
            error_qps: 0,
            netns: None,
            fold: None,
        }
    }

    fn names(rows: &[DeviceRow]) -> Vec<&str> {
        rows.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn all_fit_keeps_the_tree() {
        let tree = [
            row("a", 1, PortState::Active),
            row("b", 96, PortState::Active),
        ];
        let mut tree = tree;
        tree[1].tree = Tree::Vf { last: true };
        let shown = arrange(&tree, 5, &Thresholds::default(), &BTreeSet::new());
        assert_eq!(names(&shown), ["a", "b"]);
        assert_eq!(shown[1].tree, Tree::Vf { last: true });
        assert!(shown.iter().all(|r| r.fold.is_none()));
    }

    #[test]
    fn not_all_fit_puts_the_fullest_and_the_down_first() {
        let tree = [
            row("a", 1, PortState::Active),
            row("b", 2, PortState::Down),
            row("c", 96, PortState::Active),
            row("d", 84, PortState::Active),
        ];
        let shown = arrange(&tree, 2, &Thresholds::default(), &BTreeSet::new());
        assert_eq!(names(&shown), ["c", "d", "b", "a"]);
        assert!(shown.iter().all(|r| r.tree == Tree::Root));
    }

    /// Two PFs with eight VFs each; `pf1`'s `v12` is at 96 %, `v11` at 5 %,
    /// `v10` at 4 %.
    fn two_families() -> Vec<DeviceRow> {
        let mut tree = Vec::new();
        for (pf, used) in [("pf0", [1, 2, 3]), ("pf1", [4, 5, 96])] {
            tree.push(row(pf, 1, PortState::Active));
            for k in 0..8 {
                let u = used.get(k).copied().unwrap_or(0);
                let mut vf = row(&format!("v{}{k}", &pf[2..]), u, PortState::Active);
                vf.tree = Tree::Vf { last: k == 7 };
                tree.push(vf);
            }
        }
        assert!(tree.len() >= FOLD_FROM);
        tree
    }

    #[test]
    fn not_all_fit_folds_each_pf_over_its_vfs_the_worst_family_first() {
        let shown = arrange(&two_families(), 4, &Thresholds::default(), &BTreeSet::new());
        assert_eq!(names(&shown), ["pf1", "pf0"]);
        let pf1 = &shown[0];
        let fold = pf1.fold.unwrap();
        assert_eq!((fold.vfs, fold.open, fold.troubled), (8, false, 1));
        // The folded row's MR gauge is its fullest VF's.
        assert_eq!(pf1.usage[0].1.unwrap().current, 96);
        assert_eq!(shown[1].usage[0].1.unwrap().current, 3);
    }

    #[test]
    fn an_opened_pf_shows_its_vfs_under_it_worst_first() {
        let tree = two_families();
        let mut open = BTreeSet::new();
        let folded = arrange(&tree, 4, &Thresholds::default(), &open);
        assert_eq!(toggle(&folded, 0, &mut open).as_deref(), Some("pf1"));
        let shown = arrange(&tree, 4, &Thresholds::default(), &open);
        assert_eq!(
            names(&shown),
            [
                "pf1", "v12", "v11", "v10", "v13", "v14", "v15", "v16", "v17", "pf0"
            ]
        );
        assert!(shown[0].fold.unwrap().open);
        assert_eq!(shown[0].usage[0].1.unwrap().current, 1, "its own usage");
        assert_eq!(shown[8].tree, Tree::Vf { last: true });
        // `v` on one of its VFs folds the PF again.
        assert_eq!(toggle(&shown, 2, &mut open).as_deref(), Some("pf1"));
        assert!(open.is_empty());
        // A device with no VFs has nothing to fold.
        let lone = [row("rxe0", 1, PortState::Active)];
        assert_eq!(toggle(&lone, 0, &mut open), None);
    }

    #[test]
    fn a_device_with_error_qps_comes_before_idle_ones() {
        let mut broken = row("c", 1, PortState::Active);
        broken.error_qps = 6;
        let tree = [
            row("a", 1, PortState::Active),
            row("b", 2, PortState::Active),
            broken,
            row("d", 96, PortState::Active),
        ];
        let shown = arrange(&tree, 2, &Thresholds::default(), &BTreeSet::new());
        assert_eq!(names(&shown), ["d", "c", "b", "a"]);
    }

    #[test]
    fn a_pf_whose_vf_has_error_qps_folds_before_idle_families() {
        let mut tree = two_families();
        // A lone device at 50 %: fuller than any of pf0's VFs, no trouble.
        tree.insert(0, row("pa", 50, PortState::Active));
        let order = |tree: &[DeviceRow]| {
            let shown = arrange(tree, 4, &Thresholds::default(), &BTreeSet::new());
            names(&shown)
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(order(&tree), ["pf1", "pa", "pf0"]);
        // pf0's v04 (idle) has broken QPs.
        tree[5].error_qps = 4;
        assert_eq!(order(&tree), ["pf1", "pf0", "pa"]);
        let shown = arrange(&tree, 4, &Thresholds::default(), &BTreeSet::new());
        assert_eq!(shown[1].error_qps, 4);
        assert_eq!(shown[1].fold.unwrap().troubled, 1);
    }

    #[test]
    fn a_folded_pf_names_the_namespaces_of_its_vfs() {
        let mut tree = two_families();
        let folded = |tree: &[DeviceRow]| {
            arrange(tree, 4, &Thresholds::default(), &BTreeSet::new())
                .into_iter()
                .map(|r| (r.name.clone(), r.netns.clone()))
                .collect::<Vec<_>>()
        };
        assert!(folded(&tree).iter().all(|(_, ns)| ns.is_none()));
        // pf0's VFs all in one pod's namespace, pf1's in three.
        for vf in &mut tree[1..9] {
            vf.netns = Some("trainer-0".into());
        }
        for (k, vf) in tree[10..13].iter_mut().enumerate() {
            vf.netns = Some(format!("pod-{k}"));
        }
        let shown = folded(&tree);
        assert!(shown.contains(&("pf0".into(), Some("trainer-0".into()))));
        assert!(shown.contains(&("pf1".into(), Some("3 netns".into()))));
        // Opened, the PF is itself again and its VFs show their own.
        let open = BTreeSet::from(["pf1".to_string()]);
        let opened = arrange(&tree, 4, &Thresholds::default(), &open);
        assert_eq!(opened[0].name, "pf1");
        assert_eq!(opened[0].netns, None);
        assert!(opened[1..4].iter().all(|r| r.netns.is_some()));
    }
}
