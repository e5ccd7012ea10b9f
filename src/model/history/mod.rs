//! What happened over time: a bounded history of every owner's and device's
//! counts, the trends and leak suspects read from it, when each ERROR QP
//! broke, a baseline to compare with, and the alerts all of that raises,
//! each with when it was first seen (`alert_ages.rs`).
//!
//! Memory is bounded whatever runs how long: each series keeps at most
//! `max_points` points over `retention`, at most `max_owners` owners are
//! tracked (exited owners go first, then the smallest), and owners and devices
//! that left are forgotten once their points are older than `retention`, and
//! so are alerts that ended (at most 4096 alerts' first-seen times are kept).
//! Time is the snapshots' collection time, never the wall clock, so recorded
//! and simulated data give the same trends as live data.

mod alert_ages;
mod alerts;
mod baseline;
mod config;
pub(crate) mod counter_rates;
mod error_ages;
mod insights;
mod owner_trend;
mod ports;
mod record;
mod series;
mod trend;

pub use alerts::{Alert, AlertKind, AlertThresholds, Unreleased, counts_text};
pub use baseline::{Baseline, BaselineDelta, Holdings, OwnerHoldings, TypeDeltas, signed_diff};
pub use config::HistoryConfig;
pub use counter_rates::CounterAlert;
pub use error_ages::{ErrorEntry, ErrorQpAge, QpKey};
pub use insights::{ErrorAge, ErrorQpInsight, Insights};
pub use owner_trend::OwnerTrend;
pub use trend::{SERIES_POINTS, TrendRules, TypeTrend, plural, span_text};

use super::problems::{self, Problem, ProblemKey};
use super::{Millis, OwnerKey, ResourceType, Snapshot, UnixMs};
use alert_ages::AlertAges;
use error_ages::ErrorTracker;
use ports::PortStates;
use series::Series;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
struct OwnerTrack {
    series: Series,
    /// "leaky_svc (pid 3377)", "[nvme_rdma]", "(unattributed)".
    label: String,
    /// The name alone, as the consumers table shows it.
    name: String,
    /// Held something in the latest object sample.
    present: bool,
    last_seen_ms: UnixMs,
}

#[derive(Clone, Debug)]
struct DeviceTrack {
    series: Series,
    last_seen_ms: UnixMs,
}

/// Bounded history of a stream of snapshots. See the module documentation.
#[derive(Clone, Debug)]
pub struct History {
    config: HistoryConfig,
    owners: BTreeMap<OwnerKey, OwnerTrack>,
    devices: BTreeMap<String, DeviceTrack>,
    errors: ErrorTracker,
    unreleased: Vec<Unreleased>,
    baseline: Option<Baseline>,
    /// What every owner holds in the latest snapshot, per device.
    latest: Option<OwnerHoldings>,
    /// Collection time of the first and latest snapshot.
    started_ms: Option<UnixMs>,
    latest_ms: Option<UnixMs>,
    /// Time of the object dumps last taken in (owner counts change only then).
    objects_ms: Option<UnixMs>,
    /// NIC counter series and alerts (counter_rates.rs).
    counters: counter_rates::CounterHistory,
    /// When each alert was first seen (alert_ages.rs).
    alert_ages: AlertAges,
    /// The alerts of the latest snapshot under `config.alerts`, with their
    /// first-seen times: raised once per snapshot, read by every view of it.
    latest_alerts: Vec<Alert>,
    /// When each problem was first seen (alert_ages.rs, keyed by problem).
    problem_ages: AlertAges<ProblemKey>,
    /// The problems of the latest snapshot, ranked, with first-seen times.
    latest_problems: Vec<Problem>,
    /// Ports seen ACTIVE (ports.rs).
    ports: PortStates,
}

/// Events of processes exiting with objects left behind, kept at most.
const MAX_UNRELEASED: usize = 32;

