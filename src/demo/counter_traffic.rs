//! NIC counters of the simulated host: mlx5 driver counters (the names
//! `rdma statistic show` prints on ConnectX) and the PMA counters of sysfs,
//! as pure functions of simulated time, so the same seed and step give the
//! same reads and rates.
//!
//! What happens: the PFs carry steady training and storage traffic with a
//! slow swell, the VFs less; `mlx5_1` goes through an out-of-sequence and
//! CNP storm (congestion on the storage fabric) for 90 s every 5 minutes,
//! starting 20 s in; `mlx5_0`'s link flaps once every 10 minutes, 45 s in
//! (`link_downed` and `link_error_recovery` step, traffic stalls for that
//! second, and the port is DOWN for `FLAP_DOWN_S` from then); the VF whose
//! port is down counts nothing. Each port's netdev and its PFC storm are
//! `netdev.rs`'s.

use super::clock::{SimMs, unix_ms};
use super::host::{MLX5_0, MLX5_1};
use crate::model::Device;
use crate::model::counters::netdev::NetdevCounters;
use crate::model::counters::{CounterRead, CounterSource, PortCounters, parse_link_rate_mbps};
use std::collections::BTreeMap;

/// The simulated host had been up this long at the epoch (as clock.rs).
const UPTIME_AT_EPOCH_S: f64 = ((13 * 24 + 4) * 3_600) as f64;
const LINK_RATE: &str = "200 Gb/sec (4X HDR)";

const STORM_DEVICE: u32 = MLX5_1;
pub(super) const STORM_START_S: f64 = 20.0;
pub(super) const STORM_PERIOD_S: f64 = 300.0;
pub(super) const STORM_LEN_S: f64 = 90.0;
pub(super) const FLAP_DEVICE: u32 = MLX5_0;
pub(super) const FLAP_AT_S: f64 = 45.0;
pub(super) const FLAP_PERIOD_S: f64 = 600.0;
/// How long the flapping port shows DOWN: two collections at the default 2 s.
const FLAP_DOWN_S: f64 = 4.0;

/// Bytes per second (tx, rx) a device's port carries on average.
fn traffic(device: u32) -> Option<(f64, f64)> {
    match device {
        0 => Some((11.0e9, 10.4e9)),
        1 => Some((3.1e9, 4.2e9)),
        2 => Some((0.8e9, 0.7e9)),
        3 => Some((1.5e9, 1.3e9)),
        _ => None,
    }
}

/// Errors each port had collected before the demo began: realistic, still.
const BASELINE: &[(&str, u64)] = &[
    ("duplicate_request", 41),
    ("implied_nak_seq_err", 3),
    ("local_ack_timeout_err", 17),
    ("np_cnp_sent", 2_913),
    ("np_ecn_marked_roce_packets", 2_913),
    ("out_of_buffer", 0),
    ("out_of_sequence", 1_204),
    ("packet_seq_err", 9),
    ("req_cqe_error", 2),
    ("req_remote_access_errors", 0),
    ("req_remote_invalid_request", 0),
    ("resp_cqe_error", 1),
    ("resp_local_length_error", 0),
    ("resp_remote_access_errors", 0),
    ("rnr_nak_retry_err", 0),
    ("roce_adp_retrans", 0),
    ("roce_slow_restart", 0),
    ("rp_cnp_handled", 3_310),
    ("rp_cnp_ignored", 0),
    ("rx_atomic_requests", 0),
];

/// Gives every port of `devices` its counters at `now`, with the read at
/// `previous` (the collection before) when there was one.
pub(super) fn attach(devices: &mut [Device], now: SimMs, previous: Option<SimMs>) {
    let t = now as f64 / 1000.0;
    let flapping = t >= FLAP_AT_S && (t - FLAP_AT_S) % FLAP_PERIOD_S < FLAP_DOWN_S;
    for device in devices {
        for port in &mut device.ports {
            if device.index == FLAP_DEVICE && flapping {
                port.state = Some(crate::model::PortState::Down);
            }
            let pf = device.pf.is_none();
            let netdev = port.netdev.clone().map(|name| NetdevCounters {
                name,
                ifindex: port.netdev_index,
                read: super::netdev::read(device.index, pf, now),
                previous: previous.map(|at| super::netdev::read(device.index, pf, at)),
                notes: Vec::new(),
            });
            port.counters = Some(PortCounters {
                source: Some(CounterSource::Demo),
                link_rate_mbps: parse_link_rate_mbps(LINK_RATE),
                link_rate: Some(LINK_RATE.to_string()),
                read: read(device.index, now),
                previous: previous.map(|at| read(device.index, at)),
                notes: Vec::new(),
                bound: Vec::new(),
                bound_note: None,
                netdev,
            });
        }
    }
}

/// Seconds of `len` long windows, one per `period` from `start`, up to `t`.
pub(super) fn windows_elapsed(t: f64, start: f64, period: f64, len: f64) -> f64 {
    if t <= start {
        return 0.0;
    }
    let since = t - start;
    let cycles = (since / period).floor();
    cycles * len + (since - cycles * period).min(len)
}

/// Events of a periodic event up to `t`.
pub(super) fn events_elapsed(t: f64, at: f64, period: f64) -> u64 {
    if t < at {
        0
    } else {
        ((t - at) / period).floor() as u64 + 1
    }
}

