//! The listener: accepts connections, answers each on its own thread up to a
//! cap (a connection over it waits briefly for a slot, then gets 503 from a
//! single refusing thread), and routes `/metrics` and `/`.
//!
//! Why a hand-written server: the exporter serves two read-only pages, and
//! what matters is that no client can hurt it — a bounded request head, a time
//! budget for reading it and for writing the answer, a cap on concurrent
//! connections, clients vanishing mid-response. Small crates such as
//! tiny_http do not bound header size or connection count and their worker
//! pool grows without limit; a full stack (hyper + tokio) would be most of
//! restop's dependency tree for two GET routes.

use super::negotiate;
use super::request::{RequestError, RequestHead, read_head};
use super::response::{self, Body, Response};
use crate::export::collector::{Latest, Stop};
use std::fmt;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What one client may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request head (request line + header fields).
    pub max_request_bytes: usize,
    /// Time to receive the whole request head.
    pub request_time: Duration,
    /// Time to send the whole response.
    pub response_time: Duration,
    /// Connections served at once. Another one waits (in the kernel's
    /// backlog) up to `slot_wait` for a free slot, then gets 503.
    pub max_connections: usize,
    pub slot_wait: Duration,
    /// How long to drain a client's leftovers after answering.
    pub linger: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_request_bytes: 8 * 1024,
            request_time: Duration::from_secs(10),
            response_time: Duration::from_secs(30),
            max_connections: 16,
            slot_wait: Duration::from_secs(1),
            linger: Duration::from_secs(1),
        }
    }
}

/// Why the listening socket could not be opened, said plainly.
#[derive(Debug)]
pub enum BindError {
    InUse(SocketAddr),
    Denied(SocketAddr),
    NotLocal(SocketAddr),
    Other(SocketAddr, io::Error),
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindError::InUse(a) => write!(
                f,
                "address {a} is in use (is another exporter running?); pick another with --listen"
            ),
            BindError::Denied(a) => write!(
                f,
                "not allowed to listen on {a}: ports below 1024 need CAP_NET_BIND_SERVICE; \
                 pick another with --listen"
            ),
            BindError::NotLocal(a) => {
                write!(
                    f,
                    "cannot listen on {a}: no interface of this host has that address"
                )
            }
            BindError::Other(a, e) => write!(f, "cannot listen on {a}: {e}"),
        }
    }
}

impl std::error::Error for BindError {}

pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    limits: Limits,
}

impl Server {
    pub fn bind(addr: SocketAddr, limits: Limits) -> Result<Server, BindError> {
        let listener = TcpListener::bind(addr).map_err(|e| match e.kind() {
            io::ErrorKind::AddrInUse => BindError::InUse(addr),
            io::ErrorKind::PermissionDenied => BindError::Denied(addr),
            io::ErrorKind::AddrNotAvailable => BindError::NotLocal(addr),
            _ => BindError::Other(addr, e),
        })?;
        let addr = listener
            .local_addr()
            .map_err(|e| BindError::Other(addr, e))?;
        Ok(Server {
            listener,
            addr,
            limits,
        })
    }

    /// The bound address (the real port when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `stop` (see [`wake`] to unblock the accept).
    pub fn serve(&self, latest: &Arc<Latest>, stop: &Stop) {
        let slots = Arc::new(Slots::new(self.limits.max_connections));
        let rejecter = Rejecter::start();
        for incoming in self.listener.incoming() {
            if stop.is_stopped() {
                return;
            }
            let stream = match incoming {
                Ok(stream) => stream,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    // Out of descriptors or memory: wait rather than spin.
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            };
            let Some(guard) = slots.take(self.limits.slot_wait) else {
                rejecter.refuse(stream);
                continue;
            };
            let latest = Arc::clone(latest);
            let limits = self.limits;
            let spawned = std::thread::Builder::new()
                .name("restop-http".into())
                .spawn(move || {
                    let _guard = guard;
                    handle(stream, &latest, &limits);
                });
            // On failure the closure, its stream and its guard are dropped:
            // the client sees a closed connection and the slot is freed.
            drop(spawned);
        }
    }
}

/// Unblocks a [`Server::serve`] waiting in accept after `stop.stop()`.
pub fn wake(addr: SocketAddr) {
    let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
}

