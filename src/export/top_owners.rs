//! Bounding per-owner series: the top N owners by one number, and the sum of
//! everyone else, so a host with thousands of processes still exports at most
//! N + 1 series per metric.
//!
//! Owners are processes, or (`--owners-by pod|container`) the pods or containers
//! their processes run in, labelled as kube-state-metrics labels pods
//! (`namespace`, `pod`, `container`, `uid`) so the series join with `kube_pod_info`.

use super::catalog::OWNER_LABELS;
use crate::model::Container;
use crate::model::consumers::Consumer;
use crate::model::owner_group::{GroupKey, OwnerGroupRow, PodKey, group_consumers};
use std::collections::HashMap;

pub use crate::model::owner_group::OwnerGroup;

/// How per-owner series are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerOptions {
    pub group: OwnerGroup,
    /// Whether `pid` is a label. Without it a restarted process keeps its series.
    pub pid_label: bool,
}

impl Default for OwnerOptions {
    fn default() -> OwnerOptions {
        OwnerOptions {
            group: OwnerGroup::Process,
            pid_label: true,
        }
    }
}

/// The labels that name an owner in per-owner metrics. Kernel owners and the
/// unattributed bucket have an empty `pid`; so do groups and the `other` remainder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct OwnerLabels {
    pub pid: String,
    pub name: String,
    pub user: String,
    pub namespace: String,
    pub pod: String,
    /// The Kubernetes container name.
    pub container: String,
    /// The pod UID.
    pub uid: String,
    /// `<runtime>://<id>`, as in the pod's `containerStatuses[].containerID`.
    pub container_id: String,
}

impl OwnerLabels {
    /// The labels of one row of owners grouped as `--owners-by` says: a pod's or a
    /// container's, or a lone owner's (with the container it runs in, if any).
    pub(crate) fn of(row: &OwnerGroupRow) -> OwnerLabels {
        match &row.key {
            GroupKey::Pod(pod) => pod_labels(pod, &row.name),
            GroupKey::Container(ct) => container_labels(ct, &row.name),
            GroupKey::Owner(_) => process_labels(&row.total),
        }
    }

    /// The remainder series.
    pub(crate) fn other() -> OwnerLabels {
        OwnerLabels {
            name: "other".to_string(),
            ..OwnerLabels::default()
        }
    }

    /// (name, value) of every label, `pid` left out unless `pid_label`.
    pub(crate) fn pairs(&self, pid_label: bool) -> Vec<(&'static str, &str)> {
        let values = [
            &self.pid,
            &self.name,
            &self.user,
            &self.namespace,
            &self.pod,
            &self.container,
            &self.uid,
            &self.container_id,
        ];
        OWNER_LABELS
            .iter()
            .zip(values)
            .filter(|(name, _)| pid_label || **name != "pid")
            .map(|(name, value)| (*name, value.as_str()))
            .collect()
    }
}

/// A lone owner's labels: its pid, name and user, and its container's labels.
fn process_labels(c: &Consumer) -> OwnerLabels {
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
    let container = c.process.as_ref().and_then(|p| p.container.as_ref());
    let name = c.name.clone();
    let mut labels = container
        .map(|ct| container_labels(ct, &name))
        .unwrap_or_default();
    labels.pid = c.pid().map(|p| p.to_string()).unwrap_or_default();
    labels.name = name;
    labels.user = user;
    labels
}

/// A container's labels, named `name` (its Kubernetes name or its short id).
fn container_labels(ct: &Container, name: &str) -> OwnerLabels {
    let kube = ct.kube.as_ref();
    OwnerLabels {
        name: name.to_string(),
        namespace: kube.map(|k| k.namespace.clone()).unwrap_or_default(),
        pod: kube.map(|k| k.pod.clone()).unwrap_or_default(),
        container: kube.map(|k| k.container.clone()).unwrap_or_default(),
        uid: ct.pod.clone().unwrap_or_default(),
        container_id: ct.qualified_id(),
        ..OwnerLabels::default()
    }
}

