//! The fleet read through a Prometheus server: the queries (`queries.rs`), the API's JSON
//! (`api.rs`) and the facts decoded into a reading (`decode.rs`); `tests.rs` checks which
//! queries a refresh sends with and without the recording rules.

pub mod api;
pub mod decode;
pub mod queries;
#[cfg(test)]
mod tests;

use super::http::{Client, FetchError};
use super::model::FleetReading;
use super::model::trails::{MAX_POINTS, Trail};
use super::source::{FleetError, FleetSource};
use crate::model::time::now;
use api::{Instant, Range};
use decode::Decoder;
use queries::{QueryPlan, RECORDED_TOP, RULES_PROBE, RULES_VERSION};
use std::collections::BTreeMap;
use std::time::Duration;

/// What one point of a range answer may take (`[1767225600.123,"0.4523809523809524"]`, with
/// room), and one series' labels and brackets.
const POINT_BYTES: u64 = 64;
const SERIES_BYTES: u64 = 1024;

/// The most bytes a sparkline answer for `hosts` series may take.
fn sparkline_bytes(hosts: usize) -> u64 {
    let hosts = u64::try_from(hosts).unwrap_or(u64::MAX);
    let points = u64::try_from(MAX_POINTS).unwrap_or(u64::MAX);
    hosts
        .saturating_mul(
            points
                .saturating_mul(POINT_BYTES)
                .saturating_add(SERIES_BYTES),
        )
        .saturating_add(64 * 1024)
}

/// Clock differences below this are noise (scrape and evaluation jitter, the query's own time).
const SKEW_NOTE_AFTER: Duration = Duration::from_secs(10);

/// A Prometheus server as the fleet's source.
pub struct PromSource {
    client: Client,
    base: String,
    plan: QueryPlan,
}

impl PromSource {
    /// `url` is the server's base (`http://prometheus:9090`, or behind a path prefix).
    pub fn new(client: Client, url: &str, host_label: &str, top: usize) -> PromSource {
        PromSource {
            client,
            base: url.trim_end_matches('/').to_string(),
            plan: QueryPlan {
                host_label: host_label.to_string(),
                recorded: false,
                top,
            },
        }
    }

    /// One instant query.
    pub fn instant(&self, query: &str) -> Result<Instant, FleetError> {
        let url = format!("{}/api/v1/query", self.base);
        let answer = self
            .client
            .get(&url, &[("query", query)], "application/json", true)?;
        api::parse_instant(&answer.body).map_err(|e| FleetError::Api { url, error: e })
    }

    /// One range query over the last `window`, a point every `step`, its answer read to at
    /// most `max_bytes` (and the client's own bound).
    pub fn range(
        &self,
        query: &str,
        window: Duration,
        step: Duration,
        max_bytes: u64,
    ) -> Result<Range, FleetError> {
        let url = format!("{}/api/v1/query_range", self.base);
        let end = now().0 as f64 / 1000.0;
        let start = end - window.as_secs_f64();
        let (start, end, step) = (
            format!("{start:.3}"),
            format!("{end:.3}"),
            format!("{:.3}", step.as_secs_f64().max(1.0)),
        );
        let answer = self.client.bounded(max_bytes).get(
            &url,
            &[
                ("query", query),
                ("start", &start),
                ("end", &end),
                ("step", &step),
            ],
            "application/json",
            true,
        )?;
        api::parse_range(&answer.body).map_err(|e| FleetError::Api { url, error: e })
    }

