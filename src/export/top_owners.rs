//! Bounding per-owner series: the top N owners by one number, and the sum of
//! everyone else, so a host with thousands of processes still exports at most
//! N + 1 series per metric.

use crate::model::consumers::Consumer;

/// The labels that name an owner in per-owner metrics. Kernel owners and the
/// unattributed bucket have an empty `pid`; so does the `other` remainder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerLabels {
    pub pid: String,
    pub name: String,
    pub user: String,
    pub container: String,
}

impl OwnerLabels {
    pub fn of(c: &Consumer) -> OwnerLabels {
        let user = match c.user() {
            Some(name) => name.to_string(),
            // An unresolved uid is still better than nothing.
            None => c
                .process
                .as_ref()
                .and_then(|p| p.uid)
                .map(|uid| uid.to_string())
                .unwrap_or_default(),
        };
        OwnerLabels {
            pid: c.pid().map(|p| p.to_string()).unwrap_or_default(),
            name: c.name.clone(),
            user,
            container: c.container().unwrap_or_default(),
        }
    }

    /// The remainder series.
    pub fn other() -> OwnerLabels {
        OwnerLabels {
            pid: String::new(),
            name: "other".to_string(),
            user: String::new(),
            container: String::new(),
        }
    }

    pub fn values(&self) -> [&str; 4] {
        [&self.pid, &self.name, &self.user, &self.container]
    }
}

/// The top owners by one number, and the rest summed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranked {
    /// Largest first; owners holding none are left out.
    pub top: Vec<(OwnerLabels, u64)>,
    /// Sum over every owner not in `top`.
    pub other: u64,
}

/// Ranks `consumers` by `value` (largest first, ties by owner so the choice is
/// stable between collections) and keeps the first `n` that hold anything.
///
/// Two owners can end up with the same labels (a pid reused while the old
/// process's objects were still listed): their numbers are added, because a
/// scrape with two samples of one series is rejected whole by Prometheus.
pub fn top_by(consumers: &[Consumer], n: usize, value: impl Fn(&Consumer) -> u64) -> Ranked {
    let mut order: Vec<&Consumer> = consumers.iter().collect();
    order.sort_by(|a, b| value(b).cmp(&value(a)).then_with(|| a.owner.cmp(&b.owner)));
    let mut top: Vec<(OwnerLabels, u64)> = Vec::new();
    let mut other = 0u64;
    for (rank, c) in order.into_iter().enumerate() {
        let v = value(c);
        if rank >= n || v == 0 {
            other = other.saturating_add(v);
            continue;
        }
        let labels = OwnerLabels::of(c);
        match top.iter_mut().find(|(l, _)| *l == labels) {
            Some((_, sum)) => *sum = sum.saturating_add(v),
            None => top.push((labels, v)),
        }
    }
    Ranked { top, other }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OwnerKey, ProcessInfo, ProcessKey, ResourceType, StateCounts, TypeCounts};

    fn process(pid: u32, start: u64, name: &str, qps: u64) -> Consumer {
        let key = ProcessKey {
            pid,
            start_time: start,
        };
        let mut info = ProcessInfo::unknown(key);
        info.comm = name.to_string();
        info.uid = Some(1000);
        let mut counts = TypeCounts::default();
        counts.add(ResourceType::Qp, qps);
        Consumer {
            owner: OwnerKey::Process(key),
            name: name.to_string(),
            process: Some(info),
            counts,
            mr_bytes: 0,
            qp_states: StateCounts::default(),
            devices: Vec::new(),
        }
    }

    fn qps(c: &Consumer) -> u64 {
        c.counts.get(ResourceType::Qp)
    }

    #[test]
    fn keeps_the_top_n_and_sums_the_rest() {
        let rows: Vec<Consumer> = (1..=10).map(|i| process(i, 0, "p", u64::from(i))).collect();
        let ranked = top_by(&rows, 3, qps);
        let kept: Vec<(&str, u64)> = ranked
            .top
            .iter()
            .map(|(l, v)| (l.pid.as_str(), *v))
            .collect();
        assert_eq!(kept, [("10", 10), ("9", 9), ("8", 8)]);
        assert_eq!(ranked.other, (1..=7).sum::<u64>());
    }

    #[test]
    fn owners_holding_none_are_not_listed() {
        let rows = vec![process(1, 0, "a", 0), process(2, 0, "b", 4)];
        let ranked = top_by(&rows, 20, qps);
        assert_eq!(ranked.top.len(), 1);
        assert_eq!(ranked.other, 0);
    }

    #[test]
    fn same_labels_are_merged_not_duplicated() {
        let rows = vec![process(7, 1, "svc", 2), process(7, 2, "svc", 3)];
        let ranked = top_by(&rows, 20, qps);
        assert_eq!(ranked.top.len(), 1);
        assert_eq!(ranked.top[0].1, 5);
        assert_eq!(ranked.top[0].0.user, "1000");
    }

    #[test]
    fn zero_keeps_only_the_remainder() {
        let rows = vec![process(1, 0, "a", 3), process(2, 0, "b", 4)];
        let ranked = top_by(&rows, 0, qps);
        assert!(ranked.top.is_empty());
        assert_eq!(ranked.other, 7);
    }
}
