//! Device events: a thread that listens to the kernel's `MONITOR`
//! notifications, so a new or removed device is seen at once, not at the next
//! tick.
//!
//! Kernels from 6.12 multicast `RDMA_NLDEV_CMD_MONITOR` messages to the group
//! `RDMA_NL_GROUP_NOTIFY` when a device registers or unregisters, a port's
//! netdev attaches or detaches, and (6.13) on renames; `SYS_GET` advertises
//! them with `SYS_ATTR_MONITOR_MODE` (numbers in `nldev/consts.rs`). Events
//! are sent in the device's own network namespace, so each namespace restop
//! reads has its own listener, on a socket opened there. Unprivileged users
//! may join the group.
//!
//! The listener only rings the [`bell`](wake::bell) and queues what it heard;
//! the collection is what re-enumerates the devices (summary, `GET`,
//! `PORT_GET`), with objects and counters still on their own rhythm. Where
//! the kernel sends no events the devices are simply read at every tick.

pub(crate) mod wake;

use crate::nldev::consts::RDMA_NL_GROUP_NOTIFY;
use crate::nldev::event::parse_events;
use crate::nldev::socket::{RECV_BUFFER, connect_groups, from_kernel, receive};
use crate::nldev::{DeviceEvent, NlError};
use neli::consts::socket::NlFamily;
use neli::utils::Groups;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the listener looks whether it should end (its receive timeout).
const STOP_POLL: Duration = Duration::from_millis(200);

/// At most this many events wait for the next collection (a storm keeps the latest).
const MAX_QUEUED: usize = 256;

/// A running listener; dropping it tells the thread to end (within
/// [`STOP_POLL`], without waiting for it: a `--once` run does not wait).
pub(crate) struct DeviceMonitor {
    stop: Arc<AtomicBool>,
    heard: Arc<Mutex<Heard>>,
    thread: Option<JoinHandle<()>>,
    _active: wake::Active,
}

#[derive(Default)]
struct Heard {
    events: Vec<DeviceEvent>,
    problems: Vec<String>,
}

impl std::fmt::Debug for DeviceMonitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceMonitor").finish_non_exhaustive()
    }
}

impl DeviceMonitor {
    /// Joins the notification group in restop's namespace, or in `netns`.
    pub(crate) fn start(netns: Option<&Path>) -> Result<DeviceMonitor, NlError> {
        let socket = match netns {
            None => notify_socket()?,
            Some(path) => crate::nldev::netns::in_netns(path, || {
                notify_socket().map_err(|e| io::Error::other(e.to_string()))
            })
            .map_err(|source| NlError::Io {
                op: "setns",
                source,
            })?,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let heard = Arc::new(Mutex::new(Heard::default()));
        let thread = {
            let (stop, heard) = (Arc::clone(&stop), Arc::clone(&heard));
            let name = netns.map_or_else(|| "restop-events".into(), label_of);
            std::thread::Builder::new()
                .name(name)
                .spawn(move || listen(socket, &stop, &heard))
                .map_err(|source| NlError::Io {
                    op: "spawn",
                    source,
                })?
        };
        Ok(DeviceMonitor {
            stop,
            heard,
            thread: Some(thread),
            _active: wake::Active::new(),
        })
    }

    /// The events heard since the last call, oldest first, and what went
    /// wrong with the listener (it stops after a failure; the devices are
    /// still read every tick).
    pub(crate) fn take(&self) -> (Vec<DeviceEvent>, Vec<String>) {
        let mut heard = self.heard.lock().unwrap_or_else(PoisonError::into_inner);
        (
            std::mem::take(&mut heard.events),
            std::mem::take(&mut heard.problems),
        )
    }
}

impl Drop for DeviceMonitor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Detached: it ends at its next receive timeout.
        drop(self.thread.take());
    }
}

fn label_of(path: &Path) -> String {
    format!("restop-events {}", path.display())
}

