//! The exporter's HTTP server under ordinary and hostile clients: what it
//! serves, and that no client can stop it from serving others or the
//! collection from running. Everything on loopback, bounded in count and time.

use restop::demo::DemoSource;
use restop::export::collector::{Collector, Exposition, Latest};
use restop::export::http::{BindError, Limits, Server, wake};
use restop::session::{Flow, Pacer, Session, Stop};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Limits small enough for tests to hit in well under a second or two.
fn test_limits() -> Limits {
    Limits {
        max_request_bytes: 8 * 1024,
        request_time: Duration::from_millis(800),
        response_time: Duration::from_secs(2),
        max_connections: 16,
        linger: Duration::from_millis(300),
    }
}

/// A server on a free loopback port, fed by a demo session every 50 ms
/// (or by a fixed exposition).
struct Running {
    addr: SocketAddr,
    stop: Arc<Stop>,
    latest: Arc<Latest>,
    threads: Vec<JoinHandle<()>>,
}

impl Running {
    fn demo(limits: Limits) -> Running {
        let demo = DemoSource::new(1, Duration::from_secs(1));
        let mut session = Session::new(Box::new(demo), Pacer::every(Duration::from_millis(50)));
        let mut collector = Collector::new(session.kind(), 20);
        let latest = Arc::new(Latest::new(collector.render(session.next_tick())));
        let mut running = Running::serving(Arc::clone(&latest), limits);
        let stop = Arc::clone(&running.stop);
        running.threads.push(thread::spawn(move || {
            session.resume_at(Instant::now() + Duration::from_millis(50));
            session.run(&mut &*stop, &mut |tick| {
                latest.set(collector.render(tick));
                Flow::Continue
            });
        }));
        running
    }

    /// Serves a fixed body (e.g. a very large one) as `/metrics`.
    fn fixed(body: Vec<u8>, limits: Limits) -> Running {
        let latest = Arc::new(Latest::new(Exposition {
            text: body.clone(),
            openmetrics: body,
            collections: 1,
        }));
        Running::serving(latest, limits)
    }

    fn serving(latest: Arc<Latest>, limits: Limits) -> Running {
        let server = Server::bind("127.0.0.1:0".parse().unwrap(), limits).unwrap();
        let addr = server.local_addr();
        let stop = Stop::new();
        let (l, s) = (Arc::clone(&latest), Arc::clone(&stop));
        let threads = vec![thread::spawn(move || server.serve(&l, &s))];
        Running {
            addr,
            stop,
            latest,
            threads,
        }
    }

    fn collections(&self) -> u64 {
        self.latest.get().collections
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        wake(self.addr);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// Sends `request` and reads the reply until the server closes.
fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request).unwrap();
    read_reply(&mut stream)
}

fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    parse_reply(&bytes)
}

fn parse_reply(bytes: &[u8]) -> Reply {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let status = head[9..12].parse().unwrap();
    Reply {
        status,
        head,
        body: bytes[end + 4..].to_vec(),
    }
}

fn get(addr: SocketAddr, path: &str) -> Reply {
    exchange(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes(),
    )
}

#[test]
fn metrics_in_the_text_format_by_default() {
    let server = Running::demo(test_limits());
    let reply = get(server.addr, "/metrics");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("Content-Type").as_deref(),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert_eq!(
        reply.header("Content-Length"),
        Some(reply.body.len().to_string())
    );
    assert_eq!(reply.header("Connection").as_deref(), Some("close"));
    let text = String::from_utf8(reply.body).unwrap();
    assert!(text.contains("\nrestop_up{source=\"demo\"} 1\n"));
    assert!(!text.contains("# EOF"));
}

#[test]
fn openmetrics_when_the_scraper_asks() {
    let server = Running::demo(test_limits());
    let reply = exchange(
        server.addr,
        b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,\
          text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n",
    );
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("Content-Type").as_deref(),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    assert!(reply.body.ends_with(b"\n# EOF\n"));
}

#[test]
fn head_gives_the_headers_without_a_body() {
    let server = Running::demo(test_limits());
    let reply = exchange(server.addr, b"HEAD /metrics HTTP/1.1\r\n\r\n");
    assert_eq!(reply.status, 200);
    let length: usize = reply.header("Content-Length").unwrap().parse().unwrap();
    assert!(length > 1000);
    assert!(reply.body.is_empty());
}

#[test]
fn the_index_page_links_to_metrics() {
    let server = Running::demo(test_limits());
    let reply = get(server.addr, "/");
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("Content-Type").as_deref(),
        Some("text/html; charset=utf-8")
    );
    assert!(
        String::from_utf8(reply.body)
            .unwrap()
            .contains("<a href=\"/metrics\">")
    );
}

#[test]
fn unknown_paths_methods_versions_and_bodies_are_refused() {
    let server = Running::demo(test_limits());
    let cases: [(&[u8], u16); 7] = [
        (b"GET /nope HTTP/1.1\r\n\r\n", 404),
        (b"GET /metrics/x HTTP/1.1\r\n\r\n", 404),
        (b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405),
        (b"DELETE / HTTP/1.1\r\n\r\n", 405),
        (b"GET /metrics HTTP/2.0\r\n\r\n", 505),
        (
            b"GET /metrics HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody",
            413,
        ),
        (b"this is not http\r\n\r\n", 400),
    ];
    for (request, status) in cases {
        let reply = exchange(server.addr, request);
        assert_eq!(
            reply.status,
            status,
            "{:?}",
            String::from_utf8_lossy(request)
        );
    }
    let reply = exchange(server.addr, b"PUT /metrics HTTP/1.1\r\n\r\n");
    assert_eq!(reply.header("Allow").as_deref(), Some("GET, HEAD"));
}