/// A cumulative amount whose rate swells ±30 % over 3 minutes: never
/// decreasing, so rates stay positive.
fn swelling(rate: f64, t: f64) -> f64 {
    let w = std::f64::consts::TAU / 180.0;
    rate * t + 0.3 * rate * (1.0 - (w * t).cos()) / w
}

fn read(device: u32, at: SimMs) -> CounterRead {
    let t = at as f64 / 1000.0;
    let up = UPTIME_AT_EPOCH_S + t;
    let mut hw: BTreeMap<String, u64> = BASELINE
        .iter()
        .map(|(k, v)| {
            // Devices differ a little in what they collected; zeros stay zero.
            let spread = if *v > 0 { u64::from(device) * 7 } else { 0 };
            (k.to_string(), *v + spread)
        })
        .collect();
    let mut pma = BTreeMap::new();
    let flaps = if device == FLAP_DEVICE {
        events_elapsed(t, FLAP_AT_S, FLAP_PERIOD_S)
    } else {
        0
    };
    let (tx, rx) = traffic(device).unwrap_or((0.0, 0.0));
    // A stalled second per flap: the link was down.
    let stalled = flaps as f64;
    let tx_bytes = swelling(tx, up) - tx * stalled;
    let rx_bytes = swelling(rx, up) - rx * stalled;
    let mtu = 4_096.0;
    let put = |m: &mut BTreeMap<String, u64>, k: &str, v: f64| {
        m.insert(k.to_string(), v.max(0.0).floor() as u64);
    };
    put(&mut pma, "port_xmit_data", tx_bytes / 4.0);
    put(&mut pma, "port_rcv_data", rx_bytes / 4.0);
    put(&mut pma, "port_xmit_packets", tx_bytes / mtu);
    put(&mut pma, "port_rcv_packets", rx_bytes / mtu);
    put(&mut pma, "unicast_xmit_packets", tx_bytes / mtu);
    put(&mut pma, "unicast_rcv_packets", rx_bytes / mtu);
    put(&mut pma, "multicast_xmit_packets", 0.0);
    put(&mut pma, "multicast_rcv_packets", up / 30.0);
    put(&mut pma, "port_xmit_wait", tx_bytes / 2.0e6);
    for k in [
        "symbol_error",
        "port_rcv_errors",
        "port_xmit_discards",
        "port_rcv_remote_physical_errors",
        "excessive_buffer_overrun_errors",
        "VL15_dropped",
    ] {
        put(&mut pma, k, 0.0);
    }
    put(&mut pma, "link_downed", 1.0 + flaps as f64);
    put(&mut pma, "link_error_recovery", flaps as f64);
    put(&mut hw, "rx_write_requests", rx_bytes / 65_536.0);
    put(&mut hw, "rx_read_requests", rx_bytes / 1_048_576.0);
    if device == STORM_DEVICE {
        let storm = windows_elapsed(t, STORM_START_S, STORM_PERIOD_S, STORM_LEN_S);
        for (k, per_s) in [
            ("out_of_sequence", 180.0),
            ("packet_seq_err", 3.0),
            ("np_cnp_sent", 4_200.0),
            ("np_ecn_marked_roce_packets", 4_200.0),
            ("rp_cnp_handled", 3_900.0),
        ] {
            let base = hw.get(k).copied().unwrap_or(0) as f64;
            put(&mut hw, k, base + per_s * storm);
        }
    }
    CounterRead {
        at_ms: unix_ms(at),
        hw,
        pma,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::counters::rates_between;

    #[test]
    fn the_storm_port_moves_out_of_sequence_and_cnps_only_during_the_storm() {
        let before = read(STORM_DEVICE, 30_000);
        let during = read(STORM_DEVICE, 32_000);
        let r = rates_between(&before, &during);
        assert_eq!(r.get("out_of_sequence"), Some(180.0));
        assert_eq!(r.get("np_cnp_sent"), Some(4_200.0));
        let calm = rates_between(&read(STORM_DEVICE, 200_000), &read(STORM_DEVICE, 202_000));
        assert_eq!(calm.get("out_of_sequence"), Some(0.0));
        let healthy = rates_between(&read(MLX5_0, 30_000), &read(MLX5_0, 32_000));
        assert_eq!(healthy.get("out_of_sequence"), Some(0.0));
    }

    #[test]
    fn the_link_flap_steps_link_downed_once() {
        let r = rates_between(&read(FLAP_DEVICE, 44_000), &read(FLAP_DEVICE, 46_000));
        assert_eq!(r.get("link_downed"), Some(0.5));
        let r = rates_between(&read(FLAP_DEVICE, 46_000), &read(FLAP_DEVICE, 48_000));
        assert_eq!(r.get("link_downed"), Some(0.0));
    }

    #[test]
    fn traffic_never_goes_backwards_and_the_down_port_is_silent() {
        for device in 0..5 {
            let mut last = read(device, 0);
            for at in (2_000..1_300_000).step_by(2_000) {
                let now = read(device, at);
                let r = rates_between(&last, &now);
                assert!(
                    r.resets.is_empty(),
                    "device {device} at {at}: {:?}",
                    r.resets
                );
                last = now;
            }
        }
        let r = rates_between(&read(4, 0), &read(4, 2_000));
        assert_eq!(r.get("port_xmit_data"), Some(0.0));
    }
}
