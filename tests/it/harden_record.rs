//! `--record` on a disk that is full from the start leaves no file behind.
//!
//! Defect: a 0-byte "recording" was left, which the next `--record` then
//! took for an empty file to continue.

use std::os::unix::process::CommandExt;
use std::process::Command;

#[test]
fn a_full_disk_at_start_leaves_no_empty_recording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.rec");
    let mut command = Command::new(env!("CARGO_BIN_EXE_restop"));
    command.args(["--demo", "--once", "--record"]).arg(&path);
    // SAFETY: only async-signal-safe calls between fork and exec. A file
    // size limit of 10 bytes stands in for a full disk: the header (21
    // bytes) is cut short, as ENOSPC would cut it.
    unsafe {
        command.pre_exec(|| {
            nix::libc::signal(nix::libc::SIGXFSZ, nix::libc::SIG_IGN);
            let limit = nix::libc::rlimit {
                rlim_cur: 10,
                rlim_max: nix::libc::RLIM_INFINITY,
            };
            nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot record"), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(!path.exists(), "no 0-byte recording left");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