#[test]
fn an_oversized_request_head_gets_431() {
    let server = Running::demo(test_limits());
    let mut request = b"GET /metrics HTTP/1.1\r\nX-Padding: ".to_vec();
    request.extend(std::iter::repeat_n(b'a', 20 * 1024));
    request.extend_from_slice(b"\r\n\r\n");
    let reply = exchange(server.addr, &request);
    assert_eq!(reply.status, 431);
    // And the server still serves.
    assert_eq!(get(server.addr, "/metrics").status, 200);
}

#[test]
fn a_request_that_never_completes_gets_408_within_the_budget() {
    let server = Running::demo(test_limits());
    // One byte at a time, forever: the budget covers the whole head, so a
    // trickle cannot extend it.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let started = Instant::now();
    let mut trickle = b"GET /metrics HTTP/1.1\r\nX-Slow: ".iter().cycle();
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_write_timeout(Some(Duration::from_millis(100))))
        .unwrap();
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    while started.elapsed() < Duration::from_secs(5) {
        let _ = stream.write_all(&[*trickle.next().unwrap()]);
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => reply.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    let took = started.elapsed();
    assert_eq!(parse_reply(&reply).status, 408);
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

#[test]
fn many_concurrent_scrapes_all_get_the_whole_exposition() {
    let server = Running::demo(test_limits());
    let addr = server.addr;
    let clients: Vec<_> = (0..8)
        .map(|_| {
            thread::spawn(move || {
                for _ in 0..25 {
                    let reply = get(addr, "/metrics");
                    assert_eq!(reply.status, 200);
                    let length: usize = reply.header("Content-Length").unwrap().parse().unwrap();
                    assert_eq!(reply.body.len(), length);
                    assert!(reply.body.ends_with(b"\n"));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
}

#[test]
fn when_every_connection_is_taken_the_oldest_idle_one_gives_way() {
    let limits = Limits {
        max_connections: 4,
        ..test_limits()
    };
    let server = Running::demo(limits);
    // Four clients that connect and say nothing fill the table...
    let mut idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    thread::sleep(Duration::from_millis(100));
    // ...and a scraper is still served at once: the oldest idle one is closed.
    let started = Instant::now();
    assert_eq!(get(server.addr, "/metrics").status, 200);
    assert!(started.elapsed() < Duration::from_millis(500));
    let mut byte = [0u8; 1];
    idle[0]
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    assert_eq!(
        idle[0].read(&mut byte).unwrap_or(0),
        0,
        "closed without an answer"
    );
}

#[test]
fn a_client_that_disconnects_mid_response_harms_nothing() {
    // 8 MiB: far more than socket buffers hold, so the server is still
    // writing when the client goes away.
    let body = vec![b'#'; 8 * 1024 * 1024];
    let server = Running::fixed(body, test_limits());
    for _ in 0..5 {
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
        let mut first = [0u8; 1024];
        stream.read_exact(&mut first).unwrap();
        assert!(first.starts_with(b"HTTP/1.1 200 OK"));
        drop(stream);
    }
    let reply = get(server.addr, "/metrics");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body.len(), 8 * 1024 * 1024);
}

#[test]
fn slow_clients_block_neither_other_scrapes_nor_collection() {
    let server = Running::demo(test_limits());
    // A client that sends half a request and waits, and one that asks and
    // never reads (the demo exposition fits in socket buffers, so it also
    // stops reading its own socket: the server just finishes and lingers).
    let mut half = TcpStream::connect(server.addr).unwrap();
    half.write_all(b"GET /metr").unwrap();
    let mut deaf = TcpStream::connect(server.addr).unwrap();
    deaf.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();

    let before = server.collections();
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(get(server.addr, "/metrics").status, 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "scrapes waited {:?}",
        started.elapsed()
    );
    // Collections (every 50 ms, each ~0.1 s in a debug build) go on.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.collections() < before + 3 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(
        server.collections() >= before + 3,
        "collection stalled: {} → {}",
        before,
        server.collections()
    );
    let _ = half.shutdown(Shutdown::Both);
    let _ = deaf.shutdown(Shutdown::Both);
}

#[test]
fn a_client_that_never_reads_a_large_response_is_cut_off_at_the_deadline() {
    let body = vec![b'#'; 16 * 1024 * 1024];
    let limits = Limits {
        response_time: Duration::from_millis(500),
        ..test_limits()
    };
    let server = Running::fixed(body, limits);
    let mut deaf = TcpStream::connect(server.addr).unwrap();
    deaf.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
    // Meanwhile, a reader is served in full.
    let started = Instant::now();
    let reply = get(server.addr, "/metrics");
    assert_eq!(reply.body.len(), 16 * 1024 * 1024);
    assert!(started.elapsed() < Duration::from_secs(5));
    // After the deadline the server gave up on the deaf client: reading now
    // ends early (connection closed or reset) instead of yielding 16 MiB.
    thread::sleep(Duration::from_millis(800));
    deaf.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut got = Vec::new();
    let _ = deaf.read_to_end(&mut got);
    assert!(got.len() < 16 * 1024 * 1024, "read {} bytes", got.len());
}

#[test]
fn a_taken_port_is_named_in_the_error() {
    let first = Server::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap();
    let addr = first.local_addr();
    let err = match Server::bind(addr, Limits::default()) {
        Err(err) => err,
        Ok(_) => panic!("bound {addr} twice"),
    };
    assert!(matches!(err, BindError::InUse(_)));
    assert!(
        err.to_string()
            .starts_with(&format!("address {addr} is in use")),
        "{err}"
    );
}
