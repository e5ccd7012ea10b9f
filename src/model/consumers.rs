//! The "top consumers" table: one row per process, kernel owner, and the
//! unattributed bucket, summed over devices.

use super::enums::StateCounts;
use super::filter::Filter;
use super::owner::{OwnerKey, ProcessInfo, ProcessKey};
use super::resource::{ResourceType, TypeCounts};
use super::snapshot::Snapshot;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub struct Consumer {
    pub owner: OwnerKey,
    /// Program name for processes, `[module]` for kernel owners, `(unattributed)`.
    pub name: String,
    pub process: Option<ProcessInfo>,
    pub counts: TypeCounts,
    pub mr_bytes: u64,
    pub qp_states: StateCounts,
    /// Names of the devices this owner holds objects on, in device order.
    pub devices: Vec<String>,
}

impl Consumer {
    pub fn pid(&self) -> Option<u32> {
        self.owner.pid()
    }

    pub fn user(&self) -> Option<&str> {
        self.process.as_ref().and_then(|p| p.user.as_deref())
    }

    pub fn container(&self) -> Option<String> {
        self.process
            .as_ref()
            .and_then(|p| p.container.as_ref())
            .map(|c| c.short())
    }

    /// `namespace/pod` of the Kubernetes pod the process runs in, or `pod:<uid prefix>`
    /// when the node does not show its name.
    pub fn pod(&self) -> Option<String> {
        let c = self.process.as_ref()?.container.as_ref()?;
        c.pod_name().or_else(|| {
            c.pod
                .as_ref()
                .map(|uid| format!("pod:{}", uid.chars().take(8).collect::<String>()))
        })
    }

    pub fn error_qps(&self) -> u64 {
        self.qp_states.errors()
    }

    fn search_fields(&self) -> Vec<String> {
        let mut fields = vec![self.name.clone()];
        if let Some(p) = &self.process {
            fields.push(p.comm.clone());
            fields.push(p.cmdline.join(" "));
            fields.push(p.key.pid.to_string());
            fields.extend(p.user.clone());
            if let Some(c) = &p.container {
                fields.push(c.id.clone());
                fields.extend(c.pod.clone());
                if let Some(k) = &c.kube {
                    fields.push(format!("{}/{}", k.namespace, k.pod));
                    fields.push(k.container.clone());
                }
            }
        }
        fields.extend(self.devices.iter().cloned());
        fields
    }
}

/// Label for an owner without process details.
pub(crate) fn owner_label(owner: &OwnerKey, process: Option<&ProcessInfo>) -> String {
    match owner {
        OwnerKey::Process(key) => match process {
            Some(p) if !p.comm.is_empty() || !p.cmdline.is_empty() => p.display_name(),
            _ => format!("pid {}", key.pid),
        },
        OwnerKey::Kernel(name) => format!("[{name}]"),
        OwnerKey::Unattributed => "(unattributed)".to_string(),
    }
}

/// Sums tallies per owner across the devices the filter admits.
pub fn consumers(snapshot: &Snapshot, filter: &Filter) -> Vec<Consumer> {
    let mut rows: BTreeMap<OwnerKey, Consumer> = BTreeMap::new();
    let device_order: BTreeMap<u32, usize> = snapshot
        .devices
        .iter()
        .enumerate()
        .map(|(i, d)| (d.index, i))
        .collect();
    // Looked up once per tally: maps, so that the sum stays linear in the
    // tallies whatever the number of processes and devices.
    let processes: HashMap<&ProcessKey, &ProcessInfo> =
        snapshot.processes.iter().map(|p| (&p.key, p)).collect();
    let device_names: HashMap<u32, &str> = snapshot
        .devices
        .iter()
        .map(|d| (d.index, d.name.as_str()))
        .collect();
    // The devices already on each row: a set, as an owner may hold objects
    // on every one of thousands of devices.
    let mut listed: HashSet<(&OwnerKey, u32)> = HashSet::new();
    for tally in &snapshot.tallies {
        let device_name = device_names.get(&tally.device).map_or_else(
            || format!("dev{}", tally.device),
            |name| (*name).to_string(),
        );
        if !filter.shows_device(&device_name) {
            continue;
        }
        let row = rows.entry(tally.owner.clone()).or_insert_with(|| {
            let process = match &tally.owner {
                OwnerKey::Process(key) => processes.get(key).map(|p| (*p).clone()),
                _ => None,
            };
            Consumer {
                name: owner_label(&tally.owner, process.as_ref()),
                owner: tally.owner.clone(),
                process,
                counts: TypeCounts::default(),
                mr_bytes: 0,
                qp_states: StateCounts::default(),
                devices: Vec::new(),
            }
        });
        row.counts += &tally.counts;
        row.mr_bytes = row.mr_bytes.saturating_add(tally.mr_bytes);
        row.qp_states.merge(&tally.qp_states);
        if !tally.counts.is_empty() && listed.insert((&tally.owner, tally.device)) {
            row.devices.push(device_name);
        }
    }
    let mut out: Vec<Consumer> = rows.into_values().filter(|c| admits(filter, c)).collect();
    let order_by_name: HashMap<&str, usize> = snapshot
        .devices
        .iter()
        .rev()
        .filter_map(|d| Some((d.name.as_str(), *device_order.get(&d.index)?)))
        .collect();
    for c in &mut out {
        c.devices.sort_by_key(|name| {
            order_by_name
                .get(name.as_str())
                .copied()
                .unwrap_or(usize::MAX)
        });
    }
    sort_consumers(&mut out, SortKey::default(), SortDirection::Descending);
    out
}

