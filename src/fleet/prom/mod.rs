//! The fleet read through a Prometheus server: the queries (`queries.rs`), the API's JSON
//! (`api.rs`) and the facts decoded into a reading (`decode.rs`).

pub mod api;
pub mod decode;
pub mod queries;

use super::http::{Client, FetchError};
use super::model::FleetReading;
use super::source::{FleetError, FleetSource};
use crate::model::time::now;
use api::Instant;
use decode::Decoder;
use queries::{QueryPlan, RULES_PROBE};
use std::time::Duration;

/// Clock differences below this are noise (scrape and evaluation jitter, the query's own time).
const SKEW_NOTE_AFTER: Duration = Duration::from_secs(10);

/// A Prometheus server as the fleet's source.
pub(crate) struct PromSource {
    client: Client,
    base: String,
    plan: QueryPlan,
}

impl PromSource {
    /// `url` is the server's base (`http://prometheus:9090`, or behind a path prefix).
    pub(crate) fn new(client: Client, url: &str, host_label: &str, top: usize) -> PromSource {
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
    pub(crate) fn instant(&self, query: &str) -> Result<Instant, FleetError> {
        let url = format!("{}/api/v1/query", self.base);
        let answer = self
            .client
            .get(&url, &[("query", query)], "application/json", true)?;
        api::parse_instant(&answer.body).map_err(|e| FleetError::Api { url, error: e })
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

    fn read(&mut self) -> Result<FleetReading, FleetError> {
        self.probe_rules()?;
        let answers = [
            self.instant(&self.plan.hosts())?,
            self.instant(&self.plan.problems())?,
            self.instant(&self.plan.consumers())?,
        ];
        let mut reading = reading_of(&answers, &self.plan.host_label);
        if !self.plan.recorded {
            reading.notes.push(
                "recording rules not loaded (assets/prometheus/restop-fleet-rules.yml): \
                 queries are computed inline"
                    .into(),
            );
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
