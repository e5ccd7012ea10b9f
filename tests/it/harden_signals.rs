//! The signal matrix: every mode × SIGTERM, SIGINT, SIGHUP × what it is
//! blocked on (a full pipe nobody reads, a reader that was stopped, a
//! terminal that stopped reading). Each restop must be gone within a second
//! of the signal, with the documented status: 128 + the signal's number when
//! the run was blocked and the watchdog ended it, 0 when the normal path
//! ended it. A recording being written is left whole. `restop fleet` is in it too: its view
//! on a terminal nobody reads, `--once` and `--json` on a full pipe and on a Prometheus that
//! never answers (blocked in a read, so 128 + N as well).
//!
//! Defect: `restop --demo --batch --json | sleep 30` ignored SIGTERM while
//! blocked writing stdout, until SIGKILL.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];
/// The bound the issue sets: gone within a second of the signal.
const GONE_WITHIN: Duration = Duration::from_secs(1);
/// Generous: a debug build starting on a busy machine.
const SETTLE: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Blocked {
    /// stdout is a pipe (shrunk to one page) that nobody reads.
    FullPipe,
    /// stdout is a pipe to a `cat` that is stopped (SIGSTOP), as `restop | less` then Ctrl-Z.
    StoppedReader,
    /// stdout is a terminal whose other side stopped reading (a pty nobody drains).
    Terminal,
    /// Not blocked: the exporter, with a scraper that sent half a request and stalls.
    StalledPeer,
    /// Not blocked: the textfile loop between writes.
    Idle,
    /// Blocked in a read: `restop fleet` waiting on a Prometheus that took the request and
    /// never answers.
    HangingServer,
}

struct Run {
    child: Child,
    /// Kept open so the pipe or terminal stays blocked; dropped after the check.
    _hold: Vec<OwnedFd>,
    reader: Option<Child>,
    _peer: Option<TcpStream>,
    /// The terminal's side restop does not have, to check its settings after.
    tty: Option<OwnedFd>,
}

fn restop() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_restop"));
    command.stdin(Stdio::null()).stderr(Stdio::null());
    command
}