impl History {
    pub fn new(config: HistoryConfig) -> History {
        History {
            config: config.clone(),
            owners: BTreeMap::new(),
            devices: BTreeMap::new(),
            errors: ErrorTracker::default(),
            unreleased: Vec::new(),
            baseline: None,
            latest: None,
            started_ms: None,
            latest_ms: None,
            objects_ms: None,
            counters: counter_rates::CounterHistory::new(
                config.max_points,
                counter_rates::CounterAlertRules::default(),
            ),
            alert_ages: AlertAges::default(),
            latest_alerts: Vec::new(),
            problem_ages: AlertAges::default(),
            latest_problems: Vec::new(),
            ports: PortStates::default(),
        }
    }

    pub fn config(&self) -> &HistoryConfig {
        &self.config
    }

    /// NIC counter series (sparklines) and counter alerts.
    pub fn counters(&self) -> &counter_rates::CounterHistory {
        &self.counters
    }

    /// Collection time of the latest snapshot taken in.
    pub fn latest_ms(&self) -> Option<UnixMs> {
        self.latest_ms
    }

    /// How long the history covers (first to latest snapshot).
    pub fn covered_ms(&self) -> Millis {
        match (self.started_ms, self.latest_ms) {
            (Some(a), Some(b)) => b.since(a),
            _ => Millis::ZERO,
        }
    }

    /// Owners with a history (bounded by `max_owners`).
    pub fn tracked_owners(&self) -> usize {
        self.owners.len()
    }

    pub fn tracked_devices(&self) -> usize {
        self.devices.len()
    }

    /// Points held over every series: what the memory use grows with.
    pub fn points(&self) -> usize {
        self.owners.values().map(|o| o.series.len()).sum::<usize>()
            + self.devices.values().map(|d| d.series.len()).sum::<usize>()
    }

    /// QPs whose state is remembered (ERR/SQE episodes and last seen states).
    pub fn remembered_qps(&self) -> usize {
        self.errors.remembered()
    }

    /// Takes in one snapshot. Snapshots older than the latest (a replay
    /// seeking back) start the history afresh; the baseline is kept.
    pub fn push(&mut self, snapshot: &Snapshot) {
        let t = snapshot.meta.collected_at_ms;
        if self.latest_ms.is_some_and(|latest| t < latest) {
            *self = History {
                baseline: self.baseline.take(),
                ..History::new(self.config.clone())
            };
        }
        let first = self.started_ms.is_none();
        self.started_ms.get_or_insert(t);
        self.latest_ms = Some(t);
        self.record_devices(snapshot, t);
        self.counters.push(snapshot);

        // Owner counts come from object dumps, which may run less often than
        // collections: only a new dump is a new sample. A failed dump would
        // look like objects released, so its snapshot is left out.
        let objects_ms = snapshot
            .devices
            .iter()
            .filter_map(|d| d.objects.collected_at_ms)
            .max()
            .unwrap_or(t);
        let new_objects = self.objects_ms.is_none_or(|last| objects_ms > last);
        let dump_failed = snapshot
            .devices
            .iter()
            .any(|d| !d.objects.errors.is_empty());
        if new_objects {
            self.objects_ms = Some(objects_ms);
            self.errors
                .update(snapshot, t, first, self.config.retention_ms());
            if !dump_failed {
                // The dumps of a collection end after it started: their counts
                // belong to this snapshot, whose time ends every window.
                self.record_owners(snapshot, objects_ms.min(t));
            }
        }
        self.latest = Some(OwnerHoldings::of(snapshot));
        self.forget_old(t);
        let raised = self.raised_at(&self.config.alerts, t);
        self.alert_ages
            .observe(&raised, t, self.config.retention_ms());
        self.latest_alerts = self.alert_ages.apply(raised, t);
        let ports_down = self.ports.down(snapshot);
        self.ports.observe(snapshot, t, self.config.retention_ms());
        let raised = self.raise_problems(
            snapshot,
            &super::filter::Filter::default(),
            &self.counters.alerts(),
            &ports_down,
        );
        self.problem_ages.observe_keys(
            raised.iter().map(|p| (p.key(), Some(p.since_ms))),
            t,
            self.config.retention_ms(),
        );
        self.latest_problems = self.problems_aged(raised, t);
    }

