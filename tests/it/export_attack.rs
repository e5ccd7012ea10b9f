//! The exporter under attack on loopback: floods of connections, slowloris,
//! idle and never-reading clients, huge headers, pipelining and resets, each
//! with hundreds of hostile connections open while a well-behaved scraper
//! takes ten scrapes. Every scrape must be whole and within the scraper's
//! timeout (5 s here; Prometheus's default is 10 s), the median under 100 ms
//! (the figures are printed); the server starts no thread however many
//! clients come.
//! Bounded: about 20 s and at most ~600 hostile sockets at a time.

use restop::export::collector::{Exposition, Latest};
use restop::export::http::{Limits, Server, wake};
use restop::session::Stop;
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
}

impl Running {
    fn start() -> Running {
        let body = vec![b'#'; BODY_LEN];
        let latest = Arc::new(Latest::new(Exposition {
            text: body.clone(),
            openmetrics: body,
            collections: 1,
        }));
        let server = Server::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).unwrap();
        let addr = server.local_addr();
        let stop = Stop::new();
        let s = Arc::clone(&stop);
        let thread = Some(thread::spawn(move || server.serve(&latest, &s)));
        Running { addr, stop, thread }
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

/// One scrape as Prometheus makes it, with its timeout; the time it took.
fn scrape(addr: SocketAddr) -> Result<Duration, String> {
    let started = Instant::now();
    let timeout = Duration::from_secs(5);
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(timeout)).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n\r\n")
        .map_err(|e| format!("send: {e}"))?;
    let mut reply = Vec::new();
    s.read_to_end(&mut reply)
        .map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&reply[..reply.len().min(64)]).into_owned();
    if !text.starts_with("HTTP/1.1 200") {
        return Err(format!("answer: {text:?}"));
    }
    if reply.len() < BODY_LEN {
        return Err(format!("only {} bytes", reply.len()));
    }
    Ok(started.elapsed())
}

/// Hostile clients on threads of their own, until dropped.
struct Attack {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Attack {
    fn new() -> Attack {
        Attack {
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
        }
    }

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

fn open(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    (0..n)
        .filter_map(|_| TcpStream::connect(addr).ok())
        .collect()
}

fn idle(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        let _held = open(addr, 600);
        while !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
    });
}

fn slowloris(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        let mut held = open(addr, 600);
        let trickle = b"GET /metrics HTTP/1.1\r\nX-a: b\r\nX-a: b\r\nX-a: b\r\nX-a: b\r\n";
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

fn never_reading(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        let mut held = open(addr, 300);
        for s in &mut held {
            let _ = s.write_all(b"GET /metrics HTTP/1.1\r\n\r\n");
        }
        while !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
    });
}

fn huge_headers(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        // 100 clients, each sending 64 KiB of header lines, then holding on.
        let line = format!("X-Pad: {}\r\n", "a".repeat(1000));
        let mut held = open(addr, 100);
        for s in &mut held {
            let _ = s.set_nonblocking(true);
            let _ = s.write_all(b"GET /metrics HTTP/1.1\r\n");
            for _ in 0..64 {
                if s.write_all(line.as_bytes()).is_err() {
                    break;
                }
            }
        }
        while !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
    });
}

fn pipelining(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        // 100 clients with 50 requests each in one write, never reading.
        let requests = b"GET /metrics HTTP/1.1\r\n\r\n".repeat(50);
        let mut held = open(addr, 100);
        for s in &mut held {
            let _ = s.write_all(&requests);
        }
        while !stop.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(20));
        }
    });
}

fn resets(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        let no_linger = nix::libc::linger {
            l_onoff: 1,
            l_linger: 0,
        };
        // Connections reset half-way through their request, 100 at a time.
        while !stop.load(Ordering::SeqCst) {
            for mut s in open(addr, 100) {
                let _ = s.write_all(b"GET /metr");
                let _ =
                    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::Linger, &no_linger);
                // Dropped with SO_LINGER 0: the server sees a reset.
            }
            thread::sleep(Duration::from_millis(10));
        }
    });
}

fn flood(addr: SocketAddr, attack: &mut Attack) {
    attack.spawn(move |stop| {
        // Connect and close, 200 at a time.
        while !stop.load(Ordering::SeqCst) {
            drop(open(addr, 200));
            thread::sleep(Duration::from_millis(10));
        }
    });
}

/// Threads the server started (they are named `restop-http…`): none now,
/// one per connection before.
fn server_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.starts_with("restop-http"))
        .count()
}

#[test]
fn a_scraper_is_served_fast_under_every_attack() {
    let server = Running::start();
    let addr = server.addr;
    type Start = fn(SocketAddr, &mut Attack);
    let attacks: [(&str, Start); 7] = [
        ("flood", flood),
        ("slowloris x600", slowloris),
        ("idle x600", idle),
        ("never reading x300", never_reading),
        ("huge headers", huge_headers),
        ("pipelining", pipelining),
        ("resets", resets),
    ];
    let mut failures = Vec::new();
    for (name, start) in attacks {
        let mut attack = Attack::new();
        start(addr, &mut attack);
        thread::sleep(Duration::from_millis(400));
        let mut times = Vec::new();
        for _ in 0..10 {
            match scrape(addr) {
                Ok(t) => times.push(t),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        let during = server_threads();
        drop(attack);
        assert!(
            !server.thread.as_ref().unwrap().is_finished(),
            "{name}: the server thread ended"
        );
        times.sort();
        let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
        let (median, max) = match (times.get(times.len() / 2), times.last()) {
            (Some(m), Some(x)) => (ms(m), ms(x)),
            _ => (f64::NAN, f64::NAN),
        };
        eprintln!(
            "{name:>20}: {} of 10 scrapes served, median {median:.1} ms, max {max:.1} ms",
            times.len()
        );
        // Every scrape inside its (5 s) timeout, as `scrape` checks; most fast.
        if median > 100.0 {
            failures.push(format!("{name}: median scrape {median:.0} ms"));
        }
        if during > 0 {
            failures.push(format!("{name}: the server runs {during} threads"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // And after it all, still serving.
    scrape(addr).unwrap();
}
