//! The netdev side of a RoCE port: the Ethernet counters where the first
//! RoCE pathologies show (PFC pause storms, discards at the PHY, flapping
//! links), read next to the port's RDMA counters.
//!
//! A read keeps every counter under the name its source gives it
//! (`/sys/class/net/<netdev>/statistics/` files, the standard ethtool groups
//! as `group.Name`, the driver's `ethtool -S` names), as the port counters
//! do; this file is the one reading of them: which names are pause frames
//! of which priority, which are discards and errors, and what rose since
//! the previous read. The TUI, `--once`, `--json`, the exporter and the
//! problems rules all take that reading from here.

use super::Direction;
use super::rates::{interval_between, per_second};
use crate::model::UnixMs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One read of a netdev's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetdevRead {
    pub at_ms: UnixMs,
    /// `/sys/class/net/<netdev>/statistics/`, by file name.
    #[serde(default)]
    pub stats: BTreeMap<String, u64>,
    /// `/sys/class/net/<netdev>/carrier_changes`: link up/down transitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_changes: Option<u64>,
    /// The kernel's standard ethtool statistics (ethtool netlink): the pause
    /// group as `pause.tx_frames`/`pause.rx_frames`, the IEEE groups as
    /// `eth-mac.<name>`, `eth-ctrl.<name>`, `rmon.<name>` (`ethtool -S
    /// --groups` names).
    #[serde(default)]
    pub standard: BTreeMap<String, u64>,
    /// The driver's named statistics (`ethtool -S`, `ETHTOOL_GSTATS`).
    #[serde(default)]
    pub driver: BTreeMap<String, u64>,
}

/// A port's netdev in one snapshot: its latest read and the one before.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetdevCounters {
    /// The netdev's name (`eth0`, `enp59s0f0np0`).
    pub name: String,
    pub ifindex: Option<u32>,
    pub read: NetdevRead,
    /// The previous read of the same netdev, if any.
    #[serde(default)]
    pub previous: Option<NetdevRead>,
    /// What could not be read (no driver statistics, no pause statistics),
    /// in words: "not available", never an error.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Which pause frames a count is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// 802.3x pause for the whole link.
    Global,
    /// PFC (802.1Qbb) pause of one priority, 0..=7.
    Pfc(u8),
}

impl Priority {
    /// The exporter's `priority` label: `global` or the number.
    pub fn label(self) -> String {
        match self {
            Priority::Global => "global".to_string(),
            Priority::Pfc(p) => p.to_string(),
        }
    }
}

/// A pause counter total.
#[derive(Clone, Debug, PartialEq)]
pub struct PauseCount {
    pub direction: Direction,
    pub priority: Priority,
    pub frames: u64,
    /// The counter it was read from.
    pub counter: String,
}

/// The standard pause group's names in [`NetdevRead::standard`].
pub(crate) const PAUSE_TX: &str = "pause.tx_frames";
pub(crate) const PAUSE_RX: &str = "pause.rx_frames";

/// Which driver names count pause frames: mlx5's `rx_prio3_pause`,
/// `tx_prio3_pause` per priority and `rx_pause_ctrl_phy`,
/// `tx_pause_ctrl_phy` for the link.
fn driver_pause(name: &str) -> Option<(Direction, Priority)> {
    let (direction, rest) = if let Some(r) = name.strip_prefix("rx_") {
        (Direction::Rx, r)
    } else if let Some(r) = name.strip_prefix("tx_") {
        (Direction::Tx, r)
    } else {
        return None;
    };
    if rest == "pause_ctrl_phy" {
        return Some((direction, Priority::Global));
    }
    let digits = rest.strip_prefix("prio")?.strip_suffix("_pause")?;
    let p: u8 = digits.parse().ok()?;
    (p <= 7 && digits.len() == 1).then_some((direction, Priority::Pfc(p)))
}

/// Discards and drops: the packets the port or the host threw away. The
/// sysfs files, and the driver's PHY-level counters (mlx5's
/// `rx_discards_phy`: dropped for lack of receive buffer, the classic
/// lossless-RoCE misconfiguration).
pub(crate) fn is_discard(name: &str) -> bool {
    matches!(name, "rx_dropped" | "tx_dropped" | "rx_missed_errors")
        || name.contains("discard")
        || name == "rx_out_of_buffer"
}