    /// The problems `snapshot` raises by the rules (`model/problems/`),
    /// unfiltered, each since when its rule says.
    fn raise_problems(
        &self,
        snapshot: &Snapshot,
        filter: &super::filter::Filter,
        counter_alerts: &[counter_rates::CounterAlert],
        ports_down: &[(String, u32)],
    ) -> Vec<Problem> {
        let insights = self.insights_of(snapshot, filter);
        let mut rules = self.config.problems.clone();
        rules.error_qp_linger = self.config.alerts.error_qp_linger;
        rules.error_qp_critical_after = rules.error_qp_critical_after.max(rules.error_qp_linger);
        problems::raise(&problems::Input {
            snapshot,
            insights: &insights,
            counter_alerts,
            counter_rules: self.counters.rules(),
            ports_down,
            leak_min_growth: self.config.min_growth,
            rules: &rules,
        })
    }

    /// `raised`, each since the start of its episode, ranked again.
    fn problems_aged(&self, mut raised: Vec<Problem>, at_ms: UnixMs) -> Vec<Problem> {
        for p in &mut raised {
            if let Some(since) = self.problem_ages.since(&p.key(), at_ms) {
                p.since_ms = since;
            }
        }
        problems::rank(&mut raised);
        raised
    }

    /// The problems of `snapshot` under `filter`: the latest snapshot's
    /// unfiltered ones as raised when it was taken in; otherwise raised again
    /// from what the filters admit (an ERROR-QP problem counts the QPs of the
    /// devices shown), with the same first-seen times; an older snapshot's (a
    /// frozen view) without the counter rule, whose reads are the latest's.
    fn problems_of(&self, snapshot: &Snapshot, filter: &super::filter::Filter) -> Vec<Problem> {
        let at = snapshot.meta.collected_at_ms;
        let latest = self.latest_ms == Some(at);
        let all = if latest && *filter == super::filter::Filter::default() {
            self.latest_problems.clone()
        } else {
            let counter_alerts = if latest {
                self.counters.alerts()
            } else {
                Vec::new()
            };
            let ports_down = self.ports.down(snapshot);
            let raised = self.raise_problems(snapshot, filter, &counter_alerts, &ports_down);
            self.problems_aged(raised, at)
        };
        all.into_iter().filter(|p| p.shown_by(filter)).collect()
    }

    /// The trend of every type `owner` held over the window ending at the
    /// latest snapshot. `None` for an owner without history.
    pub fn owner_trend(&self, owner: &OwnerKey) -> Option<OwnerTrend> {
        self.owner_trend_at(owner, self.latest_ms?)
    }

    /// The same, over the window ending at `at_ms` (a frozen view's time).
    pub(crate) fn owner_trend_at(&self, owner: &OwnerKey, at_ms: UnixMs) -> Option<OwnerTrend> {
        let track = self.owners.get(owner)?;
        let from = at_ms.minus(self.config.window_ms());
        let rules = self.config.rules();
        let mut types = BTreeMap::new();
        let mut any_point = false;
        for t in ResourceType::ALL {
            let points = track.series.values(t, from, at_ms);
            any_point |= !points.is_empty();
            if points.iter().all(|(_, v)| *v == 0) {
                continue;
            }
            types.insert(t, trend::analyze(t, &points, &rules));
        }
        any_point.then(|| OwnerTrend {
            owner: owner.clone(),
            name: track.name.clone(),
            types,
        })
    }

    /// A device's count of `t` (from the kernel's summary) over the window
    /// ending at `at_ms`, at evenly spaced times, for a sparkline.
    pub(crate) fn device_series(&self, device: &str, t: ResourceType, at_ms: UnixMs) -> Vec<u64> {
        let Some(track) = self.devices.get(device) else {
            return Vec::new();
        };
        let from = at_ms.minus(self.config.window_ms());
        trend::series(&track.series.values(t, from, at_ms))
    }

    /// Ages of the QPs in ERR/SQE in the latest snapshot, oldest first.
    pub fn error_qp_ages(&self) -> Vec<ErrorQpAge> {
        match self.latest_ms {
            Some(now) => self.errors.ages(now),
            None => Vec::new(),
        }
    }

    /// The error episode of one QP, if it is in one.
    pub(crate) fn error_entry(&self, key: &QpKey) -> Option<&ErrorEntry> {
        self.errors.entry(key)
    }

