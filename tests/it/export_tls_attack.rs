//! The exporter's hardening holds over TLS: the attacks of `export_attack`
//! (idle, slowloris, never reading, huge heads, resets, floods) made at the
//! TLS layer and through completed handshakes, while a scraper speaking TLS
//! (rustls, as the exporter) takes ten scrapes. Each scrape whole and within
//! 5 s, the median printed and under 250 ms (handshakes share the one serving
//! thread; 2.5 s under floods of 1,000 TLS connections a second), no thread started; a client that never sends its ClientHello is
//! dropped at the request deadline. About 15 s, at most ~300 hostile sockets
//! at a time; skipped without openssl (which makes the certificates).

use crate::export_tls::Pki;
use restop::export::collector::{Exposition, Latest};
use restop::export::http::{Access, Limits, Server, wake};
use restop::export::web_config::{ClientAuth, TlsSettings, TlsVersion, tls::server_config};
use restop::session::Stop;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

const BODY_LEN: usize = 256 * 1024;

struct Running {
    addr: SocketAddr,
    stop: Arc<Stop>,
    thread: Option<JoinHandle<()>>,
    client: Arc<ClientConfig>,
}

impl Running {
    fn start(pki: &Pki, limits: Limits) -> Running {
        let body = vec![b'#'; BODY_LEN];
        let latest = Arc::new(Latest::new(Exposition {
            text: body.clone(),
            openmetrics: body,
            collections: 1,
        }));
        let tls = server_config(&TlsSettings {
            cert_file: pki.path("server.crt").into(),
            key_file: pki.path("server.key").into(),
            client_auth: ClientAuth::None,
            min_version: TlsVersion::Tls12,
            max_version: TlsVersion::Tls13,
            cipher_suites: None,
            curves: None,
            prefer_server_order: false,
        })
        .unwrap();
        let server = Server::bind("127.0.0.1:0".parse().unwrap(), limits)
            .unwrap()
            .with_access(Access {
                tls: Some(tls),
                ..Access::default()
            });
        let addr = server.local_addr();
        let stop = Stop::new();
        let s = Arc::clone(&stop);
        let thread = Some(thread::spawn(move || server.serve(&latest, &s)));
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_file(pki.path("ca.crt")).unwrap())
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let client = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Running {
            addr,
            stop,
            thread,
            client: Arc::new(client),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        wake(self.addr);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

type Tls = StreamOwned<ClientConnection, TcpStream>;

/// A TLS connection with its handshake done.
fn connect(addr: SocketAddr, client: &Arc<ClientConfig>) -> Result<Tls, String> {
    let timeout = Duration::from_secs(5);
    let tcp = TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("connect: {e}"))?;
    tcp.set_read_timeout(Some(timeout)).unwrap();
    tcp.set_write_timeout(Some(timeout)).unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let conn = ClientConnection::new(Arc::clone(client), name).map_err(|e| e.to_string())?;
    let mut tls = StreamOwned::new(conn, tcp);
    tls.conn
        .complete_io(&mut tls.sock)
        .map_err(|e| format!("handshake: {e}"))?;
    Ok(tls)
}

/// One scrape over TLS, with the scraper's timeout; the time it took.
fn scrape(addr: SocketAddr, client: &Arc<ClientConfig>) -> Result<Duration, String> {
    let started = Instant::now();
    let mut tls = connect(addr, client)?;
    tls.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n")
        .map_err(|e| format!("send: {e}"))?;
    let mut reply = Vec::new();
    match tls.read_to_end(&mut reply) {
        Ok(_) => {}
        Err(e) => return Err(format!("read: {e} after {} bytes", reply.len())),
    }
    let text = String::from_utf8_lossy(&reply[..reply.len().min(64)]).into_owned();
    if !text.starts_with("HTTP/1.1 200") {
        return Err(format!("answer: {text:?}"));
    }
    if reply.len() < BODY_LEN {
        return Err(format!("only {} bytes", reply.len()));
    }
    Ok(started.elapsed())
}

/// The first flight of a client: its ClientHello's records.
fn client_hello(client: &Arc<ClientConfig>) -> Vec<u8> {
    let name = ServerName::try_from("localhost").unwrap();
    let mut conn = ClientConnection::new(Arc::clone(client), name).unwrap();
    let mut hello = Vec::new();
    while conn.wants_write() {
        conn.write_tls(&mut hello).unwrap();
    }
    hello
}

struct Attack {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Attack {
    fn spawn(&mut self, f: impl FnOnce(Arc<AtomicBool>) + Send + 'static) {
        let stop = Arc::clone(&self.stop);
        self.threads.push(thread::spawn(move || f(stop)));
    }
}

impl Drop for Attack {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn hold(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(20));
    }
}

fn open(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect()
}

fn handshaken(addr: SocketAddr, client: &Arc<ClientConfig>, n: usize) -> Vec<Tls> {
    (0..n).filter_map(|_| connect(addr, client).ok()).collect()
}

type Start = fn(SocketAddr, &Arc<ClientConfig>, &mut Attack);

fn no_client_hello(addr: SocketAddr, _: &Arc<ClientConfig>, attack: &mut Attack) {
    attack.spawn(move |stop| {
        let _held = open(addr, 300);
        hold(&stop);
    });
}

fn trickled_client_hello(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let hello = client_hello(client);
    attack.spawn(move |stop| {
        let mut held = open(addr, 300);
        let mut i = 0;
        while !stop.load(Ordering::SeqCst) && i < hello.len() {
            for s in &mut held {
                let _ = s.write(&hello[i..=i]);
            }
            i += 1;
            thread::sleep(Duration::from_millis(100));
        }
        hold(&stop);
    });
}

fn slowloris(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let client = Arc::clone(client);
    attack.spawn(move |stop| {
        let mut held = handshaken(addr, &client, 100);
        let trickle = b"GET /metrics HTTP/1.1\r\nX-a: b\r\nX-a: b\r\n";
        let mut i = 0;
        while !stop.load(Ordering::SeqCst) {
            for s in &mut held {
                let _ = s.write(&trickle[i % trickle.len()..][..1]);
            }
            i += 1;
            thread::sleep(Duration::from_millis(100));
        }
    });
}

fn idle_after_handshake(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let client = Arc::clone(client);
    attack.spawn(move |stop| {
        let _held = handshaken(addr, &client, 100);
        hold(&stop);
    });
}

fn never_reading(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let client = Arc::clone(client);
    attack.spawn(move |stop| {
        let mut held = handshaken(addr, &client, 100);
        for s in &mut held {
            let _ = s.write_all(b"GET /metrics HTTP/1.1\r\n\r\n");
        }
        hold(&stop);
    });
}

fn huge_headers(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let client = Arc::clone(client);
    attack.spawn(move |stop| {
        let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
        let mut held = handshaken(addr, &client, 50);
        for s in &mut held {
            let _ = s.write_all(b"GET /metrics HTTP/1.1\r\n");
            for _ in 0..16 {
                if s.write_all(line.as_bytes()).is_err() {
                    break;
                }
            }
        }
        hold(&stop);
    });
}

fn resets_mid_handshake(addr: SocketAddr, client: &Arc<ClientConfig>, attack: &mut Attack) {
    let hello = client_hello(client);
    attack.spawn(move |stop| {
        let no_linger = nix::libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        while !stop.load(Ordering::SeqCst) {
            for mut s in open(addr, 100) {
                let _ = s.write_all(&hello[..hello.len() / 2]);
                let _ =
                    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::Linger, &no_linger);
            }
            thread::sleep(Duration::from_millis(100));
        }
    });
}