    /// The worst usage of each of `hosts` over `window`, for the sparklines of the rows on
    /// screen: one range query naming only them. Bounded: the answer's bytes by what that many
    /// series of [`MAX_POINTS`] points take, series of hosts not asked for dropped, each
    /// series cut to its newest [`MAX_POINTS`] points.
    pub fn usage_sparklines(
        &self,
        hosts: &[String],
        window: Duration,
        step: Duration,
    ) -> Result<BTreeMap<String, Trail>, FleetError> {
        if hosts.is_empty() {
            return Ok(BTreeMap::new());
        }
        let range = self.range(
            &self.plan.usage_sparklines(hosts),
            window,
            step,
            sparkline_bytes(hosts.len()),
        )?;
        let mut out = BTreeMap::new();
        for s in range.series {
            let Some(host) = s
                .labels
                .iter()
                .find(|(k, _)| *k == self.plan.host_label)
                .map(|(_, v)| v.clone())
                .filter(|h| hosts.contains(h))
            else {
                continue;
            };
            let mut points = s.points;
            let excess = points.len().saturating_sub(MAX_POINTS);
            points.drain(..excess);
            out.insert(host, points);
        }
        Ok(out)
    }

    /// Whether the recording rules are loaded (asked until they are).
    fn probe_rules(&mut self) -> Result<(), FleetError> {
        if !self.plan.recorded {
            let answer = self.instant(RULES_PROBE)?;
            self.plan.recorded = answer.samples.iter().any(|s| s.value > 0.0);
        }
        Ok(())
    }
}

impl FleetSource for PromSource {
    fn describe(&self) -> String {
        format!("Prometheus {}", self.base)
    }

    fn usage_history(
        &mut self,
        hosts: &[String],
        window: Duration,
        step: Duration,
    ) -> Result<Option<BTreeMap<String, Trail>>, FleetError> {
        self.probe_rules()?;
        self.usage_sparklines(hosts, window, step).map(Some)
    }

    fn read(&mut self) -> Result<FleetReading, FleetError> {
        self.probe_rules()?;
        let answers = [
            self.instant(&self.plan.hosts())?,
            self.instant(&self.plan.problems())?,
            self.instant(&self.plan.consumers())?,
        ];
        let mut reading = reading_of(&answers, &self.plan.host_label);
        if !self.plan.recorded {
            reading.notes.push(format!(
                "recording rules not loaded, or older than version {RULES_VERSION} \
                 (assets/prometheus/restop-fleet-rules.yml): queries are computed inline"
            ));
        } else if !self.plan.recorded_top_lists() {
            reading.notes.push(format!(
                "--top {} is more than the {RECORDED_TOP} consumers the recording rules keep: \
                 the cluster's top lists are computed inline",
                self.plan.top
            ));
        }
        Ok(reading)
    }

    fn detail(&mut self, host: &str) -> Result<FleetReading, FleetError> {
        self.probe_rules()?;
        let mut facts = self.instant(&self.plan.hosts())?;
        let label = &self.plan.host_label;
        facts.samples.retain(|s| {
            s.label(label) == host || (s.label(label).is_empty() && s.label("instance") == host)
        });
        let answers = [facts, self.instant(&self.plan.detail(host))?];
        Ok(reading_of(&answers, label))
    }
}

/// The answers of one refresh as a reading, with their warnings and the clock skew as notes.
fn reading_of(answers: &[Instant], host_label: &str) -> FleetReading {
    let mut decoder = Decoder::new(host_label);
    for answer in answers {
        for s in &answer.samples {
            decoder.add(s);
        }
    }
    let read_at = now();
    let server_time = answers.iter().find_map(|a| a.eval_time);
    let mut reading = decoder.finish(read_at, server_time);
    let mut warnings: Vec<String> = answers.iter().flat_map(|a| a.warnings.clone()).collect();
    warnings.sort();
    warnings.dedup();
    reading.notes.extend(
        warnings
            .into_iter()
            .map(|w| format!("Prometheus warns: {w}")),
    );
    if let Some(server) = server_time {
        let skew = read_at.0 as i128 - server.0 as i128;
        if skew.unsigned_abs() > SKEW_NOTE_AFTER.as_millis() {
            reading.notes.push(format!(
                "Prometheus' clock is {:.0}s {} this host's; ages are measured on Prometheus' clock",
                skew.unsigned_abs() as f64 / 1000.0,
                if skew > 0 { "behind" } else { "ahead of" }
            ));
        }
    }
    reading
}

impl From<FetchError> for FleetError {
    fn from(e: FetchError) -> Self {
        FleetError::Fetch(e)
    }
}
