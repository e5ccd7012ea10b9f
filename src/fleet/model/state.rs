//! The fleet across refreshes: the last good reading is kept when a refresh fails (and marked
//! stale, with the failure), and a host that was read before and is absent now stays in the
//! table, marked missing, never dropped silently and never shown healthy.

use super::reading::{FleetReading, HostReport, Reach};
use crate::model::UnixMs;
use serde::Serialize;

/// The fleet as the views show it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FleetState {
    /// The last reading that succeeded, with missing hosts carried over.
    pub reading: Option<FleetReading>,
    /// Why the latest refresh failed; `None` when it succeeded.
    pub error: Option<String>,
    /// When the shown reading stopped being current (the first failed refresh after it).
    pub stale_since: Option<UnixMs>,
    pub refreshes: u64,
    pub failures: u64,
}

impl FleetState {
    /// Takes one refresh's outcome in.
    pub fn apply(&mut self, outcome: Result<FleetReading, String>, now: UnixMs) {
        self.refreshes += 1;
        match outcome {
            Ok(mut reading) => {
                if let Some(previous) = &self.reading {
                    carry_missing(previous, &mut reading);
                }
                self.reading = Some(reading);
                self.error = None;
                self.stale_since = None;
            }
            Err(message) => {
                self.failures += 1;
                self.error = Some(message);
                if self.stale_since.is_none() {
                    self.stale_since = Some(now);
                }
            }
        }
    }

    /// Whether the shown data is older than the latest refresh.
    pub fn is_stale(&self) -> bool {
        self.stale_since.is_some()
    }
}

/// Hosts of `previous` that `current` does not name come back as missing, with their last
/// facts (so the row still says what it had) and their last scrape time.
fn carry_missing(previous: &FleetReading, current: &mut FleetReading) {
    let gone: Vec<HostReport> = previous
        .hosts
        .iter()
        .filter(|old| current.host(&old.host).is_none())
        .map(|old| HostReport {
            reach: match &old.reach {
                Reach::Down { reason } => Reach::Down {
                    reason: reason.clone(),
                },
                _ => Reach::Missing,
            },
            ..old.clone()
        })
        .collect();
    current.hosts.extend(gone);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(hosts: &[&str]) -> FleetReading {
        FleetReading {
            hosts: hosts.iter().map(|h| HostReport::named(h)).collect(),
            ..FleetReading::default()
        }
    }

    #[test]
    fn a_failed_refresh_keeps_the_last_good_reading_and_marks_it_stale() {
        let mut state = FleetState::default();
        state.apply(Ok(reading(&["a"])), UnixMs(1_000));
        assert!(!state.is_stale());
        state.apply(Err("Prometheus is down".into()), UnixMs(2_000));
        state.apply(Err("Prometheus is down".into()), UnixMs(3_000));
        assert!(state.is_stale());
        assert_eq!(state.stale_since, Some(UnixMs(2_000)));
        assert_eq!(state.reading, Some(reading(&["a"])));
        assert_eq!(state.error.as_deref(), Some("Prometheus is down"));
        state.apply(Ok(reading(&["a"])), UnixMs(4_000));
        assert!(!state.is_stale());
        assert_eq!(state.failures, 2);
    }

    #[test]
    fn a_host_that_disappears_stays_marked_missing() {
        let mut state = FleetState::default();
        state.apply(Ok(reading(&["a", "b"])), UnixMs(1_000));
        state.apply(Ok(reading(&["a"])), UnixMs(2_000));
        let hosts = &state.reading.as_ref().unwrap().hosts;
        assert_eq!(hosts.len(), 2);
        assert_eq!(hosts[1].host, "b");
        assert_eq!(hosts[1].reach, Reach::Missing);
    }
}
