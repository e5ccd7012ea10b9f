//! The collection loop: collect on a fixed cadence, update health, render
//! the exposition once, and hand it on. Scrapes never collect; they read what
//! the last collection rendered.

use super::exposition::Format;
use super::health::Health;
use super::render::{ErrorQpAges, LeakSuspect, RenderInput, render_with_problems};
use super::top_owners::OwnerOptions;
use crate::model::filter::Filter;
use crate::model::history::{History, HistoryConfig, Insights};
use crate::model::problems::Problem;
use crate::model::{DetailScope, Millis, Snapshot};
use crate::session::{Flow, Pacer};
use crate::source::{CollectRequest, Source};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One collection's output, in both formats, ready to be sent as is.
#[derive(Debug)]
pub struct Exposition {
    pub text: Vec<u8>,
    pub openmetrics: Vec<u8>,
    /// How many collections had run when this was rendered.
    pub collections: u64,
}

impl Exposition {
    pub fn body(&self, format: Format) -> &[u8] {
        match format {
            Format::Text => &self.text,
            Format::OpenMetrics => &self.openmetrics,
        }
    }
}

/// The latest exposition, shared between the collector and the scrapes. The
/// lock is held only to swap or clone an `Arc`, never while collecting,
/// rendering or writing to a socket.
#[derive(Debug)]
pub struct Latest(Mutex<Arc<Exposition>>);

impl Latest {
    pub fn new(first: Exposition) -> Latest {
        Latest(Mutex::new(Arc::new(first)))
    }

