//! Keeps what libibverbs and its providers print on stderr off the terminal.
//!
//! Providers print from C (`fprintf(stderr, ...)`: a driver that fails to
//! load, a kernel ABI mismatch). In the interactive view that text would land
//! on top of the drawn screen, so file descriptor 2 points at a pipe while the
//! library runs, and what it printed becomes a debug note instead.
//!
//! Why the whole process: a file descriptor table is shared by all threads,
//! so there is no way to give only the calling thread another fd 2. The
//! window is kept as small as it can be: one library call at a time (loading
//! the library, or opening and querying one device), never a whole
//! collection. Nothing other threads print inside it is lost or blocked:
//! - a drain thread empties the pipe while the call runs, so a writer never
//!   waits on a full pipe nor fails with `EAGAIN` (which would make Rust's
//!   `eprintln!` panic);
//! - afterwards only the lines that are the library's own (`libibverbs: …`,
//!   a provider's `mlx5: …`) are kept; every other line is written to the
//!   real stderr, a moment late but in order.
//!
//! What one call may bring in is bounded ([`LIMIT`]); the rest is counted and
//! said to be dropped.

use nix::fcntl::OFlag;
use nix::unistd::{dup, dup2_stderr, pipe2, read};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Most kept of the library's own text from one call.
const KEPT: usize = 4096;
/// Most read from the pipe during one call (library text and forwarded lines).
const LIMIT: usize = 256 * 1024;
/// How long `finish` waits for the pipe's end once fd 2 is restored. Only a
/// child process started during the window (which inherited fd 2) keeps it
/// open longer; its output is then drained in the background and dropped.
const DRAIN_WAIT: Duration = Duration::from_millis(500);

/// One redirect at a time: two overlapping ones would each restore the
/// other's pipe as fd 2.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The rdma-core providers (`libibverbs/<name>-rdmav*.so`), whose messages
/// start with `<name>: `.
const PROVIDERS: [&str; 17] = [
    "bnxt_re",
    "cxgb4",
    "efa",
    "erdma",
    "hfi1verbs",
    "hns",
    "ipathverbs",
    "irdma",
    "mana",
    "mlx4",
    "mlx5",
    "mthca",
    "ocrdma",
    "qedr",
    "rxe",
    "siw",
    "vmw_pvrdma",
];

/// Runs `f` with stderr sent to a pipe; returns its result and what the
/// library printed (empty when nothing, or when stderr could not be
/// redirected — `f` then runs anyway). Other lines go to the real stderr.
pub(super) fn capture<T>(f: impl FnOnce() -> T) -> (T, String) {
    capture_with(f, &mut std::io::stderr())
}

/// [`capture`], writing the lines that are not the library's to `forward`.
fn capture_with<T>(f: impl FnOnce() -> T, forward: &mut dyn Write) -> (T, String) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(redirect) = Redirect::start() else {
        return (f(), String::new());
    };
    let value = f();
    let (printed, dropped) = redirect.finish();
    let (library, others) = split(&String::from_utf8_lossy(&printed));
    let _ = forward.write_all(others.as_bytes());
    if dropped > 0 {
        let _ = writeln!(
            forward,
            "restop: {dropped} bytes printed on stderr during a libibverbs call were dropped"
        );
    }
    let mut library = library.trim().to_string();
    if library.len() > KEPT {
        let mut cut = KEPT;
        while !library.is_char_boundary(cut) {
            cut -= 1;
        }
        library.truncate(cut);
    }
    (value, library)
}

/// Splits captured text into the library's lines and everyone else's. An
/// indented line continues the one before it (the library wraps long
/// warnings that way).
fn split(text: &str) -> (String, String) {
    let (mut library, mut others) = (String::new(), String::new());
    let mut last_was_library = false;
    for line in text.split_inclusive('\n') {
        let continued = line.starts_with([' ', '\t']);
        let is_library = if continued {
            last_was_library
        } else {
            is_library_line(line)
        };
        last_was_library = is_library;
        let out = if is_library {
            &mut library
        } else {
            &mut others
        };
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
    }
    (library, others)
}

fn is_library_line(line: &str) -> bool {
    let Some((prefix, _)) = line.split_once(':') else {
        return false;
    };
    prefix == "libibverbs" || PROVIDERS.contains(&prefix)
}

struct Redirect {
    saved: OwnedFd,
    chunks: Receiver<Vec<u8>>,
}