/// Errors: sysfs `*_errors` other than the drops, the standard MAC group's
/// error counters and RMON's malformed frames.
fn is_error(source: Source, name: &str) -> bool {
    match source {
        Source::Sysfs => name.ends_with("_errors") && !is_discard(name),
        Source::Standard => {
            name.starts_with("eth-mac.")
                && (name.contains("Error") || name.contains("Lost") || name.contains("OutOfRange"))
                || matches!(
                    name,
                    "rmon.etherStatsUndersizePkts"
                        | "rmon.etherStatsOversizePkts"
                        | "rmon.etherStatsFragments"
                        | "rmon.etherStatsJabbers"
                )
        }
        Source::Driver => false,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Sysfs,
    Standard,
    Driver,
}

impl NetdevRead {
    /// Every pause counter of the read: per priority from the driver, the
    /// link's from the standard pause group (or the driver where the kernel
    /// has no pause statistics for it).
    pub fn pause(&self) -> Vec<PauseCount> {
        let mut out: Vec<PauseCount> = self
            .driver
            .iter()
            .filter_map(|(name, &frames)| {
                let (direction, priority) = driver_pause(name)?;
                Some(PauseCount {
                    direction,
                    priority,
                    frames,
                    counter: name.clone(),
                })
            })
            .collect();
        for (name, direction) in [(PAUSE_TX, Direction::Tx), (PAUSE_RX, Direction::Rx)] {
            let Some(&frames) = self.standard.get(name) else {
                continue;
            };
            // The standard group is the kernel's own reading: it wins.
            out.retain(|c| !(c.direction == direction && c.priority == Priority::Global));
            out.push(PauseCount {
                direction,
                priority: Priority::Global,
                frames,
                counter: name.to_string(),
            });
        }
        out.sort_by_key(|c| (c.priority, c.direction == Direction::Tx));
        out
    }

    /// The driver's discard counters (those node_exporter does not have).
    pub fn driver_discards(&self) -> Vec<(Direction, &str, u64)> {
        self.driver
            .iter()
            .filter(|(name, _)| is_discard(name))
            .map(|(name, &v)| {
                let direction = if name.starts_with("tx") {
                    Direction::Tx
                } else {
                    Direction::Rx
                };
                (direction, name.as_str(), v)
            })
            .collect()
    }
}

/// What moved on a netdev between two reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetdevHealth {
    pub interval_s: f64,
    /// Pause frames per second by priority and direction (only those that moved).
    pub pause: Vec<(Priority, Direction, f64)>,
    /// Pause frames received per second, every priority together: what the
    /// peer asks this port to stop sending.
    pub rx_pause_per_s: f64,
    pub tx_pause_per_s: f64,
    /// Discard and drop counters that rose, with their rate.
    pub discards: Vec<(String, f64)>,
    /// Error counters that rose, with their rate.
    pub errors: Vec<(String, f64)>,
    /// Carrier changes since the previous read (link flaps count two).
    pub carrier_changes: u64,
    /// Counters that went down (driver reload): no rate for them.
    pub resets: Vec<String>,
}

impl NetdevHealth {
    /// Nothing moved that a person should look at.
    pub fn is_quiet(&self) -> bool {
        self.pause.is_empty()
            && self.discards.is_empty()
            && self.errors.is_empty()
            && self.carrier_changes == 0
    }

    /// A few words for a table cell: `pause 12k/s p3`, `discards`, `flap`.
    pub fn words(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.rx_pause_per_s > 0.0 || self.tx_pause_per_s > 0.0 {
            let worst = self
                .pause
                .iter()
                .max_by(|a, b| a.2.total_cmp(&b.2))
                .map(|(p, _, _)| match p {
                    Priority::Global => String::new(),
                    Priority::Pfc(n) => format!(" p{n}"),
                })
                .unwrap_or_default();
            let total = self.rx_pause_per_s + self.tx_pause_per_s;
            out.push(format!(
                "pause {}/s{worst}",
                crate::units::count(total.round() as u64)
            ));
        }
        if !self.discards.is_empty() {
            out.push("discards".to_string());
        }
        if !self.errors.is_empty() {
            out.push("errors".to_string());
        }
        if self.carrier_changes > 0 {
            out.push("flap".to_string());
        }
        out
    }
}

