//! The fleet without Prometheus: `--hosts a:9879,b:9879` or `--hosts-file FILE` scrapes the
//! exporters directly, a bounded number at a time, each within what is left of the refresh's
//! timeout, gzip-compressed (`exposition.rs` reads the text, `facts.rs` the host's facts).
//! A refresh therefore ends within the timeout however many exporters hang, as long as no more
//! of them hang than scrape at once; exporters not reached in time are marked down.

pub mod exposition;
pub mod facts;

use super::http::Client;
use super::model::{FleetReading, HostReport, Reach};
use super::source::{FleetError, FleetSource};
use crate::model::time::now;
use exposition::Bounds;
use facts::{CounterMemory, HostScrape, groups, host_facts};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The exporters to scrape and how.
pub(crate) struct DirectSource {
    client: Client,
    targets: Vec<String>,
    concurrency: usize,
    timeout: Duration,
    memory: BTreeMap<String, CounterMemory>,
}

impl DirectSource {
    pub(crate) fn new(
        client: Client,
        targets: Vec<String>,
        concurrency: usize,
        timeout: Duration,
    ) -> DirectSource {
        DirectSource {
            client,
            targets,
            concurrency: concurrency.max(1),
            timeout,
            memory: BTreeMap::new(),
        }
    }

    /// `host:port` → its metrics URL; a full `http(s)://` URL is taken as it is.
    fn url(target: &str) -> String {
        if target.starts_with("http://") || target.starts_with("https://") {
            target.to_string()
        } else {
            format!("http://{target}/metrics")
        }
    }

    /// Scrapes every target; the answers in target order.
    fn scrape_all(&self) -> Vec<Result<HostScrape, String>> {
        let deadline = Instant::now() + self.timeout;
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Result<HostScrape, String>>>> =
            Mutex::new(vec![None; self.targets.len()]);
        let workers = self.concurrency.min(self.targets.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(target) = self.targets.get(i) else {
                            break;
                        };
                        let outcome = self.scrape_one(target, deadline);
                        if let Ok(mut slots) = results.lock()
                            && let Some(slot) = slots.get_mut(i)
                        {
                            *slot = Some(outcome);
                        }
                    }
                });
            }
        });
        results
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("not scraped".into())))
            .collect()
    }

    fn scrape_one(&self, target: &str, deadline: Instant) -> Result<HostScrape, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "not reached within {}s",
                self.timeout.as_secs_f64()
            ));
        }
        let answer = self
            .client
            .get_within(
                &Self::url(target),
                &[],
                "text/plain;version=0.0.4",
                false,
                left,
            )
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&answer.body);
        let samples = exposition::parse(&text, "restop_", &Bounds::default())
            .map_err(|e| format!("not a restop exposition: {e}"))?;
        if !samples
            .iter()
            .any(|s| s.name == "restop_build_info" || s.name == "restop_up")
        {
            return Err("not a restop exporter (no restop_up)".into());
        }
        let previous = self.memory.get(target).cloned().unwrap_or_default();
        Ok(host_facts(target, &samples, now(), &previous))
    }
}

impl FleetSource for DirectSource {
    fn describe(&self) -> String {
        format!("{} exporters, scraped directly", self.targets.len())
    }

    fn read(&mut self) -> Result<FleetReading, FleetError> {
        let results = self.scrape_all();
        let mut reading = FleetReading::default();
        let mut processes = Vec::new();
        let mut answered = 0;
        for (target, result) in self.targets.iter().zip(results) {
            match result {
                Ok(scrape) => {
                    answered += 1;
                    let mut report = scrape.report;
                    report.exporters = vec![target.clone()];
                    reading.hosts.push(report);
                    processes.extend(scrape.consumers);
                    reading.suspects.extend(scrape.suspects);
                    self.memory.insert(target.clone(), scrape.counters);
                }
                Err(reason) => {
                    let mut report = HostReport::named(target);
                    report.exporters = vec![target.clone()];
                    report.reach = Reach::Down { reason };
                    reading.hosts.push(report);
                }
            }
        }
        if answered == 0 && !self.targets.is_empty() {
            return Err(FleetError::NoHost(self.targets.len()));
        }
        let (pods, namespaces) = groups(&processes);
        reading.processes = processes;
        reading.pods = pods;
        reading.namespaces = namespaces;
        reading.read_at = now();
        Ok(reading)
    }

    fn detail(&mut self, host: &str) -> Result<FleetReading, FleetError> {
        let mut reading = self.read()?;
        reading.hosts.retain(|h| h.host == host);
        reading.processes.retain(|c| c.host == host);
        reading.pods.retain(|c| c.host == host);
        reading.suspects.retain(|s| s.host == host);
        Ok(reading)
    }
}

/// Targets from `--hosts` and `--hosts-file` text: one `host:port` (or URL) per item,
/// separated by commas, spaces or lines; `#` starts a comment. Duplicates are dropped.
pub(crate) fn parse_targets(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        for item in line
            .split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            if !out.iter().any(|t| t == item) {
                out.push(item.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_come_from_lists_and_files_alike() {
        assert_eq!(
            parse_targets("a:9879, b:9879\n# comment\nc:1 a:9879 # again\n\n"),
            ["a:9879", "b:9879", "c:1"]
        );
        assert_eq!(DirectSource::url("a:1"), "http://a:1/metrics");
        assert_eq!(DirectSource::url("https://x/m"), "https://x/m");
    }
}
