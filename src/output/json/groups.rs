//! The `groups` key of the `--json` document (`--group container|pod`): each container
//! or pod the selected processes run in, with its processes and their holdings summed.
//!
//! The rows are the model's one fold (`model::owner_group`), the same the interactive
//! view's `o` and the exporter's `--owners-by` show, so a pod has the same name and the
//! same numbers in every output. Owners in no group are left out here: they are already
//! in `processes`, `kernel` and `unattributed`, which stay as they are.

use super::{BucketView, ContainerView, bucket, container_view};
use crate::model::consumers::{Consumer, SortDirection, SortKey, sort_consumers};
use crate::model::owner_group::{GroupKey, OwnerGroup, OwnerGroupRow, group_consumers};
use crate::model::{OwnerKey, ResourceType, Snapshot};
use crate::output::selection::in_device_order;
use serde::Serialize;

/// One container or pod.
#[derive(Debug, Serialize)]
pub struct GroupView {
    /// `container` or `pod`.
    pub kind: &'static str,
    /// The row's name, as the report and the interactive view show it.
    pub name: String,
    /// The Kubernetes pod, when the group is one or its container runs in one.
    pub pod: Option<PodView>,
    /// The container, for `kind: "container"`.
    pub container: Option<ContainerView>,
    /// The user every process runs as; `null` when they differ or are unknown.
    pub user: Option<String>,
    /// Pids of the processes summed, as in `processes`.
    pub processes: Vec<u32>,
    #[serde(flatten)]
    pub holdings: BucketView,
}

#[derive(Debug, Serialize)]
pub struct PodView {
    /// `null` when the node does not show pod names (no kubelet log directories).
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub uid: String,
}

/// The groups of `consumers` grouped `by`, most QPs first; `None` when grouping by
/// process, so the document keeps its shape unless grouping is asked for.
pub(super) fn groups(
    snapshot: &Snapshot,
    consumers: &[Consumer],
    by: OwnerGroup,
) -> Option<Vec<GroupView>> {
    if by == OwnerGroup::Process {
        return None;
    }
    let mut rows: Vec<OwnerGroupRow> = group_consumers(consumers, by)
        .into_iter()
        .filter(OwnerGroupRow::is_group)
        .collect();
    // The fold lists a group's devices by name; the document lists them as it shows
    // devices, each PF followed by its VFs, as for `processes`.
    for row in &mut rows {
        in_device_order(snapshot, &mut row.total.devices);
    }
    // As `processes`: by QP count.
    sort_consumers(
        &mut rows,
        SortKey::Count(ResourceType::Qp),
        SortDirection::Descending,
    );
    Some(rows.iter().filter_map(group).collect())
}

fn group(row: &OwnerGroupRow) -> Option<GroupView> {
    let (kind, pod, container) = match &row.key {
        GroupKey::Owner(_) => return None,
        GroupKey::Pod(k) => (
            OwnerGroup::Pod,
            Some(PodView {
                namespace: non_empty(&k.namespace),
                name: non_empty(&k.pod),
                uid: k.uid.clone(),
            }),
            None,
        ),
        GroupKey::Container(ct) => (
            OwnerGroup::Container,
            ct.pod.as_ref().map(|uid| PodView {
                namespace: ct.kube.as_ref().and_then(|k| non_empty(&k.namespace)),
                name: ct.kube.as_ref().and_then(|k| non_empty(&k.pod)),
                uid: uid.clone(),
            }),
            Some(container_view(ct)),
        ),
    };
    Some(GroupView {
        kind: kind.name(),
        name: row.name.clone(),
        pod,
        container,
        user: row.user().map(str::to_string),
        processes: row
            .members
            .iter()
            .filter_map(|m| match m.owner {
                OwnerKey::Process(key) => Some(key.pid),
                _ => None,
            })
            .collect(),
        holdings: bucket(&row.total),
    })
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_string())
}
