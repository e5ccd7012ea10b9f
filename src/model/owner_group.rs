//! Owners folded into the containers or Kubernetes pods their processes run in.
//!
//! One fold for every view: the exporter's per-owner series (`--owners-by pod`), the
//! interactive view's grouped consumers table (`o`) and the reports' `--group` (`--once`,
//! `--batch`, the `groups` of `--json`) all sum a pod's processes here, so a pod is the same
//! row, with the same name and the same numbers, wherever it is shown.
//! Processes outside any pod (or container) stay rows of their own, as do kernel owners
//! and the unattributed bucket: they belong to no group.

use super::consumer_table::{ConsumerColumn, NOT_APPLICABLE};
use super::consumers::{Consumer, SortFields};
use super::device::natural_cmp;
use super::owner::{Container, OwnerKey};
use crate::units;
use std::collections::HashMap;

/// What one row of a grouped view stands for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum OwnerGroup {
    /// One row per process (and per kernel module).
    #[default]
    Process,
    /// The processes of one container summed; processes outside containers stay apart.
    Container,
    /// The processes of one Kubernetes pod summed; processes outside pods stay apart.
    Pod,
}

impl OwnerGroup {
    /// Every grouping, in the order the interactive view cycles through them.
    pub const ALL: [OwnerGroup; 3] = [OwnerGroup::Process, OwnerGroup::Container, OwnerGroup::Pod];

    /// The name `--group` and the config file take.
    pub fn name(self) -> &'static str {
        match self {
            OwnerGroup::Process => "process",
            OwnerGroup::Container => "container",
            OwnerGroup::Pod => "pod",
        }
    }

    pub(crate) fn from_name(text: &str) -> Option<OwnerGroup> {
        let lower = text.trim().to_ascii_lowercase();
        OwnerGroup::ALL.into_iter().find(|g| g.name() == lower)
    }

    /// process → container → pod → process.
    pub fn next(self) -> OwnerGroup {
        match self {
            OwnerGroup::Process => OwnerGroup::Container,
            OwnerGroup::Container => OwnerGroup::Pod,
            OwnerGroup::Pod => OwnerGroup::Process,
        }
    }
}

/// A pod as the exporter labels it: kube-state-metrics' `namespace`, `pod`, `uid`.
/// Empty names when the node does not show them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PodKey {
    pub namespace: String,
    pub pod: String,
    pub uid: String,
}

/// The identity of a row: the same key is the same row (and the same exporter series).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroupKey {
    /// An owner on its own: a process in no group, a kernel owner, the unattributed bucket.
    Owner(OwnerKey),
    /// A container: its runtime, id, pod and names, as its labels carry them.
    Container(Container),
    Pod(PodKey),
}

impl GroupKey {
    /// The row `c` is counted under when grouping `by`.
    pub fn of(c: &Consumer, by: OwnerGroup) -> GroupKey {
        let container = c.process.as_ref().and_then(|p| p.container.as_ref());
        match (by, container) {
            (OwnerGroup::Pod, Some(ct)) => match &ct.pod {
                Some(uid) => {
                    let kube = ct.kube.as_ref();
                    GroupKey::Pod(PodKey {
                        namespace: kube.map(|k| k.namespace.clone()).unwrap_or_default(),
                        pod: kube.map(|k| k.pod.clone()).unwrap_or_default(),
                        uid: uid.clone(),
                    })
                }
                None => GroupKey::Owner(c.owner.clone()),
            },
            // A container known only by its pod has no id to tell it from its siblings.
            (OwnerGroup::Container, Some(ct)) if !ct.id.is_empty() => {
                GroupKey::Container(ct.clone())
            }
            _ => GroupKey::Owner(c.owner.clone()),
        }
    }

    /// The row's name: a pod's name, or `pod:<uid prefix>` when the node does not show
    /// it; a container's Kubernetes name, or its short id; `None` for a lone owner (its
    /// own name).
    pub(crate) fn group_name(&self) -> Option<String> {
        match self {
            GroupKey::Owner(_) => None,
            GroupKey::Pod(k) if k.pod.is_empty() => {
                Some(format!("pod:{}", k.uid.chars().take(8).collect::<String>()))
            }
            GroupKey::Pod(k) => Some(k.pod.clone()),
            GroupKey::Container(ct) => Some(
                ct.kube
                    .as_ref()
                    .map(|k| k.container.clone())
                    .filter(|name| !name.is_empty())
                    .unwrap_or_else(|| ct.short()),
            ),
        }
    }
}

/// One row of a grouped view: a group of owners summed, or one owner on its own.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerGroupRow {
    pub key: GroupKey,
    /// The row's name (see [`GroupKey::group_name`]).
    pub name: String,
    /// A lone owner's own row; for a group, its members summed (counts, MR bytes, QP
    /// states, devices), `process` empty, and `owner` the smallest member's: a handle
    /// no other row has, stable while that member lives.
    pub total: Consumer,
    /// The owners summed, in the order they came; one for a lone owner.
    pub members: Vec<Consumer>,
}

