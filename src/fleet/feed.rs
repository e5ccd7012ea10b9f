//! The fleet's feed thread: reads the source at the refresh interval, a host's detail when
//! the view asks for one, and the usage history of the hosts on screen for their sparklines
//! (one range query for the visible rows only, when they change and every
//! [`TRAILS_EVERY`] refreshes), off the view's thread, so a slow Prometheus never holds up
//! the keys.
//! It knows nothing of the terminal: each outcome goes to a `send` callback (the full-screen
//! view wraps it in its own event), requests come over a channel.

use super::http::Client;
use super::model::FleetReading;
use super::model::trails::{Trail, WINDOW, trail_step};
use super::scrape::DirectSource;
use super::source::FleetSource;
use crate::model::time::now;
use crate::model::{Millis, UnixMs};
use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What the view asks of the feed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedRequest {
    /// Refresh now (and then at the interval).
    Refresh,
    SetInterval(Duration),
    /// Read this host's detail now and at every refresh; `None` stops.
    Detail(Option<DetailTarget>),
    /// The hosts whose rows are on screen now, for their sparklines.
    Visible(Vec<String>),
    Stop,
}

/// The sparklines' range query runs again after this many refreshes.
pub const TRAILS_EVERY: u32 = 4;

/// A change of the rows on screen is read this long after the last one, so scrolling through
/// the table sends one range query, not one per row.
const VISIBLE_SETTLES: Duration = Duration::from_millis(200);

/// A host whose detail is wanted: its name in Prometheus, and its exporter's address (the
/// `instance`) for a live scrape of it when it is reachable from here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetailTarget {
    pub host: String,
    pub instance: Option<String>,
}

/// One outcome the feed sends.
#[derive(Clone, Debug, PartialEq)]
pub enum FeedUpdate {
    /// A refresh of the whole fleet: its reading or why it failed, when it ended, how long it
    /// took.
    Fleet {
        outcome: Result<FleetReading, String>,
        at: UnixMs,
        took: Millis,
    },
    /// A host's detail: from the source (Prometheus), and, when an exporter address is known,
    /// read live from the exporter itself.
    Detail {
        host: String,
        outcome: Result<FleetReading, String>,
        live: Option<Result<FleetReading, String>>,
        at: UnixMs,
    },
    /// The usage history of the hosts on screen (host → points), or why it could not be read.
    Trails {
        outcome: Result<BTreeMap<String, Trail>, String>,
    },
}

/// What scrapes a host's exporter directly for the live detail.
#[derive(Clone, Debug)]
pub struct LiveScraper {
    pub client: Client,
    pub timeout: Duration,
}

impl LiveScraper {
    /// The exporter at `instance` read as a one-host fleet.
    pub fn read(&self, instance: &str) -> Result<FleetReading, String> {
        let mut one = DirectSource::new(
            self.client.clone(),
            vec![instance.to_string()],
            1,
            self.timeout,
        );
        one.read().map_err(|e| e.to_string())
    }
}

/// Starts the feed thread. It ends on `Stop`, when the requests channel closes, or when `send`
/// returns false (nobody listens any more).
pub fn spawn(
    mut source: Box<dyn FleetSource + Send>,
    live: Option<LiveScraper>,
    interval: Duration,
    mut send: impl FnMut(FeedUpdate) -> bool + Send + 'static,
    requests: Receiver<FeedRequest>,
) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("restop-fleet-feed".into())
        .spawn(move || {
            let mut interval = interval;
            let mut detail: Option<DetailTarget> = None;
            let mut next = Instant::now();
            let mut trails = TrailsDue::default();
            loop {
                let due = trails.at.map_or(next, |at| at.min(next));
                let wait = due.saturating_duration_since(Instant::now());
                match requests.recv_timeout(wait) {
                    Ok(FeedRequest::Refresh) => next = Instant::now(),
                    Ok(FeedRequest::SetInterval(d)) => {
                        next = next.min(Instant::now() + d);
                        interval = d;
                        continue;
                    }
                    Ok(FeedRequest::Detail(target)) => {
                        detail = target;
                        if let Some(target) = &detail
                            && !send(read_detail(source.as_mut(), live.as_ref(), target))
                        {
                            return;
                        }
                        continue;
                    }
                    Ok(FeedRequest::Visible(hosts)) => {
                        trails.visible_now(hosts);
                        continue;
                    }
                    Ok(FeedRequest::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                    Err(RecvTimeoutError::Timeout) => {}
                }
                if trails.at.is_some_and(|at| Instant::now() >= at) {
                    if let Some(update) = trails.read(source.as_mut(), interval)
                        && !send(update)
                    {
                        return;
                    }
                    continue;
                }
                if Instant::now() < next {
                    continue;
                }
                let started = Instant::now();
                let outcome = source.read().map_err(|e| e.to_string());
                let took = Millis(started.elapsed().as_millis() as u64);
                if !send(FeedUpdate::Fleet {
                    outcome,
                    at: now(),
                    took,
                }) {
                    return;
                }
                if let Some(target) = &detail
                    && !send(read_detail(source.as_mut(), live.as_ref(), target))
                {
                    return;
                }
                trails.refreshed();
                next = started + interval;
            }
        })
}

