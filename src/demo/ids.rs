//! Object ids, allocated per device the way the kernel does.
//!
//! restrack gives CQs, MRs, PDs, CM_IDs, CTXs and SRQs software ids from a
//! cyclic allocator (`xa_alloc_cyclic`): they start at 0 and keep rising, so a
//! freed id is not handed out again soon. QP numbers come from the hardware;
//! on mlx5 they rise with small gaps above a reserved range.

use super::rng::Rng;
use crate::model::ResourceType;

/// First user-visible hardware QPN on the simulated ConnectX.
const FIRST_QPN: u32 = 0x108;

/// mlx5 QPNs are 24 bits wide.
const QPN_MASK: u32 = 0x00ff_ffff;

#[derive(Clone, Debug)]
pub(super) struct DeviceIds {
    next_qpn: u32,
    /// Next software id per type, indexed like `ResourceType::ALL`.
    next: [u32; 7],
    /// Next mkey index for MR keys.
    next_mkey: u32,
}

impl Default for DeviceIds {
    fn default() -> Self {
        DeviceIds {
            next_qpn: FIRST_QPN,
            next: [0; 7],
            next_mkey: 0x1_000,
        }
    }
}

impl DeviceIds {
    /// A fresh hardware QP number, unique on the device for the demo's lifetime
    /// (2^24 QPNs at a few per second outlast any session).
    pub(super) fn qpn(&mut self, rng: &mut Rng) -> u32 {
        let qpn = self.next_qpn;
        self.next_qpn = (self.next_qpn + 1 + rng.below(3) as u32) & QPN_MASK;
        if self.next_qpn < FIRST_QPN {
            self.next_qpn = FIRST_QPN;
        }
        qpn
    }

    /// The next software id for a type (`Qp` is never asked: see [`DeviceIds::qpn`]).
    pub(super) fn next(&mut self, t: ResourceType) -> u32 {
        let slot = ResourceType::ALL
            .iter()
            .position(|x| *x == t)
            .unwrap_or_default();
        let id = self.next[slot];
        self.next[slot] = id.wrapping_add(1);
        id
    }

    /// An mlx5-style memory key: mkey index in the upper 24 bits, a variant
    /// byte below.
    pub(super) fn mkey(&mut self, rng: &mut Rng) -> u32 {
        let index = self.next_mkey & QPN_MASK;
        self.next_mkey = self.next_mkey.wrapping_add(1);
        (index << 8) | (rng.below(256) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_ids_count_up_per_type() {
        let mut ids = DeviceIds::default();
        assert_eq!(ids.next(ResourceType::Mr), 0);
        assert_eq!(ids.next(ResourceType::Mr), 1);
        assert_eq!(ids.next(ResourceType::Pd), 0);
    }

    #[test]
    fn qpns_rise_and_never_repeat() {
        let mut ids = DeviceIds::default();
        let mut rng = Rng::new(1);
        let mut last = 0;
        for _ in 0..1_000 {
            let q = ids.qpn(&mut rng);
            assert!(q > last);
            last = q;
        }
    }
}
