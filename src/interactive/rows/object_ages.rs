//! How old the objects of a drill-down are: each object's first sighting
//! while the drill-down watched its owner (`AGE`), and the oldest of each
//! type for the total line ("218 QPs, all INIT: never connected, oldest
//! ≥ 35m"). Objects already there when watching began are at least as old
//! as the watch (`≥`): restop cannot know when the kernel created them.

use crate::interactive::widgets::table::RowId;
use crate::model::{Millis, ResourceType, UnixMs};
use std::collections::BTreeMap;

type Key = (ResourceType, RowId);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectAges {
    /// First sighting and whether it was there when watching began.
    first_seen: BTreeMap<Key, (UnixMs, bool)>,
    /// The first snapshot with this owner's objects in full.
    watch_start: Option<UnixMs>,
    /// Per type, since when the history says the oldest object existed.
    vouched: BTreeMap<ResourceType, UnixMs>,
}

/// One object's age: how long it has been seen, and whether it was there
/// when watching began (so older still).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Age {
    pub ms: Millis,
    pub lower_bound: bool,
}

impl ObjectAges {
    /// Takes in the objects listed in a snapshot taken at `at` (with the
    /// owner's objects in full); objects gone are forgotten.
    pub fn observe(&mut self, at: UnixMs, objects: impl IntoIterator<Item = Key>) {
        self.observe_since(at, objects, |_| Millis::ZERO);
    }

    /// The same, where the owner's count history already vouches that the
    /// objects of type `t` there when watching began have existed for
    /// `vouched(t)` (its count never fell over that span).
    pub fn observe_since(
        &mut self,
        at: UnixMs,
        objects: impl IntoIterator<Item = Key>,
        vouched: impl Fn(ResourceType) -> Millis,
    ) {
        let start = *self.watch_start.get_or_insert(at);
        let mut next = BTreeMap::new();
        for key in objects {
            let seen = self
                .first_seen
                .get(&key)
                .copied()
                .unwrap_or((at, at == start));
            if at == start {
                // Which objects the history vouches for is unknown: only
                // the oldest of the type is known to be that old.
                let span = vouched(key.0);
                if span > Millis::ZERO {
                    self.vouched.insert(key.0, start.minus(span));
                }
            }
            next.insert(key, seen);
        }
        self.first_seen = next;
    }

    pub fn age(&self, t: ResourceType, id: RowId, at: UnixMs) -> Option<Age> {
        let (first, lower_bound) = self.first_seen.get(&(t, id))?;
        Some(Age {
            ms: at.since(*first),
            lower_bound: *lower_bound,
        })
    }

    /// The oldest listed object of type `t`.
    pub fn oldest(&self, t: ResourceType, at: UnixMs) -> Option<Age> {
        let (first, lower_bound) = self
            .first_seen
            .iter()
            .filter(|((ty, _), _)| *ty == t)
            .map(|(_, seen)| *seen)
            .min_by_key(|(first, _)| *first)?;
        // An object there from the start may be the one the history vouches for.
        let first = match self.vouched.get(&t) {
            Some(v) if lower_bound => first.min(*v),
            _ => first,
        };
        Some(Age {
            ms: at.since(first),
            lower_bound,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const QP: ResourceType = ResourceType::Qp;

    #[test]
    fn objects_there_from_the_start_are_at_least_as_old_as_the_watch() {
        let mut ages = ObjectAges::default();
        ages.observe(UnixMs(1_000), [(QP, (0, 1))]);
        ages.observe(UnixMs(5_000), [(QP, (0, 1)), (QP, (0, 2))]);
        let at = UnixMs(65_000);
        ages.observe(at, [(QP, (0, 1)), (QP, (0, 2))]);
        assert_eq!(
            ages.age(QP, (0, 1), at),
            Some(Age {
                ms: Millis(64_000),
                lower_bound: true
            })
        );
        assert_eq!(
            ages.age(QP, (0, 2), at),
            Some(Age {
                ms: Millis(60_000),
                lower_bound: false
            })
        );
        assert_eq!(ages.oldest(QP, at).map(|a| a.ms), Some(Millis(64_000)));
    }

    #[test]
    fn a_count_that_never_fell_vouches_for_the_first_objects() {
        let mut ages = ObjectAges::default();
        ages.observe_since(UnixMs(600_000), [(QP, (0, 1)), (QP, (0, 2))], |_| {
            Millis(300_000)
        });
        let age = ages.oldest(QP, UnixMs(600_000)).unwrap();
        assert_eq!((age.ms, age.lower_bound), (Millis(300_000), true));
        // Which one it is nobody knows: each object's own age starts at the watch.
        let one = ages.age(QP, (0, 2), UnixMs(600_000)).unwrap();
        assert_eq!((one.ms, one.lower_bound), (Millis::ZERO, true));
    }

    #[test]
    fn objects_that_went_away_are_forgotten() {
        let mut ages = ObjectAges::default();
        ages.observe(UnixMs(1_000), [(QP, (0, 1))]);
        ages.observe(UnixMs(2_000), []);
        ages.observe(UnixMs(3_000), [(QP, (0, 1))]);
        assert_eq!(
            ages.age(QP, (0, 1), UnixMs(3_000)).map(|a| a.lower_bound),
            Some(false)
        );
    }
}