impl Redirect {
    fn start() -> Option<Redirect> {
        // Blocking on both ends: the drain thread keeps the pipe empty.
        let (read_end, write_end) = pipe2(OFlag::O_CLOEXEC).ok()?;
        let (tx, chunks) = mpsc::channel();
        std::thread::Builder::new()
            .name("restop-stderr".into())
            .spawn(move || {
                let mut chunk = vec![0u8; 8192];
                loop {
                    match read(&read_end, &mut chunk) {
                        Ok(0) => return,
                        Ok(n) => {
                            let _ = tx.send(chunk.get(..n).unwrap_or_default().to_vec());
                        }
                        Err(nix::errno::Errno::EINTR) => {}
                        Err(_) => return,
                    }
                }
            })
            .ok()?;
        let saved = dup(std::io::stderr()).ok()?;
        dup2_stderr(&write_end).ok()?;
        // fd 2 now holds its own reference to the pipe; ours closes here.
        drop(write_end);
        Some(Redirect { saved, chunks })
    }

    /// Puts fd 2 back and returns what arrived (at most [`LIMIT`] bytes) and
    /// how many bytes beyond that were dropped.
    fn finish(self) -> (Vec<u8>, usize) {
        // Restoring fd 2 closes the last write end, so the drain thread ends.
        let _ = dup2_stderr(&self.saved);
        let deadline = Instant::now() + DRAIN_WAIT;
        let (mut kept, mut dropped) = (Vec::new(), 0);
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(wait) {
                Ok(chunk) => {
                    let room = LIMIT.saturating_sub(kept.len()).min(chunk.len());
                    kept.extend_from_slice(chunk.get(..room).unwrap_or_default());
                    dropped += chunk.len() - room;
                }
                Err(RecvTimeoutError::Disconnected | RecvTimeoutError::Timeout) => break,
            }
        }
        (kept, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd2() -> std::fs::File {
        // Write to the descriptor itself, as C code would.
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/fd/2")
            .unwrap()
    }

    #[test]
    fn what_is_printed_on_fd_2_is_captured_and_stderr_restored() {
        let mut forwarded = Vec::new();
        let (value, text) = capture_with(
            || {
                fd2()
                    .write_all(b"libibverbs: Warning: no userspace device-specific driver\n")
                    .unwrap();
                42
            },
            &mut forwarded,
        );
        assert_eq!(value, 42);
        assert_eq!(
            text,
            "libibverbs: Warning: no userspace device-specific driver"
        );
        assert!(forwarded.is_empty());
        // fd 2 is the original again: writing to it works.
        assert!(std::io::stderr().write_all(b"").is_ok());
    }

    #[test]
    fn what_other_threads_print_meanwhile_goes_to_the_real_stderr() {
        let mut forwarded = Vec::new();
        let ((), text) = capture_with(
            || {
                fd2().write_all(b"mlx5: Fatal: ABI mismatch\n").unwrap();
                std::thread::spawn(|| {
                    fd2()
                        .write_all(b"restop: a warning from another thread\n")
                        .unwrap()
                })
                .join()
                .unwrap();
                fd2()
                    .write_all(
                        b"libibverbs: Warning: couldn't load driver 'x'\n    see the manual\n",
                    )
                    .unwrap();
            },
            &mut forwarded,
        );
        assert_eq!(
            text,
            "mlx5: Fatal: ABI mismatch\nlibibverbs: Warning: couldn't load driver 'x'\n    see the manual"
        );
        assert_eq!(
            String::from_utf8(forwarded).unwrap(),
            "restop: a warning from another thread\n"
        );
    }

    #[test]
    fn a_writer_never_blocks_nor_fails_while_stderr_is_captured() {
        let mut forwarded = Vec::new();
        // Four times what a pipe holds, from the thread doing the call.
        let line = [b'x'; 1023];
        let (written, _) = capture_with(
            || {
                let mut f = fd2();
                (0..256).try_for_each(|_| f.write_all(&line).and_then(|()| f.write_all(b"\n")))
            },
            &mut forwarded,
        );
        written.unwrap();
        assert_eq!(forwarded.len(), 256 * 1024);
    }

    #[test]
    fn more_than_the_limit_is_counted_and_said_to_be_dropped() {
        let mut forwarded = Vec::new();
        capture_with(
            || {
                let mut f = fd2();
                for _ in 0..300 {
                    f.write_all(&[b'y'; 1024]).unwrap();
                }
            },
            &mut forwarded,
        );
        let text = String::from_utf8_lossy(&forwarded);
        assert!(
            text.ends_with(&format!(
                "restop: {} bytes printed on stderr during a libibverbs call were dropped\n",
                300 * 1024 - LIMIT
            )),
            "{}",
            &text[text.len().saturating_sub(200)..]
        );
    }
}
