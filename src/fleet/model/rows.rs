//! The hosts table: one row per host with the facts an operator scans for, worst first. The
//! order, the sort keys and the row status are plain functions, shared by `--once`, `--json`
//! and the full-screen view.

use super::reading::{Consumer, FleetReading, HostReport, Reach, Severity, Usage};
use crate::model::limits::Thresholds;
use crate::model::{Millis, UnixMs};
use serde::Serialize;
use std::cmp::Ordering;

/// A host's state as its row shows it, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// The exporter's scrape fails.
    Down,
    /// Seen before, absent now.
    Missing,
    /// Its last scrape is older than the staleness bound, or the whole reading is stale.
    Stale,
    /// Its exporter answers but cannot read RDMA (`restop_up 0`).
    NotCollecting,
    /// A port down, ERROR QPs, a device at its critical threshold.
    Critical,
    /// Leak suspects, error counters rising, a device past the warning threshold.
    Warning,
    Ok,
}

impl RowStatus {
    pub fn label(self) -> &'static str {
        match self {
            RowStatus::Down => "DOWN",
            RowStatus::Missing => "MISSING",
            RowStatus::Stale => "STALE",
            RowStatus::NotCollecting => "NO-RDMA",
            RowStatus::Critical => "CRIT",
            RowStatus::Warning => "WARN",
            RowStatus::Ok => "ok",
        }
    }

    /// Whether the row's numbers are current facts (not a down, missing or stale host's).
    pub fn is_current(self) -> bool {
        !matches!(
            self,
            RowStatus::Down | RowStatus::Missing | RowStatus::Stale
        )
    }
}

/// NIC problems of a host counted by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NicHealth {
    pub critical: usize,
    pub warning: usize,
    pub notice: usize,
}

/// One row of the hosts table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostRow {
    pub host: String,
    pub status: RowStatus,
    /// Why the row has its status (`scrape failed: connection refused`, `2 ERROR QPs`, ...).
    pub why: Vec<String>,
    pub exporters: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst_usage: Option<Usage>,
    pub error_qps: u64,
    pub leak_suspects: u64,
    pub nic: NicHealth,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_consumer: Option<Consumer>,
    /// Age of the last scrape, on the reading's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_age: Option<Millis>,
}

/// How rows are judged: the usage thresholds and how old a scrape may be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowRules {
    pub thresholds: Thresholds,
    /// A scrape older than this is stale (twice the refresh interval by default).
    pub stale_after: Millis,
}

/// The hosts table of a reading, worst first. `stale` marks every row stale (the reading is the
/// last good one, kept after a failed refresh).
pub fn host_rows(reading: &FleetReading, rules: &RowRules, stale: bool) -> Vec<HostRow> {
    let clock = reading.clock();
    let mut rows: Vec<HostRow> = reading
        .hosts
        .iter()
        .map(|h| host_row(h, clock, rules, stale))
        .collect();
    sort_rows(&mut rows, SortKey::Worst, false);
    rows
}

fn host_row(h: &HostReport, clock: UnixMs, rules: &RowRules, stale: bool) -> HostRow {
    let scrape_age = h.scraped_at.map(|at| Millis(clock.0.saturating_sub(at.0)));
    let nic = NicHealth {
        critical: h.nic_count(Severity::Critical),
        warning: h.nic_count(Severity::Warning),
        notice: h.nic_count(Severity::Notice),
    };
    let (status, why) = judge(h, scrape_age, &nic, rules, stale);
    HostRow {
        host: h.host.clone(),
        status,
        why,
        exporters: h.exporters.clone(),
        devices: h.devices,
        worst_usage: h.worst_usage.clone(),
        error_qps: h.error_qps,
        leak_suspects: h.leak_suspects,
        nic,
        top_consumer: h.top_consumer.clone(),
        scrape_age,
    }
}

