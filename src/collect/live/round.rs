//! Phase 3: one round of object dumps over every device, parents first. Each
//! entry is attributed and folded into per-owner tallies as it arrives; only
//! the objects the view asked for are kept.

use super::hidden::HiddenFields;
use super::{LiveSource, vanished};
use crate::collect::attribution::{Attribution, DUMP_ORDER};
use crate::model::{
    DetailScope, Device, Object, ObjectAccumulator, OwnerKey, ProcessInfo, ResourceType, Tally,
    TypeCounts, Warning, WarningKind,
};
use crate::nldev::{NlError, Transport};
use std::collections::{BTreeSet, HashMap};

/// What the last object dumps produced; reused until the next dump is due.
#[derive(Clone, Debug, Default)]
pub(super) struct ObjectView {
    pub scope: DetailScope,
    pub collected_at_ms: u64,
    pub tallies: Vec<Tally>,
    pub objects: Vec<Object>,
    pub processes: Vec<ProcessInfo>,
    pub hidden_fields: Vec<String>,
    pub warnings: Vec<Warning>,
    /// Per device index: types whose dump failed, with the reason.
    pub errors: HashMap<u32, Vec<(ResourceType, String)>>,
    /// Devices whose dumps completed (at least partly) in that round.
    pub dumped: BTreeSet<u32>,
    /// Per device index: restop's own objects seen (and left out) in that round.
    pub own: HashMap<u32, TypeCounts>,
}

/// The state one round folds objects into.
struct Round {
    acc: ObjectAccumulator,
    attribution: Attribution,
    hidden: HiddenFields,
    view: ObjectView,
}

impl<T: Transport> LiveSource<T> {
    /// Dumps every type of every device and folds the objects into a view.
    pub(super) fn object_round(&mut self, devices: &[Device], scope: DetailScope) -> ObjectView {
        let mut round = Round {
            acc: ObjectAccumulator::new(scope.clone()),
            attribution: Attribution::default(),
            hidden: HiddenFields::default(),
            view: ObjectView {
                scope,
                collected_at_ms: super::unix_ms(std::time::SystemTime::now()),
                ..ObjectView::default()
            },
        };
        self.procs.begin_tick();
        for device in devices {
            for t in DUMP_ORDER {
                if !self.dump_type(&mut round, device, t) {
                    break;
                }
            }
        }
        self.finish_round(round)
    }

    /// Dumps one type of one device into the round; false when the device is
    /// gone (its other types are not asked for).
    fn dump_type(&mut self, round: &mut Round, device: &Device, t: ResourceType) -> bool {
        let own_pid = self.options.own_pid;
        let procs = &mut self.procs;
        let Round {
            acc,
            attribution,
            hidden,
            view,
        } = round;
        let own = &mut view.own;
        let mut sink = |mut obj: Object| {
            hidden.observe(&obj);
            let owner = attribution.resolve(&obj, |tid| procs.process_of_thread(tid));
            if owner.pid() == Some(own_pid) {
                // restop's own context (and anything under it) is not a consumer.
                own.entry(obj.device())
                    .or_default()
                    .add(obj.resource_type(), 1);
                return;
            }
            obj.set_owner(owner);
            acc.add(obj);
        };
        match self.client.dump_objects(device.index, t, &mut sink) {
            Ok(_) => {
                view.dumped.insert(device.index);
                true
            }
            Err(e) if e.is_no_device() => {
                view.warnings.push(vanished(&device.name));
                false
            }
            Err(e) => {
                record_failure(view, device, t, &e);
                true
            }
        }
    }

    /// Tallies, owning processes with their cgroup quotas, and the round's
    /// warnings.
    fn finish_round(&mut self, round: Round) -> ObjectView {
        let Round {
            acc,
            hidden,
            mut view,
            ..
        } = round;
        let (tallies, objects) = acc.finish();
        view.warnings.extend(unattributed_warning(&tallies));
        let mut keys: Vec<_> = tallies
            .iter()
            .filter_map(|t| match &t.owner {
                OwnerKey::Process(key) => Some(*key),
                _ => None,
            })
            .collect();
        keys.sort();
        keys.dedup();
        view.processes = keys
            .iter()
            .map(|k| {
                self.procs
                    .info(k)
                    .cloned()
                    .unwrap_or_else(|| ProcessInfo::unknown(*k))
            })
            .collect();
        // Quota use changes as fast as objects come and go: read every round.
        self.cgroups.begin_round();
        for process in &mut view.processes {
            process.rdma_cgroup = self.cgroups.for_process(process.key.pid).map(Box::new);
        }
        view.warnings.extend(self.procs.end_tick());
        let (fields, warning) = hidden.report();
        view.hidden_fields = fields;
        view.warnings.extend(warning);
        view.tallies = tallies;
        view.objects = objects;
        view
    }
}

fn record_failure(view: &mut ObjectView, device: &Device, t: ResourceType, e: &NlError) {
    let message = e.to_string();
    view.warnings.push(Warning::new(
        WarningKind::from(e),
        format!("{} dump of {} failed: {message}", t.name(), device.name),
    ));
    view.errors
        .entry(device.index)
        .or_default()
        .push((t, message));
}

fn unattributed_warning(tallies: &[Tally]) -> Option<Warning> {
    let unattributed: u64 = tallies
        .iter()
        .filter(|t| t.owner == OwnerKey::Unattributed)
        .map(|t| t.counts.total())
        .sum();
    (unattributed > 0).then(|| {
        Warning::new(
            WarningKind::Unattributed,
            format!(
                "{unattributed} objects have no owner restop can name \
                 (creating thread exited, or created in another PID namespace)"
            ),
        )
    })
}
