//! Taking a snapshot into the history: device and owner series, objects
//! left behind by exited processes, and the bounds on what is kept.

use super::alerts::Unreleased;
use super::series::Series;
use super::{DeviceTrack, History, MAX_UNRELEASED, OwnerTrack};
use crate::model::consumers::owner_label;
use crate::model::{OwnerKey, ResourceType, Snapshot, TypeCounts, UnixMs};
use std::collections::BTreeMap;

impl History {
    pub(super) fn record_devices(&mut self, snapshot: &Snapshot, t: UnixMs) {
        let (resolution, cap) = (self.config.resolution_ms(), self.config.max_points + 1);
        for d in &snapshot.devices {
            let mut counts = TypeCounts::default();
            for (ty, entry) in &d.usage.0 {
                counts.add(*ty, entry.current);
            }
            let track = self
                .devices
                .entry(d.name.clone())
                .or_insert_with(|| DeviceTrack {
                    series: Series::default(),
                    last_seen_ms: t,
                });
            track.series.record(t, counts, resolution, cap);
            track.last_seen_ms = t;
        }
    }

    pub(super) fn record_owners(&mut self, snapshot: &Snapshot, t: UnixMs) {
        let (resolution, cap) = (self.config.resolution_ms(), self.config.max_points + 1);
        let mut totals: BTreeMap<&OwnerKey, TypeCounts> = BTreeMap::new();
        for tally in &snapshot.tallies {
            *totals.entry(&tally.owner).or_default() += &tally.counts;
        }

        self.note_unreleased(&totals, t);

        for (owner, counts) in &totals {
            let process = match owner {
                OwnerKey::Process(key) => snapshot.process(key),
                _ => None,
            };
            let name = owner_label(owner, process);
            let label = match owner {
                OwnerKey::Process(key) if name != format!("pid {}", key.pid) => {
                    format!("{name} (pid {})", key.pid)
                }
                _ => name.clone(),
            };
            let track = self
                .owners
                .entry((*owner).clone())
                .or_insert_with(|| OwnerTrack {
                    series: Series::default(),
                    label: String::new(),
                    name: String::new(),
                    present: true,
                    last_seen_ms: t,
                });
            track.series.record(t, *counts, resolution, cap);
            track.present = true;
            track.last_seen_ms = t;
            track.label = label;
            track.name = name;
        }
        // An owner missing from the tallies holds nothing: one zero point
        // marks the release, then its series just ends.
        for (owner, track) in self.owners.iter_mut() {
            if track.present && !totals.contains_key(owner) {
                track
                    .series
                    .record(t, TypeCounts::default(), resolution, cap);
                track.present = false;
            }
        }
        self.cap_owners();
    }

    /// Processes that held objects in the previous sample and none now, while
    /// the unattributed row grew in the same dump: their objects stayed.
    fn note_unreleased(&mut self, totals: &BTreeMap<&OwnerKey, TypeCounts>, t: UnixMs) {
        let unattributed = OwnerKey::Unattributed;
        let now_unattributed = totals.get(&unattributed).copied().unwrap_or_default();
        let before = self
            .owners
            .get(&unattributed)
            .filter(|o| o.present)
            .and_then(|o| o.series.last())
            .map(|p| p.counts)
            .unwrap_or_default();
        let exited: Vec<(OwnerKey, String, TypeCounts)> = self
            .owners
            .iter()
            .filter(|(k, o)| {
                matches!(k, OwnerKey::Process(_)) && o.present && !totals.contains_key(k)
            })
            .filter_map(|(k, o)| {
                o.series
                    .last()
                    .map(|p| (k.clone(), o.label.clone(), p.counts))
            })
            .collect();
        if !exited.is_empty() {
            let mut held = TypeCounts::default();
            for (_, _, counts) in &exited {
                held += counts;
            }
            let mut grown = TypeCounts::default();
            for ty in ResourceType::ALL {
                let g = now_unattributed.get(ty).saturating_sub(before.get(ty));
                grown.add(ty, g.min(held.get(ty)));
            }
            if !grown.is_empty() {
                self.unreleased.push(Unreleased {
                    owners: exited.into_iter().map(|(k, label, _)| (k, label)).collect(),
                    at_ms: t,
                    before,
                    grown,
                });
            }
        }
        self.unreleased.retain(|u| u.persists(&now_unattributed));
        let excess = self.unreleased.len().saturating_sub(MAX_UNRELEASED);
        self.unreleased.drain(..excess);
    }

    /// Keeps at most `max_owners`: owners that left go first (longest gone
    /// first), then those holding the least.
    fn cap_owners(&mut self) {
        let excess = self.owners.len().saturating_sub(self.config.max_owners);
        if excess == 0 {
            return;
        }
        let mut order: Vec<(bool, u64, UnixMs, OwnerKey)> = self
            .owners
            .iter()
            .map(|(k, o)| {
                let held = o.series.last().map(|p| p.counts.total()).unwrap_or(0);
                (o.present, held, o.last_seen_ms, k.clone())
            })
            .collect();
        order.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| if a.0 { a.1.cmp(&b.1) } else { a.2.cmp(&b.2) })
                .then_with(|| a.3.cmp(&b.3))
        });
        for (_, _, _, key) in order.into_iter().take(excess) {
            self.owners.remove(&key);
        }
    }

    pub(super) fn forget_old(&mut self, now: UnixMs) {
        let oldest = now.minus(self.config.retention_ms());
        self.owners.retain(|_, o| {
            o.series.trim(oldest);
            o.present || o.last_seen_ms >= oldest
        });
        self.devices.retain(|_, d| {
            d.series.trim(oldest);
            d.last_seen_ms >= oldest
        });
    }
}
