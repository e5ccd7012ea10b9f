//! The `--json` document: one JSON object describing a snapshot under the
//! filters (schema in docs/json.md). Built without I/O; the caller serializes.

mod document;
mod groups;
mod port_counters;
mod problems;

pub(crate) use groups::GroupView;
pub(crate) use port_counters::owner_ref;
pub(crate) use problems::{ProblemView, problems as problem_views};

pub use document::*;

use super::rfc3339;
use super::selection::Selection;
use crate::model::consumers::Consumer;
use crate::model::error_qp_table::ErrorQpRow;
use crate::model::filter::Filter;
use crate::model::limits::{Quota, ShareIndex, Thresholds};
use crate::model::owner_group::OwnerGroup;
use crate::model::{
    Container, Device, LimitSource, NetnsMode, OwnerKey, Port, ProcessInfo, RdmaCgroup,
    ResourceType, Runtime, Snapshot, SourceKind, Warning,
};
use crate::settings::ReportSettings;

/// The document for `snapshot` under `filter`.
///
/// Filters restrict `devices` (`--dev`), the owners and what they are counted
/// over, and `error_qps`; counts always carry every type so the shape does not
/// depend on `--type`.
pub fn render_json(snapshot: &Snapshot, filter: &Filter) -> JsonDocument {
    render_json_with(snapshot, filter, &Thresholds::default())
}

/// The document with `limit` warnings and levels at `thresholds`.
pub fn render_json_with(
    snapshot: &Snapshot,
    filter: &Filter,
    thresholds: &Thresholds,
) -> JsonDocument {
    render_json_grouped(snapshot, filter, thresholds, OwnerGroup::Process)
}

/// The document as the report group asks for it (`--json`, and each line of
/// `--batch --json`): `limit` warnings at its thresholds, `groups` by its
/// `--group`. A report option the document shows is read here, once.
pub fn render_json_report(
    snapshot: &Snapshot,
    filter: &Filter,
    report: &ReportSettings,
) -> JsonDocument {
    render_json_grouped(snapshot, filter, &report.thresholds, report.group)
}

/// The document with, when `group` is `container` or `pod` (`--group`), a `groups`
/// list of the containers or pods the selected processes run in.
pub fn render_json_grouped(
    snapshot: &Snapshot,
    filter: &Filter,
    thresholds: &Thresholds,
    group: OwnerGroup,
) -> JsonDocument {
    let selection = Selection::with_thresholds(snapshot, filter, thresholds);
    let options = super::OnceOptions {
        thresholds: *thresholds,
        ..super::OnceOptions::default()
    };
    let problems = super::problems::of_snapshot(snapshot, &selection.filter, &options);
    let shares = ShareIndex::new(snapshot, &selection.filter);
    JsonDocument {
        schema_version: SCHEMA_VERSION,
        meta: meta(snapshot, &selection.warnings),
        problems: problem_views(&problems, snapshot.meta.collected_at_ms),
        devices: selection
            .devices
            .iter()
            .map(|d| device(snapshot, d, thresholds))
            .collect(),
        processes: selection
            .processes()
            .filter_map(|c| process(&shares, c))
            .collect(),
        kernel: selection.kernel_owners().map(kernel_owner).collect(),
        unattributed: selection
            .unattributed()
            .map(bucket)
            .unwrap_or_else(empty_bucket),
        error_qps: selection
            .error_qps
            .iter()
            .map(|qp| ErrorQpView::of(ErrorQpRow { qp, age: None }))
            .collect(),
        groups: groups::groups(snapshot, &selection.consumers, group),
    }
}

fn meta(snapshot: &Snapshot, warnings: &[Warning]) -> MetaView {
    let m = &snapshot.meta;
    MetaView {
        source: match m.source {
            SourceKind::Live => "live",
            SourceKind::Demo => "demo",
            SourceKind::Replay => "replay",
        },
        restop_version: env!("CARGO_PKG_VERSION"),
        host: m.host.clone(),
        kernel: m.kernel.clone(),
        collected_at: rfc3339::from_unix_ms(m.collected_at_ms),
        collected_at_ms: m.collected_at_ms,
        collect_ms: m.collect_us as f64 / 1000.0,
        netns_mode: m.netns_mode.map(|n| match n {
            NetnsMode::Shared => "shared",
            NetnsMode::Exclusive => "exclusive",
        }),
        hidden_fields: m.hidden_fields.clone(),
        warnings: warnings
            .iter()
            .map(|w| WarningView {
                kind: w.kind.name(),
                message: w.message.clone(),
            })
            .collect(),
    }
}

fn device(snapshot: &Snapshot, d: &Device, thresholds: &Thresholds) -> DeviceView {
    DeviceView {
        name: d.name.clone(),
        index: d.index,
        node_guid: d.node_guid.map(guid),
        fw_version: d.fw_version.clone(),
        node_type: d.node_type.clone(),
        protocol: d.protocol.clone(),
        pci: d.pci.clone(),
        pf: d.pf.clone(),
        netns: d.netns.clone(),
        ports: d.ports.iter().map(|p| port(snapshot, d, p)).collect(),
        usage: OrderedMap(
            ResourceType::ALL
                .into_iter()
                .filter_map(|t| {
                    d.usage.get(t).map(|e| {
                        (
                            t.name().to_string(),
                            UsageView {
                                current: e.current,
                                max: e.max,
                                ratio: e.ratio(),
                                max_source: e.max_source.map(limit_source),
                                level: e.ratio().map(|r| thresholds.level(r).name()),
                            },
                        )
                    })
                })
                .collect(),
        ),
        object_limits: d.object_limits.map(|l| ObjectLimitsView {
            max_qp_wr: l.max_qp_wr,
            max_cqe: l.max_cqe,
            max_mr_size: l.max_mr_size,
        }),
        objects_collected_at_ms: d.objects.collected_at_ms,
        objects_collected_at_ms_by_type: d
            .objects
            .types
            .iter()
            .map(|(t, at)| (t.name(), *at))
            .collect(),
        object_errors: d
            .objects
            .errors
            .iter()
            .map(|(t, message)| ObjectErrorView {
                resource_type: t.name(),
                message: message.clone(),
            })
            .collect(),
    }
}

