//! Why restop parses `/proc/<pid>/stat` itself (docs/architecture.md,
//! "Hand-written procfs readers"): procfs-core's `Stat` parser panics on
//! malformed lines instead of returning an error, where restop's reader
//! degrades. A process can rename itself to anything, and a fake or damaged
//! /proc (containers, FUSE) can hold anything.

use crate::support::fake_proc::{FakeProc, status};
use procfs::FromRead;
use procfs::process::{Stat, Status};
use std::panic;

/// Lines that a `stat` file can hold (truncated reads, odd comms, damage)
/// and on which procfs-core 0.18 panics: `(` first makes it slice at
/// `start_paren - 1` (an overflow), `)` before `(` slices backwards, and a
/// line ending at its `)` slices past the end.
const PANICKING: [&str; 3] = ["(x) S 1 1 1", "1 )x( S", "500 (broken)"];

#[test]
fn procfs_core_panics_on_these_stat_lines() {
    // The harness captures the panic messages of this test's thread.
    let outcomes: Vec<bool> = PANICKING
        .iter()
        .map(|line| panic::catch_unwind(|| Stat::from_read(line.as_bytes())).is_err())
        .collect();
    assert_eq!(outcomes, [true; 3], "procfs-core no longer panics: use it");
}

#[test]
fn restops_reader_degrades_on_the_same_lines() {
    let proc = FakeProc::new();
    for (i, line) in PANICKING.iter().enumerate() {
        let pid = 500 + u32::try_from(i).unwrap();
        proc.write(format!("{pid}/stat"), *line);
        proc.write(format!("{pid}/status"), status("x", pid, pid, 0));
    }
    let mut reader = proc.reader();
    reader.begin_tick();
    for i in 0..PANICKING.len() {
        let pid = 500 + u32::try_from(i).unwrap();
        // Status still names the process; the start time is unknown (0).
        let key = reader.process_of_thread(pid).unwrap();
        assert_eq!((key.pid, key.start_time), (pid, 0));
    }
}

#[test]
fn procfs_core_refuses_a_status_with_only_the_lines_restop_needs() {
    // restop needs Tgid and Uid; procfs-core requires some twenty fields.
    let minimal = "Name:\tx\nTgid:\t42\nUid:\t0\t1000\t1000\t1000\n";
    assert!(Status::from_read(minimal.as_bytes()).is_err());
    let proc = FakeProc::new();
    proc.write(
        "42/stat",
        "42 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0",
    );
    proc.write("42/status", minimal);
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(42).map(|k| k.pid), Some(42));
}

#[test]
fn procfs_core_refuses_a_whole_cgroup_file_for_one_bad_line() {
    let text = "0::/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\nnot a cgroup line\n";
    assert!(
        <procfs::ProcessCGroups as procfs::FromBufRead>::from_buf_read(text.as_bytes()).is_err()
    );
    // restop still finds the container on the good line.
    assert!(restop::collect::procfs::container_from_cgroup(text).is_some());
}