fn garbage_records(addr: SocketAddr, _: &Arc<ClientConfig>, attack: &mut Attack) {
    attack.spawn(move |stop| {
        // Plain HTTP and random bytes where TLS records belong, 100 at a time.
        while !stop.load(Ordering::SeqCst) {
            for mut s in open(addr, 100) {
                let _ = s.write_all(b"GET /metrics HTTP/1.1\r\n\r\n");
                let _ = s.write_all(&[0x16, 0x03, 0x01, 0xff, 0xff, 1, 2, 3]);
            }
            thread::sleep(Duration::from_millis(100));
        }
    });
}

fn server_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.starts_with("restop-http"))
        .count()
}

#[test]
fn a_tls_scraper_is_served_under_every_attack() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pki) = Pki::make(dir.path()) else {
        println!("skipped: openssl not installed");
        return;
    };
    let server = Running::start(&pki, Limits::default());
    let (addr, client) = (server.addr, Arc::clone(&server.client));
    let attacks: [(&str, Start); 8] = [
        ("no ClientHello x300", no_client_hello),
        ("trickled hello x300", trickled_client_hello),
        ("slowloris x100", slowloris),
        ("idle x100", idle_after_handshake),
        ("never reading x100", never_reading),
        ("huge headers x50", huge_headers),
        ("handshake resets", resets_mid_handshake),
        ("garbage records", garbage_records),
    ];
    let mut failures = Vec::new();
    for (name, start) in attacks {
        let mut attack = Attack {
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
        };
        start(addr, &client, &mut attack);
        thread::sleep(Duration::from_millis(600));
        let mut times = Vec::new();
        for _ in 0..10 {
            match scrape(addr, &client) {
                Ok(t) => times.push(t),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        let during = server_threads();
        drop(attack);
        times.sort();
        let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
        let (median, max) = match (times.get(times.len() / 2), times.last()) {
            (Some(m), Some(x)) => (ms(m), ms(x)),
            _ => (f64::NAN, f64::NAN),
        };
        eprintln!(
            "{name:>22}: {} of 10 TLS scrapes served, median {median:.1} ms, max {max:.1} ms",
            times.len()
        );
        // A connection flood makes a TLS session per connection on the serving
        // thread (unoptimised in the test build): slower, never past the timeout.
        // (1,000 connections a second here; at 10,000 a debug build on a loaded
        // machine lets scrapes time out.)
        let limit = if name.starts_with("handshake resets") || name.starts_with("garbage") {
            2500.0
        } else {
            250.0
        };
        if median > limit {
            failures.push(format!("{name}: median scrape {median:.0} ms"));
        }
        if during > 0 {
            failures.push(format!("{name}: the server runs {during} threads"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    scrape(addr, &client).unwrap();
}

#[test]
fn a_client_that_never_sends_its_client_hello_is_dropped_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pki) = Pki::make(dir.path()) else {
        println!("skipped: openssl not installed");
        return;
    };
    let limits = Limits {
        request_time: Duration::from_millis(500),
        ..Limits::default()
    };
    let server = Running::start(&pki, limits);
    let started = Instant::now();
    let mut silent = TcpStream::connect(server.addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 64];
    // Closed, with nothing sent: there is no TLS session to answer 408 in.
    let n = silent.read(&mut buf).unwrap_or(0);
    let waited = started.elapsed();
    assert_eq!(n, 0);
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
    // A handshake that stops half-way is dropped on the same deadline.
    let hello = client_hello(&server.client);
    let mut half = TcpStream::connect(server.addr).unwrap();
    half.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    half.write_all(&hello[..hello.len() / 2]).unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = half.read_to_end(&mut rest);
    assert!(started.elapsed() < Duration::from_secs(2));
    // A request that completes its handshake but not its head gets the 408 over TLS.
    let mut tls = connect(server.addr, &server.client).unwrap();
    tls.write_all(b"GET /metrics HTTP/1.1\r\n").unwrap();
    let mut reply = Vec::new();
    let _ = tls.read_to_end(&mut reply);
    assert!(
        String::from_utf8_lossy(&reply).starts_with("HTTP/1.1 408"),
        "{:?}",
        String::from_utf8_lossy(&reply)
    );
}