fn notify_socket() -> Result<neli::socket::NlSocket, NlError> {
    connect_groups(
        NlFamily::Rdma,
        Groups::new_groups(&[RDMA_NL_GROUP_NOTIFY]),
        STOP_POLL,
    )
}

/// Reads datagrams until told to stop; every one from the kernel that holds
/// an event rings the bell.
fn listen(socket: neli::socket::NlSocket, stop: &AtomicBool, heard: &Mutex<Heard>) {
    let mut buf = vec![0u8; RECV_BUFFER];
    let problem = |what: String| {
        let mut heard = heard.lock().unwrap_or_else(PoisonError::into_inner);
        if heard.problems.len() < 8 {
            heard.problems.push(what);
        }
    };
    while !stop.load(Ordering::Relaxed) {
        match receive(socket.as_raw_fd(), &mut buf) {
            Ok((_, sender)) if !from_kernel(sender.as_ref()) => continue,
            Ok((len, _)) if len > buf.len() => {
                // ENOBUFS-like loss: something changed, look again.
                problem(format!("a {len}-byte event datagram was cut"));
                wake::bell().ring();
            }
            Ok((len, _)) => match parse_events(buf.get(..len).unwrap_or(&[])) {
                Ok(events) if events.is_empty() => {}
                Ok(events) => {
                    {
                        let mut heard = heard.lock().unwrap_or_else(PoisonError::into_inner);
                        heard.events.extend(events);
                        let excess = heard.events.len().saturating_sub(MAX_QUEUED);
                        heard.events.drain(..excess);
                    }
                    wake::bell().ring();
                }
                Err(e) => problem(e.to_string()),
            },
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            // The group overflowed (ENOBUFS): events were lost; re-read the devices.
            Err(e) if e.raw_os_error() == Some(nix::libc::ENOBUFS) => wake::bell().ring(),
            Err(e) => {
                problem(format!("device events stopped: {e}"));
                return;
            }
        }
    }
}

/// What a listener's owner keeps: the listener, or why there is none.
#[derive(Debug, Default)]
pub(crate) enum Listening {
    /// Not decided yet (no `SYS_GET` answer so far).
    #[default]
    Undecided,
    On(DeviceMonitor),
    /// No listener (the kernel sends no events, it could not be opened,
    /// `--no-device-events`); why goes to the debug log as `decide`'s note.
    Off,
}

impl Listening {
    /// Starts listening when the kernel offers events (`SYS_GET`'s monitor mode);
    /// decides once. Returns a note for the debug log when something was decided.
    pub(crate) fn decide(
        &mut self,
        offered: Option<bool>,
        netns: Option<&PathBuf>,
    ) -> Option<String> {
        if !matches!(self, Listening::Undecided) {
            return None;
        }
        let (next, note) = match offered {
            Some(true) => match DeviceMonitor::start(netns.map(PathBuf::as_path)) {
                Ok(m) => (
                    Listening::On(m),
                    "device events: listening to the kernel's MONITOR notifications".to_string(),
                ),
                Err(e) => {
                    let why = format!(
                        "device events could not be joined ({e}): devices polled every tick"
                    );
                    (Listening::Off, why)
                }
            },
            _ => {
                let why = "device events: this kernel sends none (SYS_GET has no monitor mode): devices polled every tick".to_string();
                (Listening::Off, why)
            }
        };
        *self = next;
        Some(note)
    }

    pub(crate) fn take(&self) -> (Vec<DeviceEvent>, Vec<String>) {
        match self {
            Listening::On(m) => m.take(),
            _ => (Vec::new(), Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_events_from_the_kernel_devices_are_polled() {
        let mut l = Listening::default();
        let note = l.decide(None, None).unwrap();
        assert!(note.contains("polled every tick"), "{note}");
        assert!(matches!(l, Listening::Off));
        assert_eq!(l.decide(Some(true), None), None, "decided once");
        let mut l = Listening::default();
        l.decide(Some(false), None);
        assert!(matches!(l, Listening::Off));
    }
}