/// Connection slots: taken at accept, given back when the connection's
/// thread ends (or when it could not start).
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    fn new(count: usize) -> Slots {
        Slots {
            free: Mutex::new(count),
            freed: Condvar::new(),
        }
    }

    /// A slot, waiting up to `wait` for one.
    fn take(self: &Arc<Self>, wait: Duration) -> Option<SlotGuard> {
        let deadline = Instant::now() + wait;
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            free = self
                .freed
                .wait_timeout(free, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *free -= 1;
        Some(SlotGuard(Arc::clone(self)))
    }
}

struct SlotGuard(Arc<Slots>);

impl Drop for SlotGuard {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.0.freed.notify_one();
    }
}

/// Answers 503 to connections over the cap, on one thread of its own with a
/// short queue, so the accept loop never waits and a flood costs one thread.
/// When even the queue is full, the connection is just closed.
struct Rejecter {
    queue: Option<SyncSender<TcpStream>>,
}

impl Rejecter {
    const QUEUE: usize = 32;
    /// Short budgets: a refused client gets a quick answer or none.
    const LIMITS: Limits = Limits {
        max_request_bytes: 8 * 1024,
        request_time: Duration::from_millis(200),
        response_time: Duration::from_millis(200),
        max_connections: 1,
        slot_wait: Duration::ZERO,
        linger: Duration::from_millis(100),
    };

    fn start() -> Rejecter {
        let (queue, incoming) = sync_channel::<TcpStream>(Self::QUEUE);
        let spawned = std::thread::Builder::new()
            .name("restop-http-busy".into())
            .spawn(move || {
                for stream in incoming {
                    answer(stream, &Self::LIMITS, |_| {
                        Response::error(503, "too many connections, retry later")
                    });
                }
            });
        Rejecter {
            queue: spawned.ok().map(|_| queue),
        }
    }

    fn refuse(&self, stream: TcpStream) {
        if let Some(queue) = &self.queue {
            // Full or gone: dropping the stream closes it.
            let _ = queue.try_send(stream);
        }
    }
}

fn handle(stream: TcpStream, latest: &Latest, limits: &Limits) {
    answer(stream, limits, |head| route(head, latest));
}

/// Reads one request, answers it with `respond` (or with the error reading
/// it gave), and closes.
fn answer(mut stream: TcpStream, limits: &Limits, respond: impl FnOnce(&RequestHead) -> Response) {
    let _ = stream.set_nodelay(true);
    let (response, head_only) =
        match read_head(&mut stream, limits.max_request_bytes, limits.request_time) {
            Ok(head) => (respond(&head), head.method == "HEAD"),
            Err(RequestError::Closed | RequestError::Io(_)) => return,
            Err(RequestError::Timeout) => (
                Response::error(408, "the request did not arrive in time"),
                false,
            ),
            Err(RequestError::TooLarge) => {
                (Response::error(431, "the request head is too large"), false)
            }
            Err(RequestError::Version) => (
                Response::error(505, "only HTTP/1.0 and HTTP/1.1 are served"),
                false,
            ),
            Err(RequestError::Malformed(why)) => (Response::error(400, why), false),
        };
    let deadline = Instant::now() + limits.response_time;
    if response::write(&mut stream, &response, head_only, deadline).is_ok() {
        response::close_gracefully(stream, limits.linger);
    }
}

const INDEX: &str = concat!(
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">",
    "<title>restop exporter</title></head>\n<body>\n<h1>restop exporter</h1>\n",
    "<p>RDMA resources of this host (devices, usage against limits, queue pairs by state, ",
    "top owners) for Prometheus: <a href=\"/metrics\">/metrics</a>.</p>\n",
    "<p>restop ",
    env!("CARGO_PKG_VERSION"),
    "</p>\n</body>\n</html>\n"
);

/// GET and HEAD of `/metrics` and `/`; nothing else.
pub fn route(head: &RequestHead, latest: &Latest) -> Response {
    let known = matches!(head.path.as_str(), "/metrics" | "/");
    if !known {
        return Response::error(404, "try /metrics");
    }
    if head.method != "GET" && head.method != "HEAD" {
        let mut r = Response::error(405, "only GET and HEAD are served");
        r.headers.push(("Allow", "GET, HEAD"));
        return r;
    }
    if head.has_body {
        return Response::error(413, "requests with a body are not served");
    }
    match head.path.as_str() {
        "/metrics" => response::metrics(
            latest.get(),
            negotiate::choose(head.accept.as_deref()),
            negotiate::wants_gzip(head.accept_encoding.as_deref()),
        ),
        _ => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            headers: Vec::new(),
            body: Body::Static(INDEX.as_bytes()),
        },
    }
}