    /// Marks the latest snapshot as the baseline.
    pub fn set_baseline(&mut self) {
        if let (Some(at_ms), Some(holdings)) = (self.latest_ms, self.latest.clone()) {
            self.baseline = Some(Baseline { at_ms, holdings });
        }
    }

    /// Marks `snapshot` (the one on screen) as the baseline.
    pub(crate) fn set_baseline_at(&mut self, snapshot: &Snapshot) {
        self.baseline = Some(Baseline::of(snapshot));
    }

    pub fn clear_baseline(&mut self) {
        self.baseline = None;
    }

    pub fn baseline(&self) -> Option<&Baseline> {
        self.baseline.as_ref()
    }

    /// What `owner` gained or lost on every device since the baseline, as of
    /// the latest snapshot. `None` without a baseline.
    pub fn baseline_delta(&self, owner: &OwnerKey) -> Option<BaselineDelta> {
        let baseline = self.baseline.as_ref()?;
        let latest = self.latest.as_ref()?;
        Some(baseline.delta(owner, latest, &super::filter::Filter::default()))
    }

    /// Alerts as of the latest snapshot.
    pub fn alerts(&self, thresholds: &AlertThresholds) -> Vec<Alert> {
        match self.latest_ms {
            Some(now) => self.alerts_at(thresholds, now),
            None => Vec::new(),
        }
    }

    /// Alerts as of `at_ms`: objects left behind by exited processes, QPs
    /// lingering in ERR/SQE, then leak suspects. Each one's `since_ms` is
    /// when it was first seen: the start of the run of snapshots that raised
    /// it (`alert_ages.rs`), not of the points the window still holds.
    pub(crate) fn alerts_at(&self, thresholds: &AlertThresholds, at_ms: UnixMs) -> Vec<Alert> {
        if self.latest_ms == Some(at_ms) && *thresholds == self.config.alerts {
            return self.latest_alerts.clone();
        }
        self.alert_ages
            .apply(self.raised_at(thresholds, at_ms), at_ms)
    }

    /// The alerts the history raises as of `at_ms`, each since when the
    /// points it still holds say.
    fn raised_at(&self, thresholds: &AlertThresholds, at_ms: UnixMs) -> Vec<Alert> {
        let mut out: Vec<Alert> = self
            .unreleased
            .iter()
            .filter(|u| u.at_ms <= at_ms)
            .map(Unreleased::alert)
            .collect();
        out.extend(alerts::lingering(
            &self.errors.ages(at_ms),
            thresholds.error_qp_linger,
            |owner| self.label_of(owner),
        ));
        let from = at_ms.minus(self.config.window_ms());
        let rules = self.config.rules();
        for (owner, track) in &self.owners {
            if !track.present && track.last_seen_ms <= at_ms {
                continue;
            }
            // Most owners are too young for a verdict: that is cheap to
            // tell, and alerts are raised on every snapshot taken in.
            let (points, span) = track.series.extent(from, at_ms);
            if !rules.observed_long_enough(points, span) {
                continue;
            }
            let Some(trend) = self.owner_trend_at(owner, at_ms) else {
                continue;
            };
            let reasons: Vec<&str> = trend
                .suspects()
                .filter_map(|(_, t)| t.explanation.as_deref())
                .collect();
            if reasons.is_empty() {
                continue;
            }
            let since = track
                .series
                .values(ResourceType::Qp, from, at_ms)
                .first()
                .map(|(t, _)| UnixMs(*t));
            out.push(Alert {
                kind: AlertKind::LeakSuspect,
                message: format!("{}: {}", track.label, reasons.join("; ")),
                owner: Some(owner.clone()),
                device: None,
                since_ms: since,
            });
        }
        out
    }

    /// "leaky_svc (pid 3377)", "[nvme_rdma]", "(unattributed)", "pid 42".
    pub(crate) fn label_of(&self, owner: &OwnerKey) -> String {
        match self.owners.get(owner) {
            Some(track) if !track.label.is_empty() => track.label.clone(),
            _ => owner.to_string(),
        }
    }
}