    pub fn get(&self) -> Arc<Exposition> {
        Arc::clone(&self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    pub fn set(&self, next: Exposition) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Arc::new(next);
    }
}

/// Asks a loop to stop, waking it from its sleep.
#[derive(Debug, Default)]
pub struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl Stop {
    pub fn new() -> Arc<Stop> {
        Arc::new(Stop::default())
    }

    pub fn stop(&self) {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.wake.notify_all();
    }

    pub fn is_stopped(&self) -> bool {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sleeps until `deadline` or a stop; true when stopped.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if *stopped {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            stopped = self
                .wake
                .wait_timeout(stopped, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Per device, the age of its oldest QP in ERR/SQE (devices without any have
/// no series: an age of nothing is not zero).
fn oldest_error_ages(insights: &Insights) -> ErrorQpAges {
    let mut ages = ErrorQpAges::new();
    for e in &insights.error_qps {
        let Some(age) = e.age else { continue };
        note_age(&mut ages, &e.qp.device, age.ms);
    }
    // A failed QP dump does not end an episode: its age goes on.
    for e in &insights.unlisted_error_qps {
        note_age(&mut ages, &e.device, e.age_ms);
    }
    ages
}

fn note_age(ages: &mut ErrorQpAges, device: &str, age: Millis) {
    let age = age.as_duration();
    let oldest = ages.entry(device.to_string()).or_insert(age);
    *oldest = (*oldest).max(age);
}

/// Every owner and type the history judges a leak suspect.
fn leak_suspects(insights: &Insights) -> Vec<LeakSuspect> {
    insights
        .suspected_types()
        .map(|(owner, resource)| LeakSuspect {
            pid: owner.owner.pid().map(|p| p.to_string()).unwrap_or_default(),
            name: owner.name.clone(),
            resource,
        })
        .collect()
}

/// A source, its health, and how to render what it gives.
pub struct Collector {
    source: Box<dyn Source>,
    health: Health,
    top: usize,
    owners: OwnerOptions,
    /// Watches QPs and counts across collections: ERROR-QP ages and leak
    /// suspects come from here.
    history: History,
}

impl Collector {
    /// `top`: owners per type in per-owner metrics.
    pub fn new(source: Box<dyn Source>, top: usize) -> Collector {
        let health = Health::new(source.kind());
        Collector {
            source,
            health,
            top,
            owners: OwnerOptions::default(),
            history: History::new(HistoryConfig::default()),
        }
    }

    /// Per-owner series by process, container or pod, with or without `pid`.
    pub fn with_owners(mut self, owners: OwnerOptions) -> Collector {
        self.owners = owners;
        self
    }

    /// Judges ERROR-QP ages and leak suspects with this history
    /// (`--retention`, `--trend-window`, `--err-linger`).
    pub fn with_history(mut self, config: HistoryConfig) -> Collector {
        self.history = History::new(config);
        self
    }

    pub fn health(&self) -> &Health {
        &self.health
    }

    /// Collects once and renders both formats. A failed collection still
    /// renders: health says what failed, and no stale resource numbers are kept.
    pub fn collect(&mut self) -> Exposition {
        let request = CollectRequest {
            details: DetailScope::ErrorsOnly,
            force_objects: false,
        };
        let started = Instant::now();
        let outcome = self.source.collect(&request);
        let took = started.elapsed();
        let snapshot: Option<Snapshot> = match outcome {
            Ok(snapshot) => {
                self.health
                    .record_success(&snapshot, took, crate::model::time::now());
                self.history.push(&snapshot);
                Some(snapshot)
            }
            Err(err) => {
                self.health.record_failure(&err, took);
                None
            }
        };
        let (ages, suspects, problems) = match &snapshot {
            Some(s) => {
                let insights = self.history.insights(s, &Filter::default());
                (
                    oldest_error_ages(&insights),
                    leak_suspects(&insights),
                    insights.problems,
                )
            }
            None => {
                let failed = match &self.health.last_error {
                    Some(message) => message.clone(),
                    None => "nothing collected".to_string(),
                };
                (
                    ErrorQpAges::new(),
                    Vec::new(),
                    vec![Problem::collection_failed(
                        &failed,
                        crate::model::time::now(),
                    )],
                )
            }
        };
        let input = RenderInput {
            snapshot: snapshot.as_ref(),
            health: &self.health,
            top: self.top,
            error_qp_ages: Some(&ages),
            leak_suspects: Some(&suspects),
        };
        Exposition {
            text: render_with_problems(&input, Format::Text, &self.owners, Some(&problems))
                .into_bytes(),
            openmetrics: render_with_problems(
                &input,
                Format::OpenMetrics,
                &self.owners,
                Some(&problems),
            )
            .into_bytes(),
            collections: self.health.collections,
        }
    }

    /// Collects at `first`, then every `interval` (measured from the start of
    /// each collection; one that overruns is followed by the next at once)
    /// until `stop`, handing each exposition to `sink`. The session driver's
    /// pacing, with the exporter's stop as the waiter.
    pub fn run(
        &mut self,
        first: Instant,
        interval: Duration,
        stop: &Stop,
        mut sink: impl FnMut(Exposition, &Health),
    ) {
        let mut pacer = Pacer::every(interval).first_at(first);
        pacer.run(&mut &*stop, &mut |_| {
            let exposition = self.collect();
            sink(exposition, &self.health);
            Flow::Continue
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use crate::model::SourceKind;
    use crate::source::CollectError;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Failing;

    impl Source for Failing {
        fn kind(&self) -> SourceKind {
            SourceKind::Live
        }
        fn collect(&mut self, _: &CollectRequest) -> Result<Snapshot, CollectError> {
            Err(CollectError::NoRdmaSupport("EPROTONOSUPPORT".into()))
        }
    }

    #[test]
    fn a_failed_collection_renders_health_only() {
        let mut c = Collector::new(Box::new(Failing), 20);
        let e = c.collect();
        let text = String::from_utf8(e.text).unwrap();
        assert!(text.contains("restop_up{source=\"live\"} 0\n"), "{text}");
        assert!(text.contains("restop_collection_errors_total{kind=\"no_rdma\"} 1\n"));
        assert!(!text.contains("restop_resources"));
        assert!(!text.contains("restop_last_success_timestamp_seconds"));
    }

    #[test]
    fn a_demo_collection_renders_devices() {
        let mut c = Collector::new(Box::new(DemoSource::new(1, Duration::from_secs(2))), 20);
        let e = c.collect();
        let text = String::from_utf8(e.text).unwrap();
        assert!(text.contains("restop_up{source=\"demo\"} 1\n"));
        assert!(text.contains("restop_resources{device=\"mlx5_0\",type=\"qp\"}"));
        assert_eq!(e.collections, 1);
    }

    #[test]
    fn run_collects_at_once_then_every_interval_until_stopped() {
        let stop = Stop::new();
        let count = AtomicUsize::new(0);
        let mut c = Collector::new(Box::new(DemoSource::new(1, Duration::from_secs(2))), 20);
        c.run(Instant::now(), Duration::from_millis(10), &stop, |_, _| {
            if count.fetch_add(1, Ordering::SeqCst) == 2 {
                stop.stop();
            }
        });
        assert_eq!(count.load(Ordering::SeqCst), 3);
        assert_eq!(c.health().collections, 3);
    }

    #[test]
    fn stop_wakes_a_sleeping_loop() {
        let stop = Stop::new();
        let far = Instant::now() + Duration::from_secs(60);
        let s = Arc::clone(&stop);
        let t = std::thread::spawn(move || s.wait_until(far));
        std::thread::sleep(Duration::from_millis(20));
        stop.stop();
        assert!(t.join().unwrap());
    }

    #[test]
    fn the_demo_leak_reaches_the_exposition() {
        let demo = crate::demo::DemoSource::new(1, Duration::from_secs(2));
        let mut c = Collector::new(Box::new(demo), 20);
        let mut text = String::new();
        // Two simulated minutes: enough history for a leak verdict.
        for _ in 0..60 {
            text = String::from_utf8(c.collect().text).unwrap();
        }
        assert!(
            text.lines()
                .any(|l| l.starts_with("restop_process_leak_suspect{")
                    && l.contains("name=\"leaky_svc\"")
                    && l.ends_with(" 1")),
            "{text}"
        );
        assert!(!text.contains("restop_leak_suspects 0"));
    }
}
