//! The listener: accepts connections, answers each on its own thread up to a
//! cap, and routes `/metrics` and `/`.
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
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// Connections served at once; more get 503.
    pub max_connections: usize,
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
        let active = Arc::new(AtomicUsize::new(0));
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
            if active.load(Ordering::SeqCst) >= self.limits.max_connections {
                refuse_busy(stream);
                continue;
            }
            let guard = ActiveGuard::enter(&active);
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

struct ActiveGuard(Arc<AtomicUsize>);

impl ActiveGuard {
    fn enter(active: &Arc<AtomicUsize>) -> ActiveGuard {
        active.fetch_add(1, Ordering::SeqCst);
        ActiveGuard(Arc::clone(active))
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Answers 503 without ever blocking the accept loop.
fn refuse_busy(stream: TcpStream) {
    let r = Response::error(503, "too many connections, retry later");
    if stream.set_nonblocking(true).is_ok() {
        let mut stream = stream;
        let mut bytes = response::head(&r, std::time::SystemTime::now()).into_bytes();
        if let Body::Owned(text) = &r.body {
            bytes.extend_from_slice(text.as_bytes());
        }
        let _ = stream.write(&bytes);
    }
}

fn handle(mut stream: TcpStream, latest: &Latest, limits: &Limits) {
    let _ = stream.set_nodelay(true);
    let (response, head_only) =
        match read_head(&mut stream, limits.max_request_bytes, limits.request_time) {
            Ok(head) => (route(&head, latest), head.method == "HEAD"),
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
        "/metrics" => {
            let format = negotiate::choose(head.accept.as_deref());
            Response {
                status: 200,
                content_type: format.content_type(),
                headers: Vec::new(),
                body: Body::Metrics(latest.get(), format),
            }
        }
        _ => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            headers: Vec::new(),
            body: Body::Static(INDEX.as_bytes()),
        },
    }
}