/// A pod's labels, named `name` (the pod's name, or `pod:<uid prefix>`).
fn pod_labels(pod: &PodKey, name: &str) -> OwnerLabels {
    OwnerLabels {
        name: name.to_string(),
        namespace: pod.namespace.clone(),
        pod: pod.pod.clone(),
        uid: pod.uid.clone(),
        ..OwnerLabels::default()
    }
}

/// The top owners by one number, and the rest summed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ranked {
    /// Largest first; owners holding none are left out.
    pub top: Vec<(OwnerLabels, u64)>,
    /// Sum over every owner not in `top`.
    pub other: u64,
}

/// The owners of one snapshot, grouped and labelled once (as `options` says) for the
/// rankings of every metric.
#[derive(Clone, Debug)]
pub(crate) struct LabelledOwners {
    rows: Vec<(OwnerLabels, Consumer)>,
}

impl LabelledOwners {
    pub(crate) fn of(consumers: &[Consumer], options: &OwnerOptions) -> LabelledOwners {
        let rows = group_consumers(consumers, options.group)
            .into_iter()
            .map(|row| {
                let mut labels = OwnerLabels::of(&row);
                if !options.pid_label {
                    labels.pid.clear();
                }
                (labels, row.total)
            })
            .collect();
        LabelledOwners { rows }
    }

    /// Sums `value` per owner, ranks the owners (largest first, ties by labels so the
    /// choice is stable between collections) and keeps the first `n` that hold anything.
    ///
    /// Owners with the same labels are always added up (a pid reused while the old
    /// process's objects were still listed; processes without `pid`): a scrape with two
    /// samples of one series is rejected whole by Prometheus.
    pub(crate) fn top_by(&self, n: usize, value: impl Fn(&Consumer) -> u64) -> Ranked {
        let mut sums: HashMap<&OwnerLabels, u64> = HashMap::new();
        for (labels, total) in &self.rows {
            let sum = sums.entry(labels).or_default();
            *sum = sum.saturating_add(value(total));
        }
        let mut order: Vec<(&OwnerLabels, u64)> = sums.into_iter().collect();
        order.sort_by(|(la, a), (lb, b)| b.cmp(a).then_with(|| la.cmp(lb)));
        let mut top = Vec::new();
        let mut other = 0u64;
        for (rank, (labels, v)) in order.into_iter().enumerate() {
            if rank >= n || v == 0 {
                other = other.saturating_add(v);
            } else {
                top.push((labels.clone(), v));
            }
        }
        Ranked { top, other }
    }
}