impl NetdevCounters {
    /// What moved since the previous read; `None` on the first read or
    /// when the two reads cannot be compared.
    pub fn health(&self) -> Option<NetdevHealth> {
        let prev = self.previous.as_ref()?;
        let cur = &self.read;
        let interval_s = interval_between(prev.at_ms, cur.at_ms).ok()?;
        let mut out = NetdevHealth {
            interval_s,
            ..NetdevHealth::default()
        };
        let mut rates = BTreeMap::new();
        for (source, before, now) in [
            (Source::Sysfs, &prev.stats, &cur.stats),
            (Source::Standard, &prev.standard, &cur.standard),
            (Source::Driver, &prev.driver, &cur.driver),
        ] {
            let r = per_second(before, now, interval_s, &mut out.resets);
            for (name, rate) in &r {
                if *rate <= 0.0 {
                    continue;
                }
                if is_discard(name) {
                    out.discards.push((name.clone(), *rate));
                } else if is_error(source, name) {
                    out.errors.push((name.clone(), *rate));
                }
            }
            rates.extend(r);
        }
        for c in cur.pause() {
            let Some(&rate) = rates.get(&c.counter) else {
                continue;
            };
            if rate <= 0.0 {
                continue;
            }
            out.pause.push((c.priority, c.direction, rate));
        }
        // Global pause counts every frame on mlx5 (`*_pause_ctrl_phy`): the
        // per-priority sum is taken when there are per-priority counters.
        let sum = |dir: Direction| {
            let pfc: f64 = out
                .pause
                .iter()
                .filter(|(p, d, _)| *d == dir && *p != Priority::Global)
                .map(|(_, _, r)| r)
                .sum();
            let global: f64 = out
                .pause
                .iter()
                .filter(|(p, d, _)| *d == dir && *p == Priority::Global)
                .map(|(_, _, r)| r)
                .sum();
            pfc.max(global)
        };
        out.rx_pause_per_s = sum(Direction::Rx);
        out.tx_pause_per_s = sum(Direction::Tx);
        out.carrier_changes = match (prev.carrier_changes, cur.carrier_changes) {
            (Some(a), Some(b)) if b >= a => b - a,
            _ => 0,
        };
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(kv: &[(&str, u64)]) -> BTreeMap<String, u64> {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn read(at: u64, driver: &[(&str, u64)], stats: &[(&str, u64)], carrier: u64) -> NetdevRead {
        NetdevRead {
            at_ms: UnixMs(at),
            stats: map(stats),
            carrier_changes: Some(carrier),
            standard: BTreeMap::new(),
            driver: map(driver),
        }
    }

    #[test]
    fn mlx5_names_are_pause_frames_of_their_priority() {
        assert_eq!(
            driver_pause("rx_prio3_pause"),
            Some((Direction::Rx, Priority::Pfc(3)))
        );
        assert_eq!(
            driver_pause("tx_pause_ctrl_phy"),
            Some((Direction::Tx, Priority::Global))
        );
        assert_eq!(driver_pause("rx_prio3_pause_duration"), None);
        assert_eq!(driver_pause("rx_prio9_pause"), None);
        assert_eq!(driver_pause("rx_prio3_bytes"), None);
    }

    #[test]
    fn the_standard_pause_group_wins_over_the_drivers_global_count() {
        let mut r = read(
            0,
            &[("rx_pause_ctrl_phy", 5), ("rx_prio3_pause", 4)],
            &[],
            0,
        );
        r.standard = map(&[(PAUSE_RX, 7), (PAUSE_TX, 1)]);
        let p = r.pause();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].counter, PAUSE_RX);
        assert_eq!(p[0].frames, 7);
        assert_eq!(p[1].counter, PAUSE_TX);
        assert_eq!(p[2].priority, Priority::Pfc(3));
    }

    #[test]
    fn a_pfc_storm_discards_and_a_flap_are_read_as_such() {
        let c = NetdevCounters {
            name: "eth0".into(),
            ifindex: Some(2),
            previous: Some(read(
                1_000,
                &[
                    ("rx_prio3_pause", 100),
                    ("rx_discards_phy", 0),
                    ("rx_packets_phy", 5),
                ],
                &[("rx_dropped", 0), ("rx_crc_errors", 1), ("rx_bytes", 9)],
                4,
            )),
            read: read(
                3_000,
                &[
                    ("rx_prio3_pause", 40_100),
                    ("rx_discards_phy", 20),
                    ("rx_packets_phy", 9),
                ],
                &[("rx_dropped", 0), ("rx_crc_errors", 3), ("rx_bytes", 99)],
                6,
            ),
            notes: Vec::new(),
        };
        let h = c.health().unwrap();
        assert_eq!(h.pause, vec![(Priority::Pfc(3), Direction::Rx, 20_000.0)]);
        assert_eq!(h.rx_pause_per_s, 20_000.0);
        assert_eq!(h.discards, vec![("rx_discards_phy".to_string(), 10.0)]);
        assert_eq!(h.errors, vec![("rx_crc_errors".to_string(), 1.0)]);
        assert_eq!(h.carrier_changes, 2);
        assert_eq!(
            h.words(),
            ["pause 20000/s p3", "discards", "errors", "flap"]
        );
        assert!(!h.is_quiet());
    }

    #[test]
    fn the_first_read_and_a_quiet_port_say_so() {
        let mut c = NetdevCounters {
            read: read(1_000, &[("rx_prio3_pause", 1)], &[], 1),
            ..NetdevCounters::default()
        };
        assert!(c.health().is_none());
        c.previous = Some(c.read.clone());
        c.read.at_ms = UnixMs(2_000);
        let h = c.health().unwrap();
        assert!(h.is_quiet());
        assert!(h.words().is_empty());
    }

    #[test]
    fn a_counter_that_went_down_is_a_reset_not_a_storm() {
        let c = NetdevCounters {
            previous: Some(read(0, &[("rx_prio3_pause", 500)], &[], 9)),
            read: read(1_000, &[("rx_prio3_pause", 2)], &[], 1),
            ..NetdevCounters::default()
        };
        let h = c.health().unwrap();
        assert!(h.pause.is_empty());
        assert_eq!(h.resets, vec!["rx_prio3_pause".to_string()]);
        assert_eq!(h.carrier_changes, 0);
    }
}
