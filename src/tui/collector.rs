//! The collector thread: collects at the interval and sends each snapshot as
//! an `Event`, so a slow kernel or procfs never holds up the keyboard.

use crate::app::Event;
use crate::model::DetailScope;
use crate::source::{CollectError, CollectRequest, Source};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// What the event loop tells the collector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    SetInterval(Duration),
    /// Keep these objects in detail; collect again right away.
    SetDetails(DetailScope),
    /// A replay: read and send this snapshot (the collector ignores it).
    Show(usize),
    Stop,
}

pub fn spawn(
    mut source: Box<dyn Source>,
    interval: Duration,
    events: Sender<Event>,
    control: Receiver<Control>,
) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("restop-collector".into())
        .spawn(move || run(source.as_mut(), interval, &events, &control))
}

fn run(
    source: &mut dyn Source,
    mut interval: Duration,
    events: &Sender<Event>,
    control: &Receiver<Control>,
) {
    let mut details = DetailScope::ErrorsOnly;
    let mut force_objects = false;
    loop {
        let started = Instant::now();
        let request = CollectRequest {
            details: details.clone(),
            force_objects,
        };
        force_objects = false;
        let result = source.collect(&request).map(Box::new);
        let finished = matches!(result, Err(CollectError::Exhausted));
        let event = Event::Snapshot {
            result,
            details: details.clone(),
        };
        if events.send(event).is_err() {
            return;
        }
        // Wait for the next collection, reacting to control messages meanwhile.
        loop {
            let message = if finished {
                // A replay that has ended: nothing to collect, only wait to be told.
                control.recv().map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                let due = started + interval;
                control.recv_timeout(due.saturating_duration_since(Instant::now()))
            };
            match message {
                Ok(Control::SetInterval(d)) => interval = d,
                Ok(Control::SetDetails(scope)) => {
                    details = scope;
                    force_objects = true;
                    break;
                }
                Ok(Control::Show(_)) => {}
                Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Meta, Snapshot, SourceKind};
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
                    collected_at_ms: 0,
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