/// The top `n` owners of `consumers` by `value`, grouped as `options` says (see
/// [`LabelledOwners::top_by`]).
#[cfg(test)]
pub(crate) fn top_by(
    consumers: &[Consumer],
    n: usize,
    options: &OwnerOptions,
    value: impl Fn(&Consumer) -> u64,
) -> Ranked {
    LabelledOwners::of(consumers, options).top_by(n, value)
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
        let ranked = top_by(&rows, 3, &OwnerOptions::default(), qps);
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
        let ranked = top_by(&rows, 20, &OwnerOptions::default(), qps);
        assert_eq!(ranked.top.len(), 1);
        assert_eq!(ranked.other, 0);
    }

    #[test]
    fn same_labels_are_merged_not_duplicated() {
        let rows = vec![process(7, 1, "svc", 2), process(7, 2, "svc", 3)];
        let ranked = top_by(&rows, 20, &OwnerOptions::default(), qps);
        assert_eq!(ranked.top.len(), 1);
        assert_eq!(ranked.top[0].1, 5);
        assert_eq!(ranked.top[0].0.user, "1000");
    }

    #[test]
    fn zero_keeps_only_the_remainder() {
        let rows = vec![process(1, 0, "a", 3), process(2, 0, "b", 4)];
        let ranked = top_by(&rows, 0, &OwnerOptions::default(), qps);
        assert!(ranked.top.is_empty());
        assert_eq!(ranked.other, 7);
    }

    fn in_pod(mut c: Consumer, pod: &str, container: &str, id: &str) -> Consumer {
        if let Some(p) = c.process.as_mut() {
            p.container = Some(Container {
                runtime: crate::model::Runtime::Containerd,
                id: id.to_string(),
                pod: Some(format!("uid-{pod}")),
                kube: Some(crate::model::KubeNames {
                    namespace: "ml".to_string(),
                    pod: pod.to_string(),
                    container: container.to_string(),
                }),
            });
        }
        c
    }

    fn options(group: OwnerGroup, pid_label: bool) -> OwnerOptions {
        OwnerOptions { group, pid_label }
    }

    #[test]
    fn processes_carry_their_pod_labels() {
        let rows = vec![in_pod(
            process(1, 0, "train.py", 5),
            "w-0",
            "pytorch",
            "abc123abc123",
        )];
        let ranked = top_by(&rows, 20, &OwnerOptions::default(), qps);
        let l = &ranked.top[0].0;
        assert_eq!(
            (
                l.pid.as_str(),
                l.namespace.as_str(),
                l.pod.as_str(),
                l.container.as_str()
            ),
            ("1", "ml", "w-0", "pytorch")
        );
        assert_eq!(l.uid, "uid-w-0");
        assert_eq!(l.container_id, "containerd://abc123abc123");
    }

    #[test]
    fn owners_by_pod_or_container_sum_their_processes() {
        let rows = vec![
            in_pod(
                process(1, 0, "train.py", 5),
                "w-0",
                "pytorch",
                "aaaaaaaaaaaa",
            ),
            in_pod(
                process(2, 0, "train.py", 7),
                "w-0",
                "pytorch",
                "aaaaaaaaaaaa",
            ),
            in_pod(process(3, 0, "nccl", 1), "w-0", "sidecar", "bbbbbbbbbbbb"),
            process(4, 0, "host-tool", 2),
        ];
        let by_pod = top_by(&rows, 20, &options(OwnerGroup::Pod, true), qps);
        let kept: Vec<(&str, &str, u64)> = by_pod
            .top
            .iter()
            .map(|(l, v)| (l.name.as_str(), l.pid.as_str(), *v))
            .collect();
        assert_eq!(kept, [("w-0", "", 13), ("host-tool", "4", 2)]);
        let by_container = top_by(&rows, 1, &options(OwnerGroup::Container, true), qps);
        assert_eq!(by_container.top.len(), 1);
        assert_eq!(by_container.top[0].0.container, "pytorch");
        assert_eq!(by_container.top[0].1, 12);
        assert_eq!(by_container.other, 3);
    }

    #[test]
    fn without_pid_processes_with_the_same_labels_are_one_series() {
        let rows = vec![process(7, 1, "svc", 2), process(8, 2, "svc", 3)];
        let ranked = top_by(&rows, 20, &options(OwnerGroup::Process, false), qps);
        assert_eq!(ranked.top.len(), 1);
        assert_eq!(ranked.top[0].1, 5);
        let pairs = ranked.top[0].0.pairs(false);
        assert!(pairs.iter().all(|(name, _)| *name != "pid"), "{pairs:?}");
        assert!(
            OwnerLabels::other()
                .pairs(true)
                .iter()
                .any(|(n, _)| *n == "pid")
        );
    }

    #[test]
    fn a_pod_the_node_does_not_name_is_labelled_by_its_uid() {
        let mut rows = vec![process(1, 0, "a", 2), process(2, 0, "b", 3)];
        for c in &mut rows {
            if let Some(p) = c.process.as_mut() {
                p.container = Some(Container {
                    runtime: crate::model::Runtime::Crio,
                    id: "0123456789abcdef".to_string(),
                    pod: Some("9f8e7d6c-5b4a".to_string()),
                    kube: None,
                });
            }
        }
        let ranked = top_by(&rows, 20, &options(OwnerGroup::Pod, true), qps);
        assert_eq!(ranked.top.len(), 1);
        let (l, v) = &ranked.top[0];
        assert_eq!(*v, 5);
        assert_eq!(
            (
                l.name.as_str(),
                l.uid.as_str(),
                l.pod.as_str(),
                l.pid.as_str()
            ),
            ("pod:9f8e7d6c", "9f8e7d6c-5b4a", "", "")
        );
        let by_container = top_by(&rows, 20, &options(OwnerGroup::Container, true), qps);
        let l = &by_container.top[0].0;
        assert_eq!(l.name, "0123456789ab");
        assert_eq!(l.container_id, "cri-o://0123456789abcdef");
    }
}