/// The status and its reasons, the worst first.
fn judge(
    h: &HostReport,
    scrape_age: Option<Millis>,
    nic: &NicHealth,
    rules: &RowRules,
    stale: bool,
) -> (RowStatus, Vec<String>) {
    let mut why = Vec::new();
    let mut status = RowStatus::Ok;
    let mut raise = |s: RowStatus, reason: String, why: &mut Vec<String>| {
        status = status.min(s);
        why.push(reason);
    };
    match &h.reach {
        Reach::Down { reason } => raise(
            RowStatus::Down,
            format!("scrape failed: {reason}"),
            &mut why,
        ),
        Reach::Missing => raise(RowStatus::Missing, "no longer reported".into(), &mut why),
        Reach::Up => {}
    }
    if stale {
        raise(
            RowStatus::Stale,
            "last good data (refresh failed)".into(),
            &mut why,
        );
    }
    match scrape_age {
        Some(age) if age > rules.stale_after => raise(
            RowStatus::Stale,
            format!("last scrape {}s ago", age.0 / 1000),
            &mut why,
        ),
        None if h.reach == Reach::Up => {
            raise(RowStatus::Stale, "never scraped".into(), &mut why);
        }
        _ => {}
    }
    if h.collecting == Some(false) {
        raise(
            RowStatus::NotCollecting,
            "exporter cannot read RDMA".into(),
            &mut why,
        );
    }
    if h.exporters.len() > 1 {
        raise(
            RowStatus::Warning,
            format!("{} exporters report this host", h.exporters.len()),
            &mut why,
        );
    }
    if nic.critical > 0 {
        raise(
            RowStatus::Critical,
            format!("{} port(s) down", nic.critical),
            &mut why,
        );
    }
    if h.error_qps > 0 {
        raise(
            RowStatus::Critical,
            format!("{} ERROR QPs", h.error_qps),
            &mut why,
        );
    }
    if let Some(u) = &h.worst_usage {
        let what = format!("{} {} at {:.0}%", u.device, u.rtype.name(), u.ratio * 100.0);
        if u.ratio >= rules.thresholds.critical {
            raise(RowStatus::Critical, what, &mut why);
        } else if u.ratio >= rules.thresholds.warn {
            raise(RowStatus::Warning, what, &mut why);
        }
    }
    if h.leak_suspects > 0 {
        raise(
            RowStatus::Warning,
            format!("{} leak suspect(s)", h.leak_suspects),
            &mut why,
        );
    }
    if nic.warning > 0 {
        raise(
            RowStatus::Warning,
            format!("{} error counter(s) rising", nic.warning),
            &mut why,
        );
    }
    (status, why)
}

/// What the hosts table is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// Status, then the numbers that make it (ERROR QPs, usage, leaks, NIC), then the name.
    Worst,
    Host,
    Usage,
    ErrorQps,
    LeakSuspects,
    Nic,
    ScrapeAge,
}

