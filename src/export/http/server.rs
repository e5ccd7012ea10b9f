//! The listener and its routes (`/metrics` and `/`). Connections are served
//! by one poll(2) loop (`event_loop`), so slow, idle or never-reading
//! clients cost a bounded buffer each, never a thread, and cannot keep a
//! scraper out (docs/exporter.md, "Hostile clients").
//!
//! With a web config (`Access`), connections speak TLS (`transport`) and
//! requests need a user's password (`auth`) before any route answers.
//!
//! Why a hand-written server: the exporter serves two read-only pages, and
//! what matters is that no client can hurt it — a bounded request head, a time
//! budget for reading it and for writing the answer, a cap on concurrent
//! connections, clients vanishing mid-response. Small crates such as
//! tiny_http do not bound header size or connection count and their worker
//! pool grows without limit; a full stack (hyper + tokio) would be most of
//! restop's dependency tree for two GET routes.

use super::auth::{BasicAuth, Verdict};
use super::negotiate;
use super::request::RequestHead;
use super::response::{self, Body, Response};
use crate::export::collector::{Latest, Stop};
use std::fmt;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
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
    /// Connections open at once. When one more arrives, the oldest is
    /// closed (preferring one still waiting for its request head).
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
            max_connections: 512,
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

/// What `--web.config.file` asks of every connection: TLS, a password,
/// extra response headers. The default is none of them.
#[derive(Default)]
pub struct Access {
    pub tls: Option<Arc<rustls::ServerConfig>>,
    pub auth: Option<BasicAuth>,
    pub headers: Vec<(&'static str, &'static str)>,
}

impl Access {
    /// From a loaded web config.
    pub fn from_web_config(loaded: crate::export::web_config::Loaded) -> Access {
        Access {
            tls: loaded.tls,
            auth: BasicAuth::new(&loaded.config.users),
            // Read once at start and kept for the process's life: leaked so
            // every response can borrow them as it does its fixed headers.
            headers: loaded
                .config
                .headers
                .into_iter()
                .map(|(name, value)| -> (&'static str, &'static str) {
                    (name.leak(), value.leak())
                })
                .collect(),
        }
    }
}

pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    limits: Limits,
    access: Access,
}

impl Server {
    pub fn bind(addr: SocketAddr, limits: Limits) -> Result<Server, BindError> {
        let listener = TcpListener::bind(addr).map_err(|e| match e.kind() {
            io::ErrorKind::AddrInUse => BindError::InUse(addr),
            io::ErrorKind::PermissionDenied => BindError::Denied(addr),
            io::ErrorKind::AddrNotAvailable => BindError::NotLocal(addr),
            _ => BindError::Other(addr, e),
        })?;
        // A deeper accept queue than std's 128: a burst of hostile connects
        // must not fill it and make a scraper's handshake wait for a
        // retransmission (seconds). Linux takes a second listen() as a resize.
        let _ = nix::sys::socket::listen(&listener, nix::sys::socket::Backlog::MAXCONN);
        let addr = listener
            .local_addr()
            .map_err(|e| BindError::Other(addr, e))?;
        Ok(Server {
            listener,
            addr,
            limits,
            access: Access::default(),
        })
    }

    /// Serves through TLS, with authentication and headers, as `access` says.
    pub fn with_access(mut self, access: Access) -> Server {
        self.access = access;
        self
    }

    /// The bound address (the real port when asked for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `stop`, on the calling thread (see [`event_loop`]);
    /// [`wake`] makes it notice `stop` at once.
    ///
    /// [`event_loop`]: super::event_loop
    pub fn serve(&self, latest: &Arc<Latest>, stop: &Stop) {
        let access = &self.access;
        super::event_loop::run(
            &self.listener,
            &self.limits,
            access.tls.as_ref(),
            stop,
            &|head| {
                let mut response = guarded(head, access).unwrap_or_else(|| route(head, latest));
                response.headers.extend(access.headers.iter().copied());
                response
            },
        );
    }
}

/// Makes a [`Server::serve`] notice `stop.stop()` without waiting for its tick.
pub fn wake(addr: SocketAddr) {
    let _ = TcpStream::connect_timeout(&addr, Duration::from_secs(1));
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

/// The answer when the credentials do not let the request through: 401
/// with the challenge, or 503 while new credentials are being tried too fast.
fn guarded(head: &RequestHead, access: &Access) -> Option<Response> {
    let auth = access.auth.as_ref()?;
    match auth.check(head.authorization.as_deref(), Instant::now()) {
        Verdict::Allowed => None,
        Verdict::Denied => {
            let mut r = Response::error(401, "a user name and password are needed");
            r.headers.push((
                "WWW-Authenticate",
                "Basic realm=\"restop\", charset=\"UTF-8\"",
            ));
            Some(r)
        }
        Verdict::Busy => {
            let mut r = Response::error(503, "too many new credentials tried; try again");
            r.headers.push(("Retry-After", "5"));
            Some(r)
        }
    }
}

/// GET and HEAD of `/metrics` and `/`; nothing else.
pub(crate) fn route(head: &RequestHead, latest: &Latest) -> Response {
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
