//! The exporter's own health: what it tells Prometheus about its collections
//! (up, duration, errors by kind, last success), kept across collections.

use crate::model::{Snapshot, SourceKind, UnixMs, WarningKind};
use crate::source::CollectError;
use std::collections::BTreeMap;
use std::time::Duration;

/// Every `kind` of `restop_collection_errors_total`. All are written from the
/// start (at 0), so `increase()` and `rate()` see the first error.
pub(crate) const ERROR_KINDS: [&str; 9] = [
    "no_rdma",
    "permission",
    "timeout",
    "malformed",
    "io",
    "replay",
    "exhausted",
    "dump_failed",
    "device_vanished",
];

/// Every `kind` of `restop_snapshot_warnings`: the conditions a collection
/// ran into. `limit` is left out: it is a judgement of usage against
/// `--warn`/`--crit` made by each view, and Prometheus makes its own from
/// `restop_resources_usage_ratio` (see the alerting rules).
pub(crate) fn warning_kinds() -> impl Iterator<Item = WarningKind> {
    WarningKind::ALL
        .into_iter()
        .filter(|kind| *kind != WarningKind::Limit)
}

pub(crate) fn warning_kind_name(kind: WarningKind) -> &'static str {
    kind.name()
}

/// The `source` label of `restop_up`.
pub(crate) fn source_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Live => "live",
        SourceKind::Demo => "demo",
        SourceKind::Replay => "replay",
    }
}

/// The `kind` a failed collection is counted under.
pub(crate) fn error_kind(err: &CollectError) -> &'static str {
    match err {
        CollectError::NoRdmaSupport(_) => "no_rdma",
        CollectError::PermissionDenied { .. } => "permission",
        CollectError::Timeout { .. } => "timeout",
        CollectError::Malformed { .. } => "malformed",
        CollectError::Io { .. } => "io",
        CollectError::Replay(_) => "replay",
        CollectError::Exhausted => "exhausted",
    }
}

/// Health across collections.
#[derive(Clone, Debug, PartialEq)]
pub struct Health {
    pub source: SourceKind,
    /// Whether the last collection succeeded.
    pub up: bool,
    pub collections: u64,
    /// Counts per entry of [`ERROR_KINDS`].
    pub errors: BTreeMap<&'static str, u64>,
    pub last_duration: Duration,
    /// Unix milliseconds at which the last successful collection ended.
    pub last_success: Option<UnixMs>,
    /// The last collection's error, for stderr (not exported: free text).
    pub last_error: Option<String>,
    /// Whether the host has RDMA: the kernel answered with at least one device
    /// (`true`), or has no RDMA subsystem or no device (`false`). `None` until a
    /// collection could tell (a permission error or a timeout says nothing).
    pub rdma_present: Option<bool>,
}

impl Health {
    pub fn new(source: SourceKind) -> Health {
        Health {
            source,
            up: false,
            collections: 0,
            errors: ERROR_KINDS.iter().map(|k| (*k, 0)).collect(),
            last_duration: Duration::ZERO,
            last_success: None,
            last_error: None,
            rdma_present: None,
        }
    }

    /// A collection returned a snapshot; partial failures inside it are
    /// counted by kind.
    pub fn record_success(&mut self, snapshot: &Snapshot, took: Duration, now: UnixMs) {
        self.collections += 1;
        self.up = true;
        self.last_duration = took;
        self.last_success = Some(now);
        self.last_error = None;
        self.rdma_present = Some(!snapshot.devices.is_empty());
        for warning in &snapshot.meta.warnings {
            match warning.kind {
                WarningKind::DumpFailed => self.count("dump_failed"),
                WarningKind::DeviceVanished => self.count("device_vanished"),
                _ => {}
            }
        }
    }

    pub fn record_failure(&mut self, err: &CollectError, took: Duration) {
        self.collections += 1;
        self.up = false;
        self.last_duration = took;
        self.last_error = Some(err.to_string());
        if matches!(err, CollectError::NoRdmaSupport(_)) {
            self.rdma_present = Some(false);
        }
        self.count(error_kind(err));
    }

    /// A host without RDMA: the last collection found no RDMA subsystem or no
    /// device. Nothing to monitor there, which is not a failure of restop.
    pub(crate) fn without_rdma(&self) -> bool {
        self.rdma_present == Some(false)
    }

    fn count(&mut self, kind: &'static str) {
        let slot = self.errors.entry(kind).or_insert(0);
        *slot = slot.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Warning;

    fn snapshot_with(warnings: Vec<Warning>) -> Snapshot {
        let mut snapshot = Snapshot::empty(SourceKind::Live, UnixMs(0));
        snapshot.meta.warnings = warnings;
        snapshot
    }

    #[test]
    fn every_error_kind_starts_at_zero() {
        let h = Health::new(SourceKind::Live);
        assert_eq!(h.errors.len(), ERROR_KINDS.len());
        assert!(h.errors.values().all(|n| *n == 0));
        assert!(!h.up);
    }

    #[test]
    fn failures_count_by_kind_and_clear_up() {
        let mut h = Health::new(SourceKind::Live);
        h.record_success(
            &snapshot_with(Vec::new()),
            Duration::from_millis(3),
            UnixMs(1_000),
        );
        assert!(h.up);
        h.record_failure(
            &CollectError::NoRdmaSupport("EPROTONOSUPPORT".into()),
            Duration::from_millis(1),
        );
        assert!(!h.up);
        assert_eq!(h.collections, 2);
        assert_eq!(h.errors["no_rdma"], 1);
        assert!(h.without_rdma());
        assert_eq!(h.last_success, Some(UnixMs(1_000)));
        assert!(h.last_error.as_deref().unwrap_or("").contains("no RDMA"));
    }

    #[test]
    fn rdma_is_present_with_a_device_absent_without_and_unknown_before_an_answer() {
        let mut h = Health::new(SourceKind::Live);
        assert_eq!(h.rdma_present, None);
        h.record_failure(
            &CollectError::Timeout {
                what: "RES_GET".into(),
                after: Duration::from_secs(5),
            },
            Duration::from_millis(1),
        );
        assert_eq!(h.rdma_present, None, "a timeout says nothing about RDMA");
        h.record_success(
            &snapshot_with(Vec::new()),
            Duration::from_millis(1),
            UnixMs(1),
        );
        assert!(h.without_rdma(), "a kernel with RDMA but no device");
        let mut snap = snapshot_with(Vec::new());
        snap.devices.push(crate::model::Device::new(0, "mlx5_0"));
        h.record_success(&snap, Duration::from_millis(1), UnixMs(2));
        assert_eq!(h.rdma_present, Some(true));
    }

    #[test]
    fn a_vanished_device_is_counted_but_the_collection_is_up() {
        let mut h = Health::new(SourceKind::Live);
        let snap = snapshot_with(vec![
            Warning::new(WarningKind::DeviceVanished, "mlx5_1 disappeared"),
            Warning::new(WarningKind::Unattributed, "3 objects"),
        ]);
        h.record_success(&snap, Duration::from_millis(3), UnixMs(1_000));
        assert!(h.up);
        assert_eq!(h.errors["device_vanished"], 1);
        assert_eq!(h.errors["dump_failed"], 0);
    }
}
