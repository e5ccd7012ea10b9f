//! The fleet's feed thread: reads the source at the refresh interval, and a host's detail when
//! the view asks for one, off the view's thread, so a slow Prometheus never holds up the keys.
//! It knows nothing of the terminal: each outcome goes to a `send` callback (the full-screen
//! view wraps it in its own event), requests come over a channel.

use super::http::Client;
use super::model::FleetReading;
use super::scrape::DirectSource;
use super::source::FleetSource;
use crate::model::time::now;
use crate::model::{Millis, UnixMs};
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
    Stop,
}

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
            loop {
                let wait = next.saturating_duration_since(Instant::now());
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
                    Ok(FeedRequest::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                    Err(RecvTimeoutError::Timeout) => {}
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
                next = started + interval;
            }
        })
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
}