impl SortKey {
    pub const ALL: [SortKey; 7] = [
        SortKey::Worst,
        SortKey::Host,
        SortKey::Usage,
        SortKey::ErrorQps,
        SortKey::LeakSuspects,
        SortKey::Nic,
        SortKey::ScrapeAge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SortKey::Worst => "worst",
            SortKey::Host => "host",
            SortKey::Usage => "usage",
            SortKey::ErrorQps => "error_qps",
            SortKey::LeakSuspects => "leaks",
            SortKey::Nic => "nic",
            SortKey::ScrapeAge => "age",
        }
    }

    pub fn from_name(name: &str) -> Option<SortKey> {
        SortKey::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Sorts rows by `key`, biggest (or worst) first; `reverse` turns it round. Ties fall back to
/// the worst-first order, then the host name, so the order is total and stable between
/// refreshes.
pub fn sort_rows(rows: &mut [HostRow], key: SortKey, reverse: bool) {
    rows.sort_by(|a, b| {
        let primary = by_key(a, b, key);
        let primary = if reverse { primary.reverse() } else { primary };
        primary
            .then_with(|| worst_first(a, b))
            .then_with(|| a.host.cmp(&b.host))
    });
}

fn usage_of(row: &HostRow) -> f64 {
    row.worst_usage.as_ref().map_or(-1.0, |u| u.ratio)
}

fn nic_of(row: &HostRow) -> (usize, usize, usize) {
    (row.nic.critical, row.nic.warning, row.nic.notice)
}

fn by_key(a: &HostRow, b: &HostRow, key: SortKey) -> Ordering {
    match key {
        SortKey::Worst => worst_first(a, b),
        SortKey::Host => a.host.cmp(&b.host),
        SortKey::Usage => usage_of(b).total_cmp(&usage_of(a)),
        SortKey::ErrorQps => b.error_qps.cmp(&a.error_qps),
        SortKey::LeakSuspects => b.leak_suspects.cmp(&a.leak_suspects),
        SortKey::Nic => nic_of(b).cmp(&nic_of(a)),
        SortKey::ScrapeAge => b.scrape_age.cmp(&a.scrape_age),
    }
}

fn worst_first(a: &HostRow, b: &HostRow) -> Ordering {
    a.status
        .cmp(&b.status)
        .then_with(|| b.nic.critical.cmp(&a.nic.critical))
        .then_with(|| b.error_qps.cmp(&a.error_qps))
        .then_with(|| usage_of(b).total_cmp(&usage_of(a)))
        .then_with(|| b.leak_suspects.cmp(&a.leak_suspects))
        .then_with(|| nic_of(b).cmp(&nic_of(a)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::reading::NicProblem;
    use crate::model::ResourceType;

    fn rules() -> RowRules {
        RowRules {
            thresholds: Thresholds::default(),
            stale_after: Millis(30_000),
        }
    }

    fn host(name: &str) -> HostReport {
        HostReport {
            exporters: vec![format!("{name}:9879")],
            scraped_at: Some(UnixMs(100_000)),
            collecting: Some(true),
            devices: Some(2),
            ..HostReport::named(name)
        }
    }

    fn reading(hosts: Vec<HostReport>) -> FleetReading {
        FleetReading {
            read_at: UnixMs(105_000),
            hosts,
            ..FleetReading::default()
        }
    }

    #[test]
    fn troubled_hosts_come_first_and_down_ones_before_all() {
        let healthy = host("a-healthy");
        let mut leaking = host("b-leak");
        leaking.leak_suspects = 2;
        let mut broken = host("c-errqp");
        broken.error_qps = 3;
        let mut down = host("d-down");
        down.reach = Reach::Down {
            reason: "connection refused".into(),
        };
        let mut full = host("e-full");
        full.worst_usage = Some(Usage {
            device: "mlx5_0".into(),
            rtype: ResourceType::Qp,
            ratio: 0.97,
            limit: super::super::reading::LimitKind::Device,
        });
        let rows = host_rows(
            &reading(vec![healthy, leaking, broken, down, full]),
            &rules(),
            false,
        );
        let order: Vec<&str> = rows.iter().map(|r| r.host.as_str()).collect();
        assert_eq!(
            order,
            ["d-down", "c-errqp", "e-full", "b-leak", "a-healthy"]
        );
        assert_eq!(rows[0].status, RowStatus::Down);
        assert_eq!(rows[0].why, ["scrape failed: connection refused"]);
        assert_eq!(rows[2].why, ["mlx5_0 qp at 97%"]);
        assert_eq!(rows[4].status, RowStatus::Ok);
    }

    #[test]
    fn an_old_scrape_or_a_stale_reading_is_never_healthy() {
        let mut old = host("old");
        old.scraped_at = Some(UnixMs(10_000));
        let rows = host_rows(&reading(vec![old, host("fresh")]), &rules(), false);
        assert_eq!(rows[0].status, RowStatus::Stale);
        assert_eq!(rows[0].scrape_age, Some(Millis(95_000)));
        assert_eq!(rows[1].status, RowStatus::Ok);
        let rows = host_rows(&reading(vec![host("fresh")]), &rules(), true);
        assert_eq!(rows[0].status, RowStatus::Stale);
    }

    #[test]
    fn a_port_down_is_critical_and_counts_by_severity() {
        let mut h = host("nic");
        h.nic = vec![
            NicProblem {
                device: "mlx5_0".into(),
                port: "1".into(),
                severity: Severity::Critical,
                what: "port down".into(),
                rate: None,
            },
            NicProblem {
                device: "mlx5_0".into(),
                port: "2".into(),
                severity: Severity::Warning,
                what: "out_of_sequence".into(),
                rate: Some(3.0),
            },
        ];
        let rows = host_rows(&reading(vec![h]), &rules(), false);
        assert_eq!(rows[0].status, RowStatus::Critical);
        assert_eq!(
            rows[0].nic,
            NicHealth {
                critical: 1,
                warning: 1,
                notice: 0
            }
        );
    }

    #[test]
    fn sorting_by_a_key_and_reversed_keeps_a_total_order() {
        let mut a = host("a");
        a.error_qps = 1;
        let mut b = host("b");
        b.error_qps = 5;
        let mut rows = host_rows(&reading(vec![a, b, host("c")]), &rules(), false);
        sort_rows(&mut rows, SortKey::Host, false);
        assert_eq!(rows[0].host, "a");
        sort_rows(&mut rows, SortKey::Host, true);
        assert_eq!(rows[0].host, "c");
        sort_rows(&mut rows, SortKey::ErrorQps, false);
        assert_eq!(rows[0].host, "b");
        for key in SortKey::ALL {
            assert_eq!(SortKey::from_name(key.name()), Some(key));
        }
    }
}
