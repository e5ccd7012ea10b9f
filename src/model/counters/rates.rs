//! Per-second rates between two reads of one port, from the reads' own
//! timestamps.
//!
//! A counter that went down was reset (driver reload, device re-created,
//! a 32-bit PMA counter wrapping): it gets no rate and is named in
//! `resets`, never a negative or absurd figure. A read that is not later
//! than the one before (clock stepped back, the same read twice) gives no
//! rates at all, with a note.

use super::CounterRead;
use crate::model::UnixMs;
use std::collections::BTreeMap;

/// Rates since the previous read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rates {
    /// Seconds between the two reads; 0 when they cannot be compared.
    pub interval_s: f64,
    /// Driver counters per second (same names as `CounterRead::hw`).
    pub hw: BTreeMap<String, f64>,
    /// PMA counters per second (raw units: `port_xmit_data` in words/s).
    pub pma: BTreeMap<String, f64>,
    /// Counters that went backwards: no rate for them this interval.
    pub resets: Vec<String>,
    /// Why there are no rates at all, when there are none.
    pub note: Option<String>,
}

impl Rates {
    /// Any rate by name, driver counters first.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.hw.get(name).or_else(|| self.pma.get(name)).copied()
    }
}

/// Rates from `prev` to `cur`. Counters present in only one read get none.
pub fn rates_between(prev: &CounterRead, cur: &CounterRead) -> Rates {
    let mut out = Rates::default();
    let interval_s = match interval_between(prev.at_ms, cur.at_ms) {
        Ok(s) => s,
        Err(note) => {
            out.note = Some(note);
            return out;
        }
    };
    out.interval_s = interval_s;
    out.hw = per_second(&prev.hw, &cur.hw, interval_s, &mut out.resets);
    out.pma = per_second(&prev.pma, &cur.pma, interval_s, &mut out.resets);
    out
}

/// Seconds from one read to the next, or why the two cannot be compared
/// (the same instant, or the clock went back). Shared by every kind of
/// counter read (RDMA ports, their netdevs).
pub(crate) fn interval_between(prev: UnixMs, cur: UnixMs) -> Result<f64, String> {
    if cur <= prev {
        return Err(if cur == prev {
            "two reads at the same time: no rates".to_string()
        } else {
            format!(
                "the clock went back {} ms between reads: no rates",
                prev.since(cur)
            )
        });
    }
    Ok(cur.since(prev).as_secs_f64())
}

/// Per-second rates of the counters in both maps; a counter that went down
/// is named in `resets` and gets none.
pub(crate) fn per_second(
    prev: &BTreeMap<String, u64>,
    cur: &BTreeMap<String, u64>,
    interval_s: f64,
    resets: &mut Vec<String>,
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (name, &now) in cur {
        let Some(&before) = prev.get(name) else {
            continue;
        };
        if now < before {
            resets.push(name.clone());
            continue;
        }
        out.insert(name.clone(), (now - before) as f64 / interval_s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(at_ms: u64, hw: &[(&str, u64)]) -> CounterRead {
        CounterRead {
            at_ms: UnixMs(at_ms),
            hw: hw.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            pma: BTreeMap::new(),
        }
    }

    #[test]
    fn rates_use_the_reads_own_timestamps() {
        let r = rates_between(
            &read(1_000, &[("sent_pkts", 100)]),
            &read(3_000, &[("sent_pkts", 700)]),
        );
        assert_eq!(r.interval_s, 2.0);
        assert_eq!(r.get("sent_pkts"), Some(300.0));
        assert!(r.resets.is_empty() && r.note.is_none());
    }

    #[test]
    fn a_counter_that_went_down_is_a_reset_with_no_rate() {
        let r = rates_between(
            &read(0, &[("sent_pkts", 1_000), ("rcvd_pkts", 5)]),
            &read(1_000, &[("sent_pkts", 10), ("rcvd_pkts", 9)]),
        );
        assert_eq!(r.get("sent_pkts"), None);
        assert_eq!(r.resets, vec!["sent_pkts".to_string()]);
        assert_eq!(r.get("rcvd_pkts"), Some(4.0));
    }

    #[test]
    fn time_going_backwards_or_standing_still_gives_no_rates() {
        let r = rates_between(&read(5_000, &[("a", 1)]), &read(4_000, &[("a", 2)]));
        assert!(r.hw.is_empty());
        assert!(r.note.unwrap().contains("back 1000 ms"));
        let r = rates_between(&read(5_000, &[("a", 1)]), &read(5_000, &[("a", 2)]));
        assert!(r.hw.is_empty());
        assert!(r.note.is_some());
    }

    #[test]
    fn a_long_gap_averages_over_the_gap() {
        let r = rates_between(&read(0, &[("a", 0)]), &read(600_000, &[("a", 6_000)]));
        assert_eq!(r.get("a"), Some(10.0));
    }

    #[test]
    fn counters_new_or_gone_between_reads_get_no_rate() {
        let r = rates_between(&read(0, &[("old", 1)]), &read(1_000, &[("new", 5)]));
        assert!(r.hw.is_empty());
        assert!(r.resets.is_empty());
    }

    #[test]
    fn an_unchanged_counter_has_rate_zero() {
        let r = rates_between(&read(0, &[("a", 7)]), &read(1_000, &[("a", 7)]));
        assert_eq!(r.get("a"), Some(0.0));
    }
}