/// When the sparklines' range query is due, and for which hosts.
struct TrailsDue {
    visible: Vec<String>,
    at: Option<Instant>,
    refreshes: u32,
    /// False once the source said it keeps no history (direct mode): never asked again.
    kept: bool,
}

impl Default for TrailsDue {
    fn default() -> Self {
        TrailsDue {
            visible: Vec::new(),
            at: None,
            refreshes: 0,
            kept: true,
        }
    }
}

impl TrailsDue {
    /// The rows on screen changed: read their history once they settle.
    fn visible_now(&mut self, hosts: Vec<String>) {
        if hosts != self.visible {
            self.visible = hosts;
            if self.kept && !self.visible.is_empty() {
                self.at = Some(Instant::now() + VISIBLE_SETTLES);
            }
        }
    }

    /// A refresh ended: every [`TRAILS_EVERY`] of them the history is read again.
    fn refreshed(&mut self) {
        self.refreshes += 1;
        if self.kept && self.refreshes >= TRAILS_EVERY && !self.visible.is_empty() {
            self.at = Some(Instant::now());
        }
    }

    /// Reads the history of the visible hosts; `None` when the source keeps none.
    fn read(&mut self, source: &mut dyn FleetSource, interval: Duration) -> Option<FeedUpdate> {
        self.at = None;
        self.refreshes = 0;
        match source.usage_history(&self.visible, WINDOW, trail_step(interval)) {
            Ok(Some(history)) => Some(FeedUpdate::Trails {
                outcome: Ok(history),
            }),
            Ok(None) => {
                self.kept = false;
                None
            }
            Err(e) => Some(FeedUpdate::Trails {
                outcome: Err(e.to_string()),
            }),
        }
    }
}