/// `0011:2233:4455:6677`, as iproute2 prints GUIDs.
pub(crate) fn guid(g: u64) -> String {
    format!(
        "{:04x}:{:04x}:{:04x}:{:04x}",
        (g >> 48) & 0xffff,
        (g >> 32) & 0xffff,
        (g >> 16) & 0xffff,
        g & 0xffff
    )
}

fn port(snapshot: &Snapshot, d: &Device, p: &Port) -> PortView {
    PortView {
        index: p.index,
        state: p.state.map(|s| s.to_string()),
        phys_state: p.phys_state.map(|s| s.to_string()),
        netdev: p.netdev.clone(),
        counters: port_counters::port_counters(snapshot, d, p),
    }
}

fn bucket(c: &Consumer) -> BucketView {
    BucketView {
        counts: OrderedMap(
            c.counts
                .iter()
                .map(|(t, n)| (t.name().to_string(), n))
                .collect(),
        ),
        mr_bytes: c.mr_bytes,
        qp_states: OrderedMap(
            c.qp_states
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| (s.to_string(), n))
                .collect(),
        ),
        devices: c.devices.clone(),
    }
}

/// An empty bucket still lists every type, so readers never miss a key.
fn empty_bucket() -> BucketView {
    BucketView {
        counts: OrderedMap(
            ResourceType::ALL
                .into_iter()
                .map(|t| (t.name().to_string(), 0))
                .collect(),
        ),
        ..BucketView::default()
    }
}

fn limit_source(s: LimitSource) -> &'static str {
    match s {
        LimitSource::Kernel => "kernel",
        LimitSource::Verbs => "verbs",
        LimitSource::Demo => "demo",
    }
}

fn shares(index: &ShareIndex<'_>, c: &Consumer) -> OrderedMap<ShareView> {
    OrderedMap(
        index
            .shares(&c.owner)
            .into_iter()
            .map(|(t, s)| {
                (
                    t.name().to_string(),
                    ShareView {
                        of_current: s.of_current,
                        of_max: s.of_max,
                    },
                )
            })
            .collect(),
    )
}

fn quota(q: &Quota) -> QuotaView {
    QuotaView {
        current: q.current,
        max: q.max,
        ratio: q.ratio(),
        cgroup: q.cgroup.clone(),
    }
}

fn rdma_cgroup(c: &RdmaCgroup) -> RdmaCgroupView {
    RdmaCgroupView {
        path: c.path.clone(),
        devices: OrderedMap(
            c.devices
                .iter()
                .map(|(name, d)| {
                    (
                        name.clone(),
                        DeviceQuotaView {
                            hca_handle: quota(&d.hca_handle),
                            hca_object: quota(&d.hca_object),
                        },
                    )
                })
                .collect(),
        ),
    }
}

fn process(shares_of: &ShareIndex<'_>, c: &Consumer) -> Option<ProcessView> {
    let OwnerKey::Process(key) = c.owner else {
        return None;
    };
    let info = c
        .process
        .clone()
        .unwrap_or_else(|| ProcessInfo::unknown(key));
    Some(ProcessView {
        pid: key.pid,
        start_time: key.start_time,
        started_at: info.started_at.map(rfc3339::from_unix_secs),
        comm: info.comm.clone(),
        name: c.name.clone(),
        cmdline: info.cmdline.clone(),
        uid: info.uid,
        user: info.user.clone(),
        container: info.container.as_ref().map(container_view),
        threads: info
            .creator_threads
            .iter()
            .filter(|(tid, _)| *tid != key.pid)
            .map(|(tid, comm)| ThreadView {
                tid: *tid,
                comm: comm.clone(),
            })
            .collect(),
        holdings: bucket(c),
        share: shares(shares_of, c),
        rdma_cgroup: info.rdma_cgroup.as_deref().map(rdma_cgroup),
    })
}

fn container_view(ct: &Container) -> ContainerView {
    ContainerView {
        runtime: runtime(ct.runtime),
        id: ct.id.clone(),
        pod: ct.pod.clone(),
        kubernetes: ct.kube.as_ref().map(|k| KubeView {
            namespace: k.namespace.clone(),
            pod: k.pod.clone(),
            container: (!k.container.is_empty()).then(|| k.container.clone()),
        }),
    }
}

fn runtime(r: Runtime) -> &'static str {
    match r {
        Runtime::Docker => "docker",
        Runtime::Containerd => "containerd",
        Runtime::Crio => "crio",
        Runtime::Podman => "podman",
        Runtime::Kubernetes => "kubernetes",
        Runtime::Systemd => "systemd",
    }
}

fn kernel_owner(c: &Consumer) -> KernelOwnerView {
    let name = match &c.owner {
        OwnerKey::Kernel(name) => name.clone(),
        _ => c.name.clone(),
    };
    KernelOwnerView {
        name,
        holdings: bucket(c),
    }
}
