//! The collector thread: a session that collects at the interval and sends
//! each snapshot as an `Event`, so a slow kernel or procfs never holds up the
//! keyboard. The event loop steers it through `Control` messages.

use crate::interactive::app::Event;
use crate::model::DetailScope;
use crate::session::{Flow, Pacer, Session, Waiter, Wake};
use crate::source::{CollectError, Source};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What the event loop tells the collector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    SetInterval(Duration),
    /// Keep these objects in detail; collect again right away.
    SetDetails(DetailScope),
    /// A replay: read and send this snapshot (the collector ignores it).
    Show(usize),
    Stop,
}

pub(crate) fn spawn(
    source: Box<dyn Source>,
    interval: Duration,
    events: Sender<Event>,
    control: Receiver<Control>,
) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("restop-collector".into())
        .spawn(move || {
            let mut session = Session::new(source, Pacer::every(interval));
            let panic_after = crate::interactive::terminal::test_hooks::collector_panic_after();
            let mut sent = 0usize;
            session.run(&mut ControlWaiter(control), &mut |tick| {
                if panic_after.is_some_and(|n| sent >= n) {
                    crate::interactive::terminal::test_hooks::panic_in_collector();
                }
                sent += 1;
                let finished = matches!(tick.result, Err(CollectError::Exhausted));
                let event = Event::Snapshot {
                    result: tick.result.map(Box::new),
                    details: tick.details,
                };
                match (events.send(event), finished) {
                    // The event loop is gone: nobody to collect for.
                    (Err(_), _) => Flow::Stop,
                    // A replay that has ended: nothing to collect, only wait to be told.
                    (Ok(()), true) => Flow::Idle,
                    (Ok(()), false) => Flow::Continue,
                }
            });
        })
}

/// Waits on the event loop's control messages.
struct ControlWaiter(Receiver<Control>);

impl Waiter for ControlWaiter {
    fn wait(&mut self, deadline: Option<Instant>) -> Wake {
        loop {
            let message = match deadline {
                Some(due) => self
                    .0
                    .recv_timeout(due.saturating_duration_since(Instant::now())),
                None => self.0.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match message {
                Ok(Control::SetInterval(d)) => return Wake::SetInterval(d),
                Ok(Control::SetDetails(scope)) => return Wake::Collect(scope),
                Ok(Control::Show(_)) => {}
                Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => return Wake::Stop,
                Err(RecvTimeoutError::Timeout) => return Wake::Due,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Meta, Snapshot, SourceKind};
    use crate::source::CollectRequest;
    use std::sync::mpsc;

    /// Records the requests it gets; ends after `limit` collections.
    struct Counting {
        requests: Vec<CollectRequest>,
        limit: usize,
        report: Sender<CollectRequest>,
    }

    impl Source for Counting {
        fn kind(&self) -> SourceKind {
            SourceKind::Demo
        }
        fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
            self.requests.push(request.clone());
            let _ = self.report.send(request.clone());
            if self.requests.len() > self.limit {
                return Err(CollectError::Exhausted);
            }
            Ok(Snapshot {
                meta: Meta {
                    source: SourceKind::Demo,
                    host: "h".into(),
                    kernel: "k".into(),
                    collected_at_ms: crate::model::UnixMs(0),
                    collect_us: 0,
                    netns_mode: None,
                    hidden_fields: Vec::new(),
                    warnings: Vec::new(),
                },
                devices: Vec::new(),
                processes: Vec::new(),
                tallies: Vec::new(),
                objects: Vec::new(),
            })
        }
    }

    #[test]
    fn new_details_trigger_a_forced_collection_with_that_scope() {
        let (report_tx, report_rx) = mpsc::channel();
        let source = Box::new(Counting {
            requests: Vec::new(),
            limit: 10,
            report: report_tx,
        });
        let (events_tx, events_rx) = mpsc::channel();
        let (control_tx, control_rx) = mpsc::channel();
        // A long interval: only the details change can cause the second collection.
        let handle = spawn(source, Duration::from_secs(3600), events_tx, control_rx).unwrap();
        let first = report_rx.recv().unwrap();
        assert_eq!(first.details, DetailScope::ErrorsOnly);
        assert!(matches!(events_rx.recv().unwrap(), Event::Snapshot { .. }));
        let scope = DetailScope::Processes([42].into_iter().collect());
        control_tx.send(Control::SetDetails(scope.clone())).unwrap();
        let second = report_rx.recv().unwrap();
        assert_eq!(second.details, scope);
        assert!(second.force_objects);
        match events_rx.recv().unwrap() {
            Event::Snapshot { details, .. } => assert_eq!(details, scope),
            other => panic!("unexpected {other:?}"),
        }
        control_tx.send(Control::Stop).unwrap();
        handle.join().unwrap();
    }

    #[test]
    fn an_exhausted_source_is_not_asked_again() {
        let (report_tx, report_rx) = mpsc::channel();
        let source = Box::new(Counting {
            requests: Vec::new(),
            limit: 0,
            report: report_tx,
        });
        let (events_tx, events_rx) = mpsc::channel();
        let (control_tx, control_rx) = mpsc::channel();
        let handle = spawn(source, Duration::from_millis(1), events_tx, control_rx).unwrap();
        match events_rx.recv().unwrap() {
            Event::Snapshot { result, .. } => {
                assert!(matches!(result, Err(CollectError::Exhausted)))
            }
            other => panic!("unexpected {other:?}"),
        }
        control_tx.send(Control::Stop).unwrap();
        handle.join().unwrap();
        assert_eq!(report_rx.try_iter().count(), 1);
    }
}