fn small_pipe() -> (OwnedFd, OwnedFd) {
    let (read, write) = nix::unistd::pipe().unwrap();
    // One page: a single `--once --counters all` report is more than the
    // pipe takes.
    nix::fcntl::fcntl(&read, nix::fcntl::FcntlArg::F_SETPIPE_SZ(4096)).unwrap();
    (read, write)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(args: &[String], blocked: Blocked) -> Run {
    let mut command = restop();
    command.args(args);
    match blocked {
        Blocked::FullPipe => {
            let (read, write) = small_pipe();
            command.stdout(Stdio::from(write));
            Run {
                child: command.spawn().unwrap(),
                _hold: vec![read],
                reader: None,
                _peer: None,
                tty: None,
            }
        }
        Blocked::StoppedReader => {
            let (read, write) = small_pipe();
            let reader = Command::new("cat")
                .stdin(Stdio::from(read))
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            kill(Pid::from_raw(reader.id() as i32), Signal::SIGSTOP).unwrap();
            command.stdout(Stdio::from(write));
            Run {
                child: command.spawn().unwrap(),
                _hold: Vec::new(),
                reader: Some(reader),
                _peer: None,
                tty: None,
            }
        }
        Blocked::Terminal => {
            let size = nix::pty::Winsize {
                ws_row: 200,
                ws_col: 500,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            let pty = nix::pty::openpty(Some(&size), None).unwrap();
            let slave = pty.slave;
            command
                .stdin(Stdio::from(slave.try_clone().unwrap()))
                .stdout(Stdio::from(slave.try_clone().unwrap()))
                .stderr(Stdio::from(slave.try_clone().unwrap()));
            use std::os::unix::process::CommandExt;
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(|| {
                    nix::libc::setsid();
                    nix::libc::ioctl(0, nix::libc::TIOCSCTTY, 0);
                    Ok(())
                });
            }
            Run {
                child: command.spawn().unwrap(),
                _hold: vec![pty.master],
                reader: None,
                _peer: None,
                tty: Some(slave),
            }
        }
        Blocked::StalledPeer | Blocked::Idle | Blocked::HangingServer => Run {
            child: command.stdout(Stdio::null()).spawn().unwrap(),
            _hold: Vec::new(),
            reader: None,
            _peer: None,
            tty: None,
        },
    }
}

/// Whether a thread of `pid` sleeps in a write (to a pipe or a terminal).
fn blocked_in_write(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    tasks
        .flatten()
        .any(|task| writing(&task.path().join("wchan")))
}

/// Whether the view's own thread (the process' main thread, which draws) sleeps in a write
/// to its terminal: a feed thread waiting on the network also sleeps in `wait_woken`.
fn view_blocked_in_write(pid: u32) -> bool {
    writing(Path::new(&format!("/proc/{pid}/task/{pid}/wchan")))
}

fn writing(wchan: &Path) -> bool {
    let wchan = std::fs::read_to_string(wchan).unwrap_or_default();
    wchan.contains("pipe_write") || wchan.contains("tty_write") || wchan == "wait_woken"
}

fn wait_for(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + SETTLE;
    while !done() {
        assert!(
            Instant::now() < deadline,
            "{what}: not reached in {SETTLE:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Signals `run` once it is blocked (or settled) and checks how it ends.
fn check(case: &str, mut run: Run, blocked: Blocked, signal: Signal, ready: &dyn Fn() -> bool) {
    let pid = run.child.id();
    match blocked {
        Blocked::FullPipe | Blocked::StoppedReader => {
            wait_for(&format!("{case}: blocked in a write"), || {
                blocked_in_write(pid)
            });
        }
        Blocked::Terminal => {
            wait_for(&format!("{case}: the view blocked in a write"), || {
                view_blocked_in_write(pid)
            });
        }
        Blocked::StalledPeer | Blocked::Idle | Blocked::HangingServer => {
            wait_for(&format!("{case}: ready"), ready)
        }
    }
    let signalled = Instant::now();
    kill(Pid::from_raw(pid as i32), signal).unwrap();
    let status = loop {
        if let Some(status) = run.child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > GONE_WITHIN * 5 {
            let _ = run.child.kill();
            let _ = run.child.wait();
            panic!(
                "{case}: still running {:?} after {signal}",
                signalled.elapsed()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = signalled.elapsed();
    if let Some(mut reader) = run.reader.take() {
        let _ = reader.kill();
        let _ = kill(Pid::from_raw(reader.id() as i32), Signal::SIGCONT);
        let _ = reader.wait();
    }
    assert!(took <= GONE_WITHIN, "{case}: gone only after {took:?}");
    let expected = match blocked {
        Blocked::StalledPeer | Blocked::Idle => 0,
        _ => 128 + signal as i32,
    };
    assert_eq!(status.code(), Some(expected), "{case}: {status}");
    if let Some(tty) = &run.tty {
        let settings = nix::sys::termios::tcgetattr(tty).unwrap();
        use nix::sys::termios::LocalFlags;
        assert!(
            settings
                .local_flags
                .contains(LocalFlags::ICANON | LocalFlags::ECHO),
            "{case}: the terminal was left in raw mode"
        );
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_string()).collect()
}

/// Runs `args` under each signal and each way of blocking, side by side.
fn matrix(mode: &str, args: &[String], ways: &[Blocked], ready: fn(&[String]) -> bool) {
    std::thread::scope(|scope| {
        for &blocked in ways {
            for signal in SIGNALS {
                scope.spawn(move || {
                    let case = format!("{mode} × {signal} × {blocked:?}");
                    let run = start(args, blocked);
                    check(&case, run, blocked, signal, &|| ready(args));
                });
            }
        }
    });
}

const PIPES: [Blocked; 2] = [Blocked::FullPipe, Blocked::StoppedReader];

fn never(_: &[String]) -> bool {
    true
}

#[test]
fn batch_ends_within_a_second_while_blocked_writing() {
    matrix(
        "batch",
        &strings(&["--demo", "--batch", "-d", "50ms"]),
        &PIPES,
        never,
    );
    matrix(
        "batch --json",
        &strings(&["--demo", "--batch", "--json", "-d", "50ms"]),
        &PIPES,
        never,
    );
}

#[test]
fn once_and_json_end_within_a_second_while_blocked_writing() {
    // Every counter, so the report (about 11 KiB) is larger than the one-page pipe.
    matrix(
        "once",
        &strings(&["--demo", "--once", "--counters", "all"]),
        &PIPES,
        never,
    );
    matrix("json", &strings(&["--demo", "--json"]), &PIPES, never);
}

#[test]
fn the_interactive_view_ends_within_a_second_and_gives_the_terminal_back() {
    matrix(
        "interactive",
        &strings(&["--demo", "-d", "50ms"]),
        &[Blocked::Terminal],
        never,
    );
}

fn recording(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

#[test]
fn a_recording_written_while_blocked_is_left_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::thread::scope(|scope| {
        for (n, signal) in SIGNALS.into_iter().enumerate() {
            let file = recording(dir.path(), &format!("{n}.rec"));
            scope.spawn(move || {
                let args = strings(&[
                    "--demo",
                    "--batch",
                    "--json",
                    "-d",
                    "20ms",
                    "--record",
                    file.to_str().unwrap(),
                ]);
                let case = format!("record × {signal}");
                check(
                    &case,
                    start(&args, Blocked::FullPipe),
                    Blocked::FullPipe,
                    signal,
                    &|| true,
                );
                let replay = restop::record::ReplaySource::open(&file).unwrap();
                assert!(!replay.is_empty(), "{case}");
                assert_eq!(
                    replay.note(),
                    None,
                    "{case}: the recording ends on a whole frame"
                );
            });
        }
    });
}

#[test]
fn replay_ends_within_a_second_while_blocked_writing() {
    let dir = tempfile::tempdir().unwrap();
    let file = recording(dir.path(), "r.rec");
    let made = restop()
        .args(["--demo", "--batch", "-n", "20", "-d", "10ms", "--record"])
        .arg(&file)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    let args = strings(&["--replay", file.to_str().unwrap(), "--batch", "--json"]);
    matrix("replay", &args, &PIPES, never);
}

fn answers(args: &[String]) -> bool {
    use std::io::Read;
    let listen = &args[args.iter().position(|a| a == "--listen").unwrap() + 1];
    let Ok(mut scrape) = TcpStream::connect(listen) else {
        return false;
    };
    let mut answer = String::new();
    let served = scrape
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .and_then(|()| scrape.read_to_string(&mut answer))
        .is_ok()
        && answer.starts_with("HTTP/1.1 200");
    if served && let Ok(mut stalled) = TcpStream::connect(listen) {
        // Half a request, never finished: a scraper that stalls.
        let _ = stalled.write_all(b"GET /metrics HTTP/1.1\r\nHost: x");
        std::mem::forget(stalled);
    }
    served
}

#[test]
fn the_http_exporter_ends_within_a_second_with_a_stalled_scraper() {
    std::thread::scope(|scope| {
        for signal in SIGNALS {
            scope.spawn(move || {
                let listen = format!("127.0.0.1:{}", free_port());
                let args = strings(&["export", "--demo", "-d", "50ms", "--listen", &listen]);
                let run = start(&args, Blocked::StalledPeer);
                check(
                    &format!("export http × {signal}"),
                    run,
                    Blocked::StalledPeer,
                    signal,
                    &|| answers(&args),
                );
            });
        }
    });
}

#[test]
fn the_textfile_loop_ends_within_a_second() {
    let dir = tempfile::tempdir().unwrap();
    std::thread::scope(|scope| {
        for (n, signal) in SIGNALS.into_iter().enumerate() {
            let path = dir.path().join(format!("restop{n}.prom"));
            scope.spawn(move || {
                let args = strings(&[
                    "export",
                    "--demo",
                    "-d",
                    "50ms",
                    "--textfile",
                    path.to_str().unwrap(),
                ]);
                let run = start(&args, Blocked::Idle);
                check(
                    &format!("export textfile × {signal}"),
                    run,
                    Blocked::Idle,
                    signal,
                    &|| path.exists(),
                );
            });
        }
    });
}

/// An exporter that answers every scrape with `restop_up 1`, for as long as a test may take;
/// its address.
fn tiny_exporter() -> String {
    use std::io::Read;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let until = Instant::now() + SETTLE * 3;
        while Instant::now() < until {
            let Ok((mut stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let body = "restop_up 1\n";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    address
}

/// `restop fleet --hosts` over one exporter that answers and 249 loopback addresses where
/// nothing listens: every one is a row (249 down), so the view fills a 500x200 terminal and
/// the report (about 45 KiB) overflows a one-page pipe.
fn fleet_of_dead_hosts() -> String {
    std::iter::once(tiny_exporter())
        .chain((1..250).map(|n| format!("127.0.1.{n}:1")))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn the_fleet_view_ends_within_a_second_and_gives_the_terminal_back() {
    matrix(
        "fleet",
        &strings(&["fleet", "--hosts", &fleet_of_dead_hosts(), "-d", "1s"]),
        &[Blocked::Terminal],
        never,
    );
}

#[test]
fn fleet_once_and_json_end_within_a_second_while_blocked_writing() {
    let hosts = fleet_of_dead_hosts();
    matrix(
        "fleet --once",
        &strings(&["fleet", "--hosts", &hosts, "--once"]),
        &PIPES,
        never,
    );
    matrix(
        "fleet --json",
        &strings(&["fleet", "--hosts", &hosts, "--json"]),
        &PIPES,
        never,
    );
}

/// A Prometheus that takes each request and never answers, for as long as a case may take;
/// the URL and how many requests it holds.
fn hanging_prometheus() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::Read;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let held = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&held);
    std::thread::spawn(move || {
        let until = Instant::now() + SETTLE * 2;
        let mut open = Vec::new();
        while Instant::now() < until {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_read_timeout(Some(SETTLE));
                    let mut head = [0u8; 4096];
                    if stream.read(&mut head).is_ok_and(|n| n > 0) {
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    open.push(stream);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    });
    (url, held)
}

#[test]
fn fleet_once_and_json_end_within_a_second_on_a_prometheus_that_hangs() {
    use std::sync::atomic::Ordering;
    std::thread::scope(|scope| {
        for output in ["--once", "--json"] {
            for signal in SIGNALS {
                scope.spawn(move || {
                    let (url, held) = hanging_prometheus();
                    // The request's own timeout is far off: only the signal can end the wait.
                    let args = strings(&[
                        "fleet",
                        "--prometheus",
                        &url,
                        output,
                        "--http-timeout",
                        "60s",
                    ]);
                    let run = start(&args, Blocked::HangingServer);
                    check(
                        &format!("fleet {output} × {signal} × hanging Prometheus"),
                        run,
                        Blocked::HangingServer,
                        signal,
                        &|| held.load(Ordering::SeqCst) > 0,
                    );
                });
            }
        }
    });
}
