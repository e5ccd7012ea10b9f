//! Which devices the device pane shows first when not all of them fit: the
//! ones most in trouble (usage past the thresholds, counters that keep
//! rising, a port not ACTIVE), so a short terminal hides the healthy ones
//! and never the device at 96 %. When every device fits, the pane keeps
//! the PF-then-VF tree.

use crate::interactive::rows::devices::{DeviceRow, Tree};
use crate::model::PortState;
use crate::model::limits::{Level, Thresholds};

/// How much trouble a device row shows: a higher key is worse.
/// (worst level of usage, counters or port; then the fullest usage in ‰).
pub(crate) fn trouble(row: &DeviceRow, thresholds: &Thresholds) -> (Level, u64) {
    let fullest = row
        .usage
        .iter()
        .filter_map(|(_, e)| e.as_ref().and_then(|e| e.ratio()))
        .fold(0.0_f64, f64::max);
    let usage = thresholds.level(fullest);
    let traffic = row.traffic();
    let counters = if traffic.alerting {
        Level::Critical
    } else if traffic.moved.is_empty() {
        Level::Normal
    } else {
        Level::Warn
    };
    let port = match row.ports.first().and_then(|p| p.state) {
        Some(PortState::Active) | None => Level::Normal,
        Some(_) => Level::Warn,
    };
    let level = usage.max(counters).max(port);
    // Whole per-mille: a ratio's last digits must not reorder rows.
    let permille = (fullest * 1000.0).round().clamp(0.0, 1e9) as u64;
    (level, permille)
}

/// The rows in tree order when `room` holds them all; otherwise the most
/// troubled first (ties in tree order), each named without its tree mark
/// (its PF may no longer be the row above).
pub(crate) fn arrange(tree: &[DeviceRow], room: usize, thresholds: &Thresholds) -> Vec<DeviceRow> {
    if tree.len() <= room {
        return tree.to_vec();
    }
    let mut rows: Vec<(usize, (Level, u64), DeviceRow)> = tree
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
            tree: Tree::Vf { last: true },
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
        let shown = arrange(&tree, 5, &Thresholds::default());
        assert_eq!(names(&shown), ["a", "b"]);
        assert_eq!(shown[0].tree, Tree::Vf { last: true });
    }

    #[test]
    fn not_all_fit_puts_the_fullest_and_the_down_first() {
        let tree = [
            row("a", 1, PortState::Active),
            row("b", 2, PortState::Down),
            row("c", 96, PortState::Active),
            row("d", 84, PortState::Active),
        ];
        let shown = arrange(&tree, 2, &Thresholds::default());
        assert_eq!(names(&shown), ["c", "d", "b", "a"]);
        assert!(shown.iter().all(|r| r.tree == Tree::Root));
    }
}
