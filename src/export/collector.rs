//! The exporter's side of each collection: the session collects (opening,
//! reopening, pacing, stopping); the [`Collector`] takes each tick it brings,
//! updates health and history, and renders the exposition once, in both
//! formats. Scrapes never collect; they read what the last tick rendered.

use super::exposition::Format;
use super::health::Health;
use super::render::{ErrorQpAges, LeakSuspect, RenderInput, render_with_problems};
use super::top_owners::OwnerOptions;
use crate::model::filter::Filter;
use crate::model::history::{History, HistoryConfig, Insights};
use crate::model::problems::Problem;
use crate::model::{Millis, Snapshot, SourceKind};
use crate::session::Tick;
use std::sync::{Arc, Mutex, PoisonError};

/// The session's stop, which the HTTP server waits on too.
pub use crate::session::Stop;

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

/// What the exporter keeps from tick to tick (health, history) and how it
/// renders each one.
pub struct Collector {
    health: Health,
    top: usize,
    owners: OwnerOptions,
    /// Watches QPs and counts across collections: ERROR-QP ages and leak
    /// suspects come from here.
    history: History,
}

impl Collector {
    /// For ticks of a source of this kind; `top`: owners per type in
    /// per-owner metrics.
    pub fn new(kind: SourceKind, top: usize) -> Collector {
        Collector {
            health: Health::new(kind),
            top,
            owners: OwnerOptions::default(),
            history: History::new(HistoryConfig::default()),
        }
    }

    /// Per-owner series by process, container or pod, with or without `pid`.
    pub(crate) fn with_owners(mut self, owners: OwnerOptions) -> Collector {
        self.owners = owners;
        self
    }

    /// Judges ERROR-QP ages and leak suspects with this history
    /// (`--retention`, `--trend-window`, `--err-linger`).
    pub(crate) fn with_history(mut self, config: HistoryConfig) -> Collector {
        self.history = History::new(config);
        self
    }

    pub fn health(&self) -> &Health {
        &self.health
    }

    /// Renders what one tick brought, in both formats. A failed collection
    /// still renders: health says what failed, and no stale resource numbers
    /// are kept.
    pub fn render(&mut self, tick: Tick) -> Exposition {
        let snapshot: Option<Snapshot> = match tick.result {
            Ok(snapshot) => {
                self.health
                    .record_success(&snapshot, tick.took, crate::model::time::now());
                self.history.push(&snapshot);
                Some(snapshot)
            }
            Err(err) => {
                self.health.record_failure(&err, tick.took);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use crate::session::{Flow, Pacer, Session};
    use crate::source::{CollectError, CollectRequest, Source};
    use std::time::{Duration, Instant};

    struct Failing;

    impl Source for Failing {
        fn kind(&self) -> SourceKind {
            SourceKind::Live
        }
        fn collect(&mut self, _: &CollectRequest) -> Result<Snapshot, CollectError> {
            Err(CollectError::NoRdmaSupport("EPROTONOSUPPORT".into()))
        }
    }

    fn session(source: impl Source + 'static) -> Session {
        Session::new(Box::new(source), Pacer::every(Duration::from_millis(10)))
    }

    fn demo() -> Session {
        session(DemoSource::new(1, Duration::from_secs(2)))
    }

    #[test]
    fn a_failed_collection_renders_health_only() {
        let mut s = session(Failing);
        let mut c = Collector::new(s.kind(), 20);
        let e = c.render(s.next_tick());
        let text = String::from_utf8(e.text).unwrap();
        assert!(text.contains("restop_up{source=\"live\"} 0\n"), "{text}");
        assert!(text.contains("restop_collection_errors_total{kind=\"no_rdma\"} 1\n"));
        assert!(!text.contains("restop_resources"));
        assert!(!text.contains("restop_last_success_timestamp_seconds"));
    }

    #[test]
    fn a_demo_collection_renders_devices() {
        let mut s = demo();
        let mut c = Collector::new(s.kind(), 20);
        let e = c.render(s.next_tick());
        let text = String::from_utf8(e.text).unwrap();
        assert!(text.contains("restop_up{source=\"demo\"} 1\n"));
        assert!(text.contains("restop_resources{device=\"mlx5_0\",type=\"qp\"}"));
        assert_eq!(e.collections, 1);
    }

    #[test]
    fn every_tick_of_the_session_is_rendered_until_stopped() {
        let stop = Stop::new();
        let mut s = demo();
        let mut c = Collector::new(s.kind(), 20);
        let first = c.render(s.next_tick());
        assert_eq!(first.collections, 1);
        s.resume_at(Instant::now());
        let mut rendered = Vec::new();
        s.run(&mut &*stop, &mut |tick| {
            rendered.push(c.render(tick).collections);
            if rendered.len() == 2 {
                stop.stop();
            }
            Flow::Continue
        });
        assert_eq!(rendered, [2, 3]);
        assert_eq!(c.health().collections, 3);
    }

    #[test]
    fn the_demo_leak_reaches_the_exposition() {
        let mut s = demo();
        let mut c = Collector::new(s.kind(), 20);
        let mut text = String::new();
        // Two simulated minutes: enough history for a leak verdict.
        for _ in 0..60 {
            text = String::from_utf8(c.render(s.next_tick()).text).unwrap();
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
