//! Which ports the history saw ACTIVE, and when last: a port that is not
//! ACTIVE now is a problem only when it was (a second port that was never
//! cabled is not). Bounded by the ports of the host: a port is forgotten
//! once it was last ACTIVE longer ago than the retention.

use crate::model::{PortState, Snapshot, UnixMs};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub(super) struct PortStates {
    /// Per device name and port, the latest snapshot that showed it ACTIVE.
    active: BTreeMap<(String, u32), UnixMs>,
}

impl PortStates {
    pub(super) fn observe(
        &mut self,
        snapshot: &Snapshot,
        at_ms: UnixMs,
        keep_ms: crate::model::Millis,
    ) {
        for d in &snapshot.devices {
            for p in &d.ports {
                if p.state == Some(PortState::Active) {
                    self.active.insert((d.name.clone(), p.index), at_ms);
                }
            }
        }
        let oldest = at_ms.minus(keep_ms);
        self.active.retain(|_, last| *last >= oldest);
    }

    /// Ports of `snapshot` that are not ACTIVE and were seen ACTIVE before it.
    pub(super) fn down(&self, snapshot: &Snapshot) -> Vec<(String, u32)> {
        let at = snapshot.meta.collected_at_ms;
        let mut out = Vec::new();
        for d in &snapshot.devices {
            for p in &d.ports {
                let Some(state) = p.state else { continue };
                if state == PortState::Active {
                    continue;
                }
                let key = (d.name.clone(), p.index);
                if self.active.get(&key).is_some_and(|last| *last < at) {
                    out.push(key);
                }
            }
        }
        out
    }
}
