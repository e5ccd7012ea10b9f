//! Repeated entries in a dump, found in constant memory.
//!
//! A dump has no consistent cursor: the kernel resumes each reply message by
//! walking its restrack table from the start and skipping the number of
//! entries it already sent. When an object with a lower id is created
//! between two messages, the skip lands one entry early and an entry is sent
//! again. The walk is in id order (an xarray), so such a repeat always shows
//! as an id that does not increase, and only the last id of the dump has to
//! be remembered ([`DumpDedup::Ordered`]).
//!
//! Should the order ever break (another kernel walk, a driver of its own), an
//! id that does not increase could be a new object. A repeat caused by the
//! skip is one of the few ids just sent, so the ordered filter also keeps
//! the last [`RECENT`] ids: a lower id that is not among them means the order
//! broke, and the dump must be read again with [`DumpDedup::exact`], which
//! remembers every id (memory grows with the dump, on that path only).

use crate::model::{Object, QpType};
use rustc_hash::FxHashSet;

/// How many of the latest ids the ordered filter keeps to tell a repeat from
/// a broken order: more than the objects created between two reply messages
/// in any realistic churn.
pub(crate) const RECENT: usize = 64;

/// What the filter says about one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// First time in this dump: count it.
    New,
    /// Sent before in this dump: drop it.
    Repeat,
    /// An id lower than the last one that was not sent just before: the
    /// dump is not in id order, so nothing of it can be trusted; read it
    /// again with the exact filter.
    OutOfOrder,
}

/// The repeat filter of one (device, type) dump. The ordered filter is the
/// larger variant on purpose: it lives on the stack, once per dump.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum DumpDedup {
    /// The kernel's id-ordered walk: O(1) memory.
    Ordered {
        last: Option<u64>,
        recent: [u64; RECENT],
        /// Ids written to `recent` so far (it is a ring).
        written: usize,
    },
    /// Every id seen: the fallback when the order broke.
    Exact(FxHashSet<u64>),
}

impl Default for DumpDedup {
    fn default() -> Self {
        DumpDedup::ordered()
    }
}

impl DumpDedup {
    pub(crate) fn ordered() -> DumpDedup {
        DumpDedup::Ordered {
            last: None,
            recent: [0; RECENT],
            written: 0,
        }
    }

    pub(crate) fn exact() -> DumpDedup {
        DumpDedup::Exact(FxHashSet::default())
    }

    /// Classifies one object. Objects without an id (kernel contexts) are
    /// always new: the kernel sends each once and nothing can repeat them.
    #[inline]
    pub(crate) fn check(&mut self, obj: &Object) -> Seen {
        match walk_key(obj) {
            Some(key) => self.check_key(key),
            None => Seen::New,
        }
    }

    /// Classifies one id.
    #[inline]
    pub(crate) fn check_key(&mut self, key: u64) -> Seen {
        match self {
            DumpDedup::Ordered {
                last,
                recent,
                written,
            } => {
                if last.is_none_or(|l| key > l) {
                    *last = Some(key);
                    if let Some(slot) = recent.get_mut(*written % RECENT) {
                        *slot = key;
                    }
                    *written += 1;
                    Seen::New
                } else if recent.iter().take(*written).any(|&r| r == key) {
                    Seen::Repeat
                } else {
                    Seen::OutOfOrder
                }
            }
            DumpDedup::Exact(seen) => {
                if seen.insert(key) {
                    Seen::New
                } else {
                    Seen::Repeat
                }
            }
        }
    }
}

/// The id the kernel's table is ordered by. For QPs that is the QP number,
/// except the special QP0/QP1, which exist once per port and are filed
/// under `qpn | port << 24` (`rdma_restrack_add`).
pub(crate) fn walk_key(obj: &Object) -> Option<u64> {
    match obj {
        Object::Qp(qp) => {
            let special = matches!(qp.qp_type, QpType::Smi | QpType::Gsi) || qp.lqpn < 2;
            let port = if special { qp.port.unwrap_or(0) } else { 0 };
            Some(u64::from(qp.lqpn) | (u64::from(port) << 24))
        }
        other => other.id().map(u64::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increasing_ids_are_new_and_a_resent_one_is_a_repeat() {
        let mut d = DumpDedup::ordered();
        assert_eq!(d.check_key(1), Seen::New);
        assert_eq!(d.check_key(2), Seen::New);
        assert_eq!(d.check_key(5), Seen::New);
        // The next message started one entry early.
        assert_eq!(d.check_key(5), Seen::Repeat);
        assert_eq!(d.check_key(2), Seen::Repeat);
        assert_eq!(d.check_key(6), Seen::New);
    }

    #[test]
    fn a_lower_id_not_just_sent_means_the_order_broke() {
        let mut d = DumpDedup::ordered();
        for id in 100..100 + RECENT as u64 + 10 {
            assert_eq!(d.check_key(id), Seen::New);
        }
        assert_eq!(d.check_key(100), Seen::OutOfOrder, "older than the ring");
        assert_eq!(d.check_key(3), Seen::OutOfOrder, "never sent");
        let newest = 100 + RECENT as u64 + 9;
        assert_eq!(d.check_key(newest - 1), Seen::Repeat);
    }

    #[test]
    fn a_first_lower_id_before_the_ring_fills_is_out_of_order() {
        let mut d = DumpDedup::ordered();
        assert_eq!(d.check_key(7), Seen::New);
        assert_eq!(d.check_key(0), Seen::OutOfOrder);
    }

    #[test]
    fn exact_counts_each_id_once_in_any_order() {
        let mut d = DumpDedup::exact();
        let seen: Vec<Seen> = [9, 3, 7, 3, 1, 9].iter().map(|&i| d.check_key(i)).collect();
        assert_eq!(
            seen,
            [
                Seen::New,
                Seen::New,
                Seen::New,
                Seen::Repeat,
                Seen::New,
                Seen::Repeat
            ]
        );
    }
}
