//! The exporter's one serving thread: a poll(2) loop over the listening
//! socket and every open connection.
//!
//! Why not a thread per connection: a connection that trickles its request
//! head, idles or never reads its answer then holds a thread (and with a cap
//! on threads, a slot) for its whole time budget, and a few dozen of them
//! keep every scraper out. Here an open connection costs its socket and a
//! request buffer of at most `max_request_bytes`, and when the table of
//! `max_connections` is full the *oldest* connection is closed to make room.
//! A real scraper sends its request as soon as it connects and is answered
//! within milliseconds, so it is never the oldest; an attacker can only push
//! out its own stalled connections. Memory and threads stay bounded however
//! many clients come.

use super::connections::{Connection, Done, Wants};
use super::request::RequestHead;
use super::response::Response;
use super::server::Limits;
use crate::export::collector::Stop;
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use std::io;
use std::net::TcpListener;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often `stop` is looked at when nothing happens.
const TICK: Duration = Duration::from_millis(200);

/// Connections accepted per wake-up, so a flood cannot starve the others.
const ACCEPTS_PER_ROUND: usize = 256;

/// Serves until `stop`, through TLS when `tls` is given; `respond` answers
/// each complete request head.
pub(crate) fn run(
    listener: &TcpListener,
    limits: &Limits,
    tls: Option<&Arc<rustls::ServerConfig>>,
    stop: &Stop,
    respond: &dyn Fn(&RequestHead) -> Response,
) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let capacity = limits.max_connections.max(1);
    let mut connections: Vec<Connection> = Vec::with_capacity(capacity.min(1024));
    while !stop.is_stopped() {
        let now = Instant::now();
        let (listener_ready, ready) = match wait(listener, &connections, now) {
            Ok(r) => r,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let now = Instant::now();
        // Connections whose socket is ready or whose time is up.
        let mut finished = Vec::new();
        for (i, c) in connections.iter_mut().enumerate() {
            let due = ready.get(i).copied().unwrap_or(false) || now >= c.deadline;
            if due && matches!(c.advance(limits, now, respond), Err(Done)) {
                finished.push(i);
            }
        }
        for i in finished.into_iter().rev() {
            connections.swap_remove(i);
        }
        if listener_ready {
            accept(listener, &mut connections, capacity, limits, tls, now);
        }
    }
}

/// Waits for the listener or a connection to be ready, or the earliest
/// deadline. Returns whether the listener is ready and, per connection,
/// whether its socket is.
fn wait(
    listener: &TcpListener,
    connections: &[Connection],
    now: Instant,
) -> Result<(bool, Vec<bool>), Errno> {
    let mut fds = Vec::with_capacity(connections.len() + 1);
    fds.push(PollFd::new(listener.as_fd(), PollFlags::POLLIN));
    let mut timeout = TICK;
    for c in connections {
        let events = match c.wants() {
            Wants::Read => PollFlags::POLLIN,
            Wants::Write => PollFlags::POLLOUT,
        };
        fds.push(PollFd::new(c.stream().as_fd(), events));
        timeout = timeout.min(c.deadline.saturating_duration_since(now));
    }
    let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(_) | Err(Errno::EINTR) => {}
        Err(e) => return Err(e),
    }
    let mut ready = fds
        .iter()
        .map(|fd| fd.revents().is_some_and(|r| !r.is_empty()));
    let listener_ready = ready.next().unwrap_or(false);
    Ok((listener_ready, ready.collect()))
}

fn accept(
    listener: &TcpListener,
    connections: &mut Vec<Connection>,
    capacity: usize,
    limits: &Limits,
    tls: Option<&Arc<rustls::ServerConfig>>,
    now: Instant,
) {
    for _ in 0..ACCEPTS_PER_ROUND {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if is_out_of_descriptors(&e) => {
                // Give the oldest up so the next accept has a descriptor.
                if !close_oldest(connections) {
                    return;
                }
                continue;
            }
            // The client reset before it was accepted, or the like.
            Err(_) => continue,
        };
        if connections.len() >= capacity {
            close_oldest(connections);
        }
        if let Ok(c) = Connection::new(stream, tls, limits, now) {
            connections.push(c);
        }
    }
}

fn is_out_of_descriptors(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(code) if code == Errno::EMFILE as i32 || code == Errno::ENFILE as i32
    )
}

/// Closes the connection accepted first, preferring one still waiting for
/// its request head (one being answered is nearly done). False when there
/// is none.
fn close_oldest(connections: &mut Vec<Connection>) -> bool {
    let oldest = |reading: bool| {
        connections
            .iter()
            .enumerate()
            .filter(|(_, c)| !reading || c.is_reading())
            .min_by_key(|(_, c)| c.accepted)
            .map(|(i, _)| i)
    };
    match oldest(true).or_else(|| oldest(false)) {
        Some(i) => {
            connections.swap_remove(i);
            true
        }
        None => false,
    }
}