fn admits(filter: &Filter, c: &Consumer) -> bool {
    if let Some(pid) = filter.pid
        && c.pid() != Some(pid)
    {
        return false;
    }
    if let Some(state) = filter.state
        && c.qp_states.get(state) == 0
    {
        return false;
    }
    if !filter.types.is_empty() && filter.types.iter().all(|t| c.counts.get(*t) == 0) {
        return false;
    }
    let fields = c.search_fields();
    filter.text_matches(fields.iter().map(String::as_str))
}

/// A column the consumers table can be sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    Pid,
    Name,
    User,
    Container,
    /// `namespace/pod` of the Kubernetes pod: rows of one pod together.
    Pod,
    Count(ResourceType),
    MrBytes,
    ErrQps,
}

impl Default for SortKey {
    /// QPs are what runs out first on most hosts.
    fn default() -> Self {
        SortKey::Count(ResourceType::Qp)
    }
}

impl SortKey {
    /// Parses `--sort` values: `pid`, `name`, `user`, `container`, a type name,
    /// `mr_bytes`/`bytes`, `err`.
    pub(crate) fn from_name(text: &str) -> Option<SortKey> {
        let lower = text.trim().to_ascii_lowercase().replace('-', "_");
        match lower.as_str() {
            "pid" => Some(SortKey::Pid),
            "name" | "comm" => Some(SortKey::Name),
            "user" => Some(SortKey::User),
            "container" => Some(SortKey::Container),
            "pod" => Some(SortKey::Pod),
            "mr_bytes" | "bytes" | "mem" => Some(SortKey::MrBytes),
            "err" | "err_qps" | "errors" => Some(SortKey::ErrQps),
            other => ResourceType::from_name(other).map(SortKey::Count),
        }
    }

    /// The direction a column reads best in: names and identities A→Z,
    /// counts largest first.
    pub(crate) fn natural_direction(self) -> SortDirection {
        match self {
            SortKey::Pid | SortKey::Name | SortKey::User | SortKey::Container | SortKey::Pod => {
                SortDirection::Ascending
            }
            SortKey::Count(_) | SortKey::MrBytes | SortKey::ErrQps => SortDirection::Descending,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortDirection {
    Ascending,
    Descending,
}

impl SortDirection {
    pub fn reversed(self) -> SortDirection {
        match self {
            SortDirection::Ascending => SortDirection::Descending,
            SortDirection::Descending => SortDirection::Ascending,
        }
    }
}

/// What the consumers table sorts a row by: a consumer, or a group of them
/// (`owner_group::OwnerGroupRow`), so both sort by one comparison.
pub(crate) trait SortFields {
    /// Counts, MR bytes and QP states; for a consumer, itself.
    fn totals(&self) -> &Consumer;
    /// The identity fields default to the totals' (a consumer's own); a group
    /// row answers for its members.
    fn sort_pid(&self) -> Option<u32> {
        self.totals().pid()
    }
    fn sort_name(&self) -> &str {
        &self.totals().name
    }
    fn sort_user(&self) -> Option<&str> {
        self.totals().user()
    }
    fn sort_container(&self) -> Option<String> {
        self.totals().container()
    }
    fn sort_pod(&self) -> Option<String> {
        self.totals().pod()
    }
    /// The row's identity, unique in its table: the last tie-break.
    fn row_owner(&self) -> &OwnerKey {
        &self.totals().owner
    }
}

impl SortFields for Consumer {
    fn totals(&self) -> &Consumer {
        self
    }
}

/// Sorts rows by `key`; ties fall back to total objects (descending) and then
/// the owner, so the order is stable from one refresh to the next.
pub(crate) fn sort_consumers<R: SortFields>(
    rows: &mut [R],
    key: SortKey,
    direction: SortDirection,
) {
    rows.sort_by(|a, b| {
        let primary = compare_by(a, b, key);
        let primary = match direction {
            SortDirection::Ascending => primary,
            SortDirection::Descending => primary.reverse(),
        };
        let (ta, tb) = (a.totals(), b.totals());
        primary
            .then_with(|| tb.counts.total().cmp(&ta.counts.total()))
            .then_with(|| a.row_owner().cmp(b.row_owner()))
    });
}

fn compare_by<R: SortFields>(a: &R, b: &R, key: SortKey) -> Ordering {
    let (ta, tb) = (a.totals(), b.totals());
    match key {
        SortKey::Pid => a.sort_pid().cmp(&b.sort_pid()),
        SortKey::Name => a
            .sort_name()
            .to_lowercase()
            .cmp(&b.sort_name().to_lowercase()),
        SortKey::User => a.sort_user().cmp(&b.sort_user()),
        SortKey::Container => a.sort_container().cmp(&b.sort_container()),
        SortKey::Pod => a.sort_pod().cmp(&b.sort_pod()),
        SortKey::Count(t) => ta.counts.get(t).cmp(&tb.counts.get(t)),
        SortKey::MrBytes => ta.mr_bytes.cmp(&tb.mr_bytes),
        SortKey::ErrQps => ta.error_qps().cmp(&tb.error_qps()),
    }
}