fn read_detail(
    source: &mut dyn FleetSource,
    live: Option<&LiveScraper>,
    target: &DetailTarget,
) -> FeedUpdate {
    let outcome = source.detail(&target.host).map_err(|e| e.to_string());
    let live = match (live, &target.instance) {
        (Some(scraper), Some(instance)) => Some(scraper.read(instance)),
        _ => None,
    };
    FeedUpdate::Detail {
        host: target.host.clone(),
        outcome,
        live,
        at: now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::HostReport;
    use crate::fleet::source::FleetError;
    use std::sync::mpsc;

    struct Slow {
        reads: usize,
    }

    impl FleetSource for Slow {
        fn describe(&self) -> String {
            "test".into()
        }
        fn read(&mut self) -> Result<FleetReading, FleetError> {
            self.reads += 1;
            if self.reads == 2 {
                return Err(FleetError::NoHost(1));
            }
            Ok(FleetReading {
                hosts: vec![HostReport::named("a")],
                ..FleetReading::default()
            })
        }
        fn detail(&mut self, host: &str) -> Result<FleetReading, FleetError> {
            Ok(FleetReading {
                hosts: vec![HostReport::named(host)],
                ..FleetReading::default()
            })
        }
    }

    #[test]
    fn the_feed_refreshes_on_request_and_reads_the_detail_asked_for() {
        let (tx, rx) = mpsc::channel();
        let (req_tx, req_rx) = mpsc::channel();
        let handle = spawn(
            Box::new(Slow { reads: 0 }),
            None,
            Duration::from_secs(3600),
            move |u| tx.send(u).is_ok(),
            req_rx,
        )
        .unwrap();
        let first = rx.recv().unwrap();
        assert!(matches!(first, FeedUpdate::Fleet { outcome: Ok(_), .. }));
        req_tx.send(FeedRequest::Refresh).unwrap();
        let second = rx.recv().unwrap();
        assert!(matches!(
            second,
            FeedUpdate::Fleet {
                outcome: Err(_),
                ..
            }
        ));
        req_tx
            .send(FeedRequest::Detail(Some(DetailTarget {
                host: "b".into(),
                instance: None,
            })))
            .unwrap();
        match rx.recv().unwrap() {
            FeedUpdate::Detail {
                host,
                outcome,
                live,
                ..
            } => {
                assert_eq!(host, "b");
                assert_eq!(outcome.unwrap().hosts[0].host, "b");
                assert!(live.is_none());
            }
            other => panic!("unexpected {other:?}"),
        }
        req_tx.send(FeedRequest::Stop).unwrap();
        handle.join().unwrap();
    }

    /// A source that keeps a history (or not), counting the range reads and naming their hosts.
    struct Kept {
        history: bool,
        asked: std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>,
    }

    impl FleetSource for Kept {
        fn describe(&self) -> String {
            "test".into()
        }
        fn read(&mut self) -> Result<FleetReading, FleetError> {
            Ok(FleetReading::default())
        }
        fn detail(&mut self, _: &str) -> Result<FleetReading, FleetError> {
            Ok(FleetReading::default())
        }
        fn usage_history(
            &mut self,
            hosts: &[String],
            _: Duration,
            step: Duration,
        ) -> Result<Option<BTreeMap<String, Trail>>, FleetError> {
            assert_eq!(step, Duration::from_millis(7_500), "the point bound's step");
            if let Ok(mut asked) = self.asked.lock() {
                asked.push(hosts.to_vec());
            }
            Ok(self.history.then(|| {
                hosts
                    .iter()
                    .map(|h| (h.clone(), vec![(UnixMs(1), 0.5)]))
                    .collect()
            }))
        }
    }

    fn kept(history: bool) -> (Kept, std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>) {
        let asked = std::sync::Arc::default();
        let source = Kept {
            history,
            asked: std::sync::Arc::clone(&asked),
        };
        (source, asked)
    }

    #[test]
    fn the_rows_on_screen_are_read_when_they_change_and_every_few_refreshes() {
        let (source, asked) = kept(true);
        let (tx, rx) = mpsc::channel();
        let (req_tx, req_rx) = mpsc::channel();
        let handle = spawn(
            Box::new(source),
            None,
            Duration::from_millis(20),
            move |u| tx.send(u).is_ok(),
            req_rx,
        )
        .unwrap();
        let hosts = vec!["a".to_string(), "b".to_string()];
        // Scrolling: three changes in a row are one read, of the last rows.
        req_tx.send(FeedRequest::Visible(vec!["x".into()])).unwrap();
        req_tx.send(FeedRequest::Visible(vec!["y".into()])).unwrap();
        req_tx.send(FeedRequest::Visible(hosts.clone())).unwrap();
        let trails = rx
            .iter()
            .find_map(|u| match u {
                FeedUpdate::Trails { outcome } => Some(outcome),
                _ => None,
            })
            .unwrap();
        assert_eq!(trails.unwrap().keys().collect::<Vec<_>>(), ["a", "b"]);
        // Then again after TRAILS_EVERY refreshes, of the same rows.
        let mut refreshes = 0;
        for u in rx.iter() {
            match u {
                FeedUpdate::Fleet { .. } => refreshes += 1,
                FeedUpdate::Trails { .. } => break,
                FeedUpdate::Detail { .. } => {}
            }
        }
        assert!(refreshes >= TRAILS_EVERY, "{refreshes}");
        req_tx.send(FeedRequest::Stop).unwrap();
        handle.join().unwrap();
        let asked = asked.lock().unwrap();
        assert_eq!(asked[0], hosts);
        assert!(asked.iter().all(|h| *h == hosts), "{asked:?}");
    }

    #[test]
    fn a_source_without_history_is_asked_once() {
        let (source, asked) = kept(false);
        let (tx, rx) = mpsc::channel();
        let (req_tx, req_rx) = mpsc::channel();
        let handle = spawn(
            Box::new(source),
            None,
            Duration::from_millis(10),
            move |u| tx.send(u).is_ok(),
            req_rx,
        )
        .unwrap();
        req_tx.send(FeedRequest::Visible(vec!["a".into()])).unwrap();
        let refreshes = rx
            .iter()
            .filter(|u| matches!(u, FeedUpdate::Fleet { .. }))
            .take(3 * TRAILS_EVERY as usize)
            .count();
        req_tx.send(FeedRequest::Visible(vec!["b".into()])).unwrap();
        req_tx.send(FeedRequest::Stop).unwrap();
        handle.join().unwrap();
        assert_eq!(refreshes, 3 * TRAILS_EVERY as usize);
        assert!(
            rx.try_iter()
                .all(|u| !matches!(u, FeedUpdate::Trails { .. }))
        );
        assert_eq!(
            asked.lock().unwrap().len(),
            1,
            "never again after the first None"
        );
    }
}
