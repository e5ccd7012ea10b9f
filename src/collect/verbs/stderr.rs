//! Keeps what libibverbs and its providers print on stderr off the terminal.
//!
//! Providers print from C (`fprintf(stderr, ...)`: a driver that fails to
//! load, a kernel ABI mismatch). In the interactive view that text would land
//! on top of the drawn screen, so file descriptor 2 points at a pipe while the
//! library runs, and what arrived becomes a debug note instead.

use nix::fcntl::OFlag;
use nix::unistd::{dup, dup2_stderr, pipe2, read};
use std::os::fd::OwnedFd;

/// Most kept of what was printed during one call.
const KEPT: usize = 4096;

/// Runs `f` with stderr sent to a pipe; returns its result and what it
/// printed (empty when nothing, or when stderr could not be redirected — `f`
/// then runs anyway).
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, String) {
    let Some(redirect) = Redirect::start() else {
        return (f(), String::new());
    };
    let value = f();
    (value, redirect.finish())
}

struct Redirect {
    saved: OwnedFd,
    read_end: OwnedFd,
}

impl Redirect {
    fn start() -> Option<Redirect> {
        // Non-blocking write end: a provider that printed more than the pipe
        // holds loses the rest instead of hanging restop.
        let (read_end, write_end) = pipe2(OFlag::O_NONBLOCK | OFlag::O_CLOEXEC).ok()?;
        let saved = dup(std::io::stderr()).ok()?;
        dup2_stderr(&write_end).ok()?;
        // fd 2 now holds its own reference to the pipe; ours closes here.
        drop(write_end);
        Some(Redirect { saved, read_end })
    }

    fn finish(self) -> String {
        // Restoring fd 2 closes the last write end, so reading sees the end.
        let _ = dup2_stderr(&self.saved);
        let mut kept = Vec::new();
        let mut chunk = [0u8; 1024];
        while kept.len() < KEPT {
            match read(&self.read_end, &mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => kept.extend_from_slice(chunk.get(..n).unwrap_or_default()),
            }
        }
        kept.truncate(KEPT);
        String::from_utf8_lossy(&kept).trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn what_is_printed_on_fd_2_is_captured_and_stderr_restored() {
        let (value, text) = capture(|| {
            // Write to the descriptor itself, as C code would.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/fd/2")
                .unwrap();
            f.write_all(b"libibverbs: Warning: no userspace device-specific driver\n")
                .unwrap();
            42
        });
        assert_eq!(value, 42);
        assert_eq!(
            text,
            "libibverbs: Warning: no userspace device-specific driver"
        );
        // fd 2 is the original again: writing to it works.
        assert!(std::io::stderr().write_all(b"").is_ok());
    }
}
