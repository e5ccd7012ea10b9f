//! Phase 2: a round of object dumps of the types that are due, over every
//! device, parents first. Each entry is checked for repeats, attributed and
//! folded into per-owner tallies as it arrives; only the objects the view
//! asked for are kept. Memory does not grow with the number of objects.

use super::hidden::HiddenFields;
use super::latest_dumps::TypeDump;
use super::{LiveSource, vanished};
use crate::model::{
    DetailScope, Device, Object, ObjectAccumulator, OwnerKey, ProcessKey, ReportedOwner,
    ResourceType, Warning, WarningKind,
};
use crate::nldev::dedup::{DumpDedup, Seen};
use crate::nldev::{NlError, Transport};
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Slots of the creating-thread cache (direct-mapped by tid).
const TASK_SLOTS: usize = 16;

/// How one (device, type) dump ended.
enum DumpEnd {
    Done,
    /// Ids came out of order: read again with the exact filter.
    OutOfOrder,
    Gone,
    Failed(NlError),
}

/// What one (device, type) dump folds into.
struct DumpState {
    acc: ObjectAccumulator,
    dedup: DumpDedup,
    hidden: HiddenFields,
    own: u64,
    repeats: u64,
    out_of_order: bool,
    /// Creating threads resolved lately and their processes, by tid: an
    /// owner's objects come in runs, so this saves a lookup per object.
    tasks: [(u32, Option<ProcessKey>); TASK_SLOTS],
}

impl DumpState {
    fn new(scope: &DetailScope, dedup: DumpDedup) -> DumpState {
        DumpState {
            acc: ObjectAccumulator::new(scope.clone()),
            dedup,
            hidden: HiddenFields::default(),
            own: 0,
            repeats: 0,
            out_of_order: false,
            tasks: [(0, None); TASK_SLOTS],
        }
    }
}

impl<T: Transport> LiveSource<T> {
    /// Dumps `types` (in dump order) of every device; returns each type's
    /// dump and how long its dumps took.
    pub(super) fn object_round(
        &mut self,
        devices: &[Device],
        scope: &DetailScope,
        types: &[ResourceType],
    ) -> Vec<(ResourceType, TypeDump, Duration)> {
        self.procs.begin_tick();
        let mut gone = BTreeSet::new();
        let mut out = Vec::new();
        for &t in types {
            let started = Instant::now();
            let mut dump = TypeDump {
                collected_at_ms: crate::model::time::now(),
                ..TypeDump::default()
            };
            self.attribution.forget(t);
            for device in devices {
                if gone.contains(&device.index) {
                    continue;
                }
                if !self.dump_into(&mut dump, device, t, scope) {
                    gone.insert(device.index);
                }
            }
            out.push((t, dump, started.elapsed()));
        }
        out
    }

    /// One (device, type) dump into `dump`, read again with the exact
    /// filter if its ids came out of order; false when the device is gone.
    fn dump_into(
        &mut self,
        dump: &mut TypeDump,
        device: &Device,
        t: ResourceType,
        scope: &DetailScope,
    ) -> bool {
        let mut state = DumpState::new(scope, DumpDedup::ordered());
        let mut end = self.dump_once(&mut state, device.index, t);
        if matches!(end, DumpEnd::OutOfOrder) {
            dump.warnings.push(Warning::new(
                WarningKind::Other,
                format!(
                    "{} dump of {} was not in id order: read again, remembering every id",
                    t.name(),
                    device.name
                ),
            ));
            state = DumpState::new(scope, DumpDedup::exact());
            end = self.dump_once(&mut state, device.index, t);
        }
        match end {
            DumpEnd::Done | DumpEnd::OutOfOrder => {
                dump.dumped.insert(device.index);
                let (tallies, objects) = state.acc.finish();
                dump.tallies.extend(tallies);
                dump.objects.extend(objects);
                dump.hidden.absorb(&state.hidden);
                if state.own > 0 {
                    dump.own.insert(device.index, state.own);
                }
                true
            }
            DumpEnd::Gone => {
                dump.warnings.push(vanished(&device.name));
                false
            }
            DumpEnd::Failed(e) => {
                let message = e.to_string();
                dump.warnings.push(Warning::new(
                    WarningKind::from(&e),
                    format!("{} dump of {} failed: {message}", t.name(), device.name),
                ));
                dump.errors.insert(device.index, message);
                true
            }
        }
    }

    /// Reads one dump through `state`'s filter.
    fn dump_once(&mut self, state: &mut DumpState, device: u32, t: ResourceType) -> DumpEnd {
        let own_pid = self.options.own_pid;
        let verbs_thread = self.verbs_thread.load(Ordering::SeqCst);
        let procs = &mut self.procs;
        let attribution = &mut self.attribution;
        let mut sink = |mut obj: Object| {
            if state.out_of_order {
                return;
            }
            match state.dedup.check(&obj) {
                Seen::New => {}
                Seen::Repeat => {
                    state.repeats += 1;
                    return;
                }
                Seen::OutOfOrder => {
                    state.out_of_order = true;
                    return;
                }
            }
            state.hidden.observe(&obj);
            if verbs_thread != 0 && *obj.reported() == ReportedOwner::Task(verbs_thread) {
                // restop's libibverbs thread opened it; the thread may have ended
                // before its id could be looked up, so it is known by its id.
                state.own += 1;
                return;
            }
            let owner = match cached_process(&state.tasks, &obj) {
                Some(key) => OwnerKey::Process(key),
                None => {
                    let owner = attribution.resolve(&obj, |tid| procs.process_of_thread(tid));
                    if let (ReportedOwner::Task(tid), OwnerKey::Process(key)) =
                        (obj.reported(), &owner)
                        && let Some(slot) = state.tasks.get_mut(task_slot(*tid))
                    {
                        *slot = (*tid, Some(*key));
                    }
                    owner
                }
            };
            if owner.pid() == Some(own_pid) {
                // restop's own context (and anything under it) is not a consumer.
                state.own += 1;
                return;
            }
            obj.set_owner(owner);
            state.acc.add(obj);
        };
        match self.client.dump_objects(device, t, &mut sink) {
            Ok(_) if state.out_of_order => DumpEnd::OutOfOrder,
            Ok(_) => DumpEnd::Done,
            Err(e) if e.is_no_device() => DumpEnd::Gone,
            Err(e) => DumpEnd::Failed(e),
        }
    }
}

fn task_slot(tid: u32) -> usize {
    tid as usize % TASK_SLOTS
}

/// The process of `obj`'s creating thread when it was resolved lately and
/// `obj` is no parent (parents must be remembered by the attribution).
#[inline]
fn cached_process(tasks: &[(u32, Option<ProcessKey>)], obj: &Object) -> Option<ProcessKey> {
    if matches!(obj, Object::Ctx(_) | Object::Pd(_) | Object::Qp(_)) {
        return None;
    }
    match obj.reported() {
        ReportedOwner::Task(tid) => match tasks.get(task_slot(*tid)) {
            Some((t, key)) if t == tid => *key,
            _ => None,
        },
        _ => None,
    }
}