impl OwnerGroupRow {
    /// Whether the row stands for a container or pod rather than one owner.
    pub fn is_group(&self) -> bool {
        !matches!(self.key, GroupKey::Owner(_))
    }

    /// Whether `owner` is counted in this row.
    pub fn holds(&self, owner: &OwnerKey) -> bool {
        self.members.iter().any(|m| &m.owner == owner)
    }

    /// A lone process's pid; groups have none.
    pub fn pid(&self) -> Option<u32> {
        if self.is_group() {
            None
        } else {
            self.total.pid()
        }
    }

    /// The user every member runs as; `None` when they differ or are unknown.
    pub fn user(&self) -> Option<&str> {
        common(self.members.iter().map(Consumer::user)).flatten()
    }

    /// The short container id every member shares (a one-container pod names it).
    pub fn container(&self) -> Option<String> {
        common(self.members.iter().map(Consumer::container)).flatten()
    }

    /// `namespace/pod` (or `pod:<uid prefix>`) every member shares.
    pub fn pod(&self) -> Option<String> {
        common(self.members.iter().map(Consumer::pod)).flatten()
    }

    /// The text of this row's cell in `column`: a lone owner's as a consumer's; a
    /// group's name says how many processes it sums (`triton-0 (3 procs)`).
    pub fn cell(&self, column: ConsumerColumn) -> String {
        if !self.is_group() {
            return column.cell(&self.total);
        }
        let clean = |text: Option<String>| text.map(|t| units::clean(&t)).unwrap_or_default();
        match column {
            ConsumerColumn::Pid => NOT_APPLICABLE.to_string(),
            ConsumerColumn::User => match self.user() {
                Some(user) => units::clean(user),
                None => "mixed".to_string(),
            },
            ConsumerColumn::Name => {
                let n = self.members.len();
                let procs = if n == 1 { "proc" } else { "procs" };
                format!("{} ({n} {procs})", units::clean(&self.name))
            }
            ConsumerColumn::Container => clean(self.container()),
            ConsumerColumn::Pod => clean(self.pod()),
            other => other.cell(&self.total),
        }
    }
}

impl SortFields for OwnerGroupRow {
    fn sort_pid(&self) -> Option<u32> {
        self.pid()
    }
    fn sort_name(&self) -> &str {
        &self.name
    }
    fn sort_user(&self) -> Option<&str> {
        self.user()
    }
    fn sort_container(&self) -> Option<String> {
        self.container()
    }
    fn sort_pod(&self) -> Option<String> {
        self.pod()
    }
    fn totals(&self) -> &Consumer {
        &self.total
    }
}

/// The value every item has, if they all have the same one.
fn common<T: PartialEq>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.all(|x| x == first).then_some(first)
}

/// Folds `consumers` into rows grouped `by` process, container or pod, in the order
/// their first member comes. Grouping by process keeps every consumer a row of its own.
pub(crate) fn group_consumers(consumers: &[Consumer], by: OwnerGroup) -> Vec<OwnerGroupRow> {
    let mut rows: Vec<OwnerGroupRow> = Vec::new();
    let mut index: HashMap<GroupKey, usize> = HashMap::new();
    for c in consumers {
        let key = GroupKey::of(c, by);
        match index.get(&key) {
            Some(&i) => {
                if let Some(row) = rows.get_mut(i) {
                    add_member(row, c);
                }
            }
            None => {
                index.insert(key.clone(), rows.len());
                rows.push(new_row(key, c));
            }
        }
    }
    rows
}

fn new_row(key: GroupKey, c: &Consumer) -> OwnerGroupRow {
    let total = match key.group_name() {
        Some(name) => Consumer {
            name,
            process: None,
            ..c.clone()
        },
        None => c.clone(),
    };
    OwnerGroupRow {
        name: total.name.clone(),
        key,
        total,
        members: vec![c.clone()],
    }
}

fn add_member(row: &mut OwnerGroupRow, c: &Consumer) {
    let t = &mut row.total;
    t.counts += &c.counts;
    t.mr_bytes = t.mr_bytes.saturating_add(c.mr_bytes);
    t.qp_states.merge(&c.qp_states);
    for d in &c.devices {
        if !t.devices.contains(d) {
            t.devices.push(d.clone());
        }
    }
    // Members list their devices in device order; the merge keeps names in their
    // natural order (mlx5_2 before mlx5_10), as device lists are.
    t.devices.sort_by(|a, b| natural_cmp(a, b));
    if c.owner < t.owner {
        t.owner = c.owner.clone();
    }
    row.members.push(c.clone());
}

#[cfg(test)]
#[path = "owner_group_tests.rs"]
mod tests;
