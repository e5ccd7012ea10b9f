//! The netdevs of the simulated host's RoCE ports: sysfs `statistics/` and
//! `carrier_changes`, the standard pause group and mlx5's `ethtool -S`
//! names, as pure functions of simulated time (like `counter_traffic.rs`).
//!
//! What happens: the PF `mlx5_0` (`ens1f0np0`) goes through a PFC pause
//! storm on priority 3 (the RoCE class) for 60 s every 10 minutes, 150 s
//! in: its peer sends ~30,000 pause frames a second, and for the storm's
//! first 15 s the PHY discards packets (`rx_discards_phy`) before the pause
//! takes hold. Its link flap at 45 s (`counter_traffic.rs`) counts two carrier
//! changes. VFs have no PHY counters (mlx5 keeps those on the PF's uplink).

use super::clock::{SimMs, unix_ms};
use super::counter_traffic::{
    FLAP_AT_S, FLAP_DEVICE, FLAP_PERIOD_S, events_elapsed, windows_elapsed,
};
use super::host::MLX5_0;
use crate::model::counters::netdev::{NetdevRead, PAUSE_RX, PAUSE_TX};
use std::collections::BTreeMap;

pub(super) const PFC_DEVICE: u32 = MLX5_0;
pub(super) const PFC_START_S: f64 = 150.0;
pub(super) const PFC_PERIOD_S: f64 = 600.0;
pub(super) const PFC_LEN_S: f64 = 60.0;
const PFC_RX_PER_S: f64 = 30_000.0;
const DISCARD_LEN_S: f64 = 15.0;
const DISCARDS_PER_S: f64 = 150.0;

/// One read of `device`'s netdev at `at`; `pf` says whether it has the
/// PHY counters.
pub(super) fn read(device: u32, pf: bool, at: SimMs) -> NetdevRead {
    let t = at as f64 / 1000.0;
    let mut stats = BTreeMap::new();
    let put = |m: &mut BTreeMap<String, u64>, k: &str, v: f64| {
        m.insert(k.to_string(), v.max(0.0).floor() as u64);
    };
    // RoCE traffic bypasses the netdev; what the kernel stack sends is small.
    let slow = 1.0 + f64::from(device);
    put(&mut stats, "rx_packets", 1_200.0 * slow * t + 9e6);
    put(&mut stats, "tx_packets", 1_100.0 * slow * t + 8e6);
    put(&mut stats, "rx_bytes", 1_200.0 * 900.0 * slow * t + 8e9);
    put(&mut stats, "tx_bytes", 1_100.0 * 700.0 * slow * t + 6e9);
    for k in ["rx_errors", "tx_errors", "rx_crc_errors", "tx_dropped"] {
        put(&mut stats, k, 0.0);
    }
    put(&mut stats, "rx_dropped", 12.0);
    let flaps = if device == FLAP_DEVICE {
        events_elapsed(t, FLAP_AT_S, FLAP_PERIOD_S)
    } else {
        0
    };
    let mut standard = BTreeMap::new();
    let mut driver = BTreeMap::new();
    if pf {
        let storm = if device == PFC_DEVICE {
            windows_elapsed(t, PFC_START_S, PFC_PERIOD_S, PFC_LEN_S)
        } else {
            0.0
        };
        let discarding = if device == PFC_DEVICE {
            windows_elapsed(t, PFC_START_S, PFC_PERIOD_S, DISCARD_LEN_S)
        } else {
            0.0
        };
        // Pause frames counted before the demo began; none between storms.
        let rx3 = 4_000.0 + PFC_RX_PER_S * storm;
        let tx3 = 900.0;
        for p in 0..8 {
            let (rx, tx) = if p == 3 { (rx3, tx3) } else { (0.0, 0.0) };
            put(&mut driver, &format!("rx_prio{p}_pause"), rx);
            put(&mut driver, &format!("tx_prio{p}_pause"), tx);
        }
        put(&mut driver, "rx_pause_ctrl_phy", rx3);
        put(&mut driver, "tx_pause_ctrl_phy", tx3);
        put(
            &mut driver,
            "rx_discards_phy",
            31.0 + DISCARDS_PER_S * discarding,
        );
        put(&mut driver, "tx_discards_phy", 0.0);
        put(&mut driver, "rx_out_of_buffer", 0.0);
        put(&mut standard, PAUSE_RX, rx3);
        put(&mut standard, PAUSE_TX, tx3);
        put(&mut standard, "eth-mac.FrameCheckSequenceErrors", 2.0);
        put(&mut standard, "eth-mac.FramesReceivedOK", 3.1e6 * t + 5e12);
        put(
            &mut standard,
            "eth-mac.FramesTransmittedOK",
            2.9e6 * t + 5e12,
        );
    } else {
        put(&mut driver, "rx_packets", 1_200.0 * slow * t + 9e6);
        put(&mut driver, "tx_packets", 1_100.0 * slow * t + 8e6);
    }
    NetdevRead {
        at_ms: unix_ms(at),
        stats,
        // Up once at boot, then two per flap.
        carrier_changes: Some(1 + 2 * flaps),
        standard,
        driver,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::counters::netdev::{NetdevCounters, Priority};

    fn counters(device: u32, pf: bool, from: SimMs, to: SimMs) -> NetdevCounters {
        NetdevCounters {
            name: "ens1f0np0".into(),
            ifindex: Some(4),
            read: read(device, pf, to),
            previous: Some(read(device, pf, from)),
            notes: Vec::new(),
        }
    }

    #[test]
    fn the_pfc_storm_pauses_priority_3_and_discards_at_its_start() {
        let h = counters(PFC_DEVICE, true, 152_000, 154_000)
            .health()
            .unwrap();
        assert!(h.rx_pause_per_s > 25_000.0, "{h:?}");
        assert!(h.pause.iter().any(|(p, _, _)| *p == Priority::Pfc(3)));
        assert_eq!(h.discards.len(), 1);
        let late = counters(PFC_DEVICE, true, 200_000, 202_000)
            .health()
            .unwrap();
        assert!(late.rx_pause_per_s > 25_000.0);
        assert!(late.discards.is_empty());
        let calm = counters(PFC_DEVICE, true, 100_000, 102_000)
            .health()
            .unwrap();
        assert!(calm.is_quiet(), "{calm:?}");
    }

    #[test]
    fn the_flap_counts_two_carrier_changes_and_vfs_have_no_phy_counters() {
        let h = counters(FLAP_DEVICE, true, 44_000, 46_000)
            .health()
            .unwrap();
        assert_eq!(h.carrier_changes, 2);
        let vf = read(3, false, 1_000);
        assert!(vf.pause().is_empty());
        assert!(vf.driver_discards().is_empty());
    }
}
