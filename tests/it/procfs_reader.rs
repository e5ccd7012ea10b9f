//! ProcReader against fake /proc trees, and once against the real one.

use crate::support::fake_proc::{BOOT_TIME, CONTAINER_ID, FakeProc, stat, status};
use restop::collect::procfs::ProcReader;
use restop::model::{ProcessKey, Runtime, WarningKind};
use std::fs;

fn key(pid: u32, start_time: u64) -> ProcessKey {
    ProcessKey { pid, start_time }
}

#[test]
fn worker_threads_resolve_to_their_process() {
    let proc = FakeProc::new();
    proc.process(
        4242,
        "pt_main_thread",
        5000,
        &["/usr/bin/python3", "-u", "train.py"],
        0,
    );
    proc.thread(4242, 4250, "pt_nccl_worker", 5100, 0);
    proc.thread(4242, 4251, "ib_poll", 5200, 0);
    let mut reader = proc.reader();
    reader.begin_tick();

    assert_eq!(reader.process_of_thread(4250), Some(key(4242, 5000)));
    assert_eq!(reader.process_of_thread(4251), Some(key(4242, 5000)));
    assert_eq!(reader.process_of_thread(4242), Some(key(4242, 5000)));
    assert_eq!(reader.process_of_thread(4250), Some(key(4242, 5000)));

    let info = reader.info(&key(4242, 5000)).unwrap();
    assert_eq!(info.comm, "pt_main_thread");
    assert_eq!(info.cmdline, ["/usr/bin/python3", "-u", "train.py"]);
    assert_eq!(info.display_name(), "train.py");
    assert_eq!(info.uid, Some(0));
    assert_eq!(info.user.as_deref(), Some("root"));
    assert_eq!(info.container, None);
    assert_eq!(
        info.started_at,
        Some(BOOT_TIME + 5000 / procfs::ticks_per_second())
    );
    assert_eq!(
        info.creator_threads,
        [
            (4250, "pt_nccl_worker".to_string()),
            (4251, "ib_poll".to_string())
        ]
    );
    assert!(reader.end_tick().is_empty());
}

#[test]
fn creator_threads_are_per_tick() {
    let proc = FakeProc::new();
    proc.process(4242, "trainer", 5000, &["trainer"], 0);
    proc.thread(4242, 4250, "worker", 5100, 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4250);
    reader.end_tick();

    reader.begin_tick();
    reader.process_of_thread(4242);
    assert!(
        reader
            .info(&key(4242, 5000))
            .unwrap()
            .creator_threads
            .is_empty()
    );
}

#[test]
fn thread_renamed_between_ticks_shows_its_new_name() {
    let proc = FakeProc::new();
    proc.process(4242, "trainer", 5000, &["trainer"], 0);
    proc.thread(4242, 4250, "worker", 5100, 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4250);
    reader.end_tick();

    proc.thread(4242, 4250, "nccl-net", 5100, 0);
    reader.begin_tick();
    reader.process_of_thread(4250);
    assert_eq!(
        reader.info(&key(4242, 5000)).unwrap().creator_threads,
        [(4250, "nccl-net".to_string())]
    );
}

#[test]
fn details_are_read_once_per_process() {
    let proc = FakeProc::new();
    proc.process(
        4242,
        "ib_write_bw",
        5000,
        &["ib_write_bw", "-d", "mlx5_0"],
        0,
    );
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4242);
    reader.end_tick();

    // Same process (same start time): the cached command line is kept.
    proc.write("4242/cmdline", "changed\0");
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4242), Some(key(4242, 5000)));
    assert_eq!(
        reader.info(&key(4242, 5000)).unwrap().cmdline,
        ["ib_write_bw", "-d", "mlx5_0"]
    );
}

#[test]
fn known_thread_is_revalidated_from_its_stat_alone() {
    let proc = FakeProc::new();
    proc.process(4242, "trainer", 5000, &["trainer"], 0);
    proc.thread(4242, 4250, "worker", 5100, 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4250);
    reader.end_tick();

    // Everything but the thread's own stat disappears: a known thread needs nothing else.
    for file in [
        "4250/status",
        "4250/comm",
        "4242/stat",
        "4242/status",
        "4242/cmdline",
    ] {
        fs::remove_file(proc.root().join(file)).unwrap();
    }
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4250), Some(key(4242, 5000)));
    assert_eq!(reader.info(&key(4242, 5000)).unwrap().cmdline, ["trainer"]);
    assert!(reader.end_tick().is_empty());
}

#[test]
fn reused_pid_is_a_new_process_with_fresh_details() {
    let proc = FakeProc::new();
    proc.process(4242, "ib_write_bw", 5000, &["ib_write_bw"], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4242), Some(key(4242, 5000)));
    reader.end_tick();

    proc.remove(4242);
    proc.process(4242, "rping", 9000, &["rping", "-s"], 0);
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4242), Some(key(4242, 9000)));
    let info = reader.info(&key(4242, 9000)).unwrap();
    assert_eq!(info.comm, "rping");
    assert_eq!(info.cmdline, ["rping", "-s"]);
    assert_eq!(reader.info(&key(4242, 5000)), None);
}

#[test]
fn reused_tid_in_another_process_is_not_confused_with_the_dead_thread() {
    let proc = FakeProc::new();
    proc.process(100, "old", 1000, &["old"], 0);
    proc.thread(100, 150, "old-worker", 1100, 0);
    proc.process(200, "new", 2000, &["new"], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(150), Some(key(100, 1000)));
    reader.end_tick();

    // Thread 150 exits and its id is reused by a thread of process 200.
    proc.remove(150);
    proc.thread(200, 150, "new-worker", 2100, 0);
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(150), Some(key(200, 2000)));
    assert_eq!(
        reader.info(&key(200, 2000)).unwrap().creator_threads,
        [(150, "new-worker".to_string())]
    );
}

#[test]
fn vanished_thread_has_no_owner_and_is_reported() {
    let proc = FakeProc::new();
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(31337), None);
    assert_eq!(reader.process_of_thread(31337), None);
    let warnings = reader.end_tick();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].kind, WarningKind::Procfs);
    assert_eq!(
        warnings[0].message,
        format!(
            "owners of 2 objects could not be read from {} (processes exited during collection)",
            proc.root().display()
        )
    );
}

#[test]
fn hidepid_mount_is_named_in_the_warning() {
    let proc = FakeProc::new();
    proc.write(
        "self/mountinfo",
        format!(
            "22 27 0:21 / {} rw,relatime - proc proc rw,hidepid=invisible\n",
            proc.root().display()
        ),
    );
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(31337), None);
    let warnings = reader.end_tick();
    assert!(
        warnings[0].message.contains("hidepid"),
        "{}",
        warnings[0].message
    );
}

#[test]
fn process_vanishing_between_ticks_is_evicted() {
    let proc = FakeProc::new();
    proc.process(4242, "ib_write_bw", 5000, &["ib_write_bw"], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4242);
    reader.end_tick();

    proc.remove(4242);
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4242), None);
    reader.end_tick();
    assert_eq!(reader.info(&key(4242, 5000)), None);
}

#[test]
fn processes_not_seen_in_a_tick_are_forgotten() {
    let proc = FakeProc::new();
    proc.process(4242, "ib_write_bw", 5000, &["ib_write_bw"], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4242);
    reader.end_tick();

    // A tick in which no object names the process.
    reader.begin_tick();
    assert!(reader.end_tick().is_empty());
    assert_eq!(reader.info(&key(4242, 5000)), None);

    // Seen again later: details are read afresh.
    proc.write("4242/cmdline", "ib_write_bw\0--size=64\0");
    reader.begin_tick();
    reader.process_of_thread(4242);
    assert_eq!(
        reader.info(&key(4242, 5000)).unwrap().cmdline,
        ["ib_write_bw", "--size=64"]
    );
}

#[test]
fn garbage_files_never_panic_and_details_degrade() {
    let proc = FakeProc::new();
    // Only status is sane: the owner still resolves, with an unknown start time.
    proc.write("500/stat", "500 (broken");
    proc.write("500/status", status("broken", 500, 500, 0));
    proc.write("500/cmdline", b"\xff\xfeweird\0arg\0");
    proc.write("500/cgroup", "::::\n\0\0garbage");
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(500), Some(key(500, 0)));
    let info = reader.info(&key(500, 0)).unwrap();
    assert_eq!(info.comm, "");
    assert_eq!(info.cmdline, ["\u{fffd}\u{fffd}weird", "arg"]);
    assert_eq!(info.started_at, None);
    assert_eq!(info.container, None);

    // No Tgid: not resolvable.
    proc.write("600/stat", stat(600, "x", 1));
    proc.write("600/status", "Name:\tx\nTgid:\t\n");
    assert_eq!(reader.process_of_thread(600), None);

    // Empty files everywhere.
    for file in ["stat", "status", "cmdline", "cgroup", "comm"] {
        proc.write(format!("700/{file}"), "");
    }
    assert_eq!(reader.process_of_thread(700), None);
    let warnings = reader.end_tick();
    assert!(
        warnings[0].message.contains("owners of 2 objects"),
        "{}",
        warnings[0].message
    );
}

#[test]
fn comm_with_spaces_and_parentheses_is_kept_whole() {
    let proc = FakeProc::new();
    proc.process(800, "a) (b c", 4000, &["./a) (b c"], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(800), Some(key(800, 4000)));
    assert_eq!(reader.info(&key(800, 4000)).unwrap().comm, "a) (b c");
}

#[test]
fn zombie_with_empty_cmdline_keeps_its_comm() {
    let proc = FakeProc::new();
    proc.process(900, "defunct_app", 4000, &[], 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(900);
    let info = reader.info(&key(900, 4000)).unwrap();
    assert!(info.cmdline.is_empty());
    assert_eq!(info.display_name(), "defunct_app");
}

#[test]
fn unreadable_details_leave_only_those_fields_empty() {
    let proc = FakeProc::new();
    proc.process(4242, "trainer", 5000, &["trainer"], 0);
    proc.thread(4242, 4250, "worker", 5100, 0);
    // The main thread's stat is truncated; cmdline and cgroup are gone.
    fs::write(proc.root().join("4242/stat"), "4242 (trainer) S 1").unwrap();
    fs::remove_file(proc.root().join("4242/cmdline")).unwrap();
    fs::remove_file(proc.root().join("4242/cgroup")).unwrap();
    fs::write(proc.root().join("4242/comm"), "trainer\n").unwrap();
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4250), Some(key(4242, 0)));
    let info = reader.info(&key(4242, 0)).unwrap();
    assert_eq!(info.comm, "trainer");
    assert!(info.cmdline.is_empty());
    assert_eq!(info.container, None);
    assert_eq!(info.uid, Some(0));
    assert_eq!(info.creator_threads, [(4250, "worker".to_string())]);
}

#[test]
fn thread_whose_process_has_exited_has_no_owner() {
    let proc = FakeProc::new();
    proc.thread(4242, 4250, "worker", 5100, 0);
    let mut reader = proc.reader();
    reader.begin_tick();
    assert_eq!(reader.process_of_thread(4250), None);
    assert_eq!(reader.end_tick().len(), 1);
}

#[test]
fn container_and_unknown_user_come_from_procfs() {
    let proc = FakeProc::new();
    proc.process(
        4242,
        "nvmf_tgt",
        5000,
        &["/opt/spdk/bin/nvmf_tgt"],
        3_999_999_999,
    );
    proc.write(
        "4242/cgroup",
        format!("0::/system.slice/docker-{CONTAINER_ID}.scope\n"),
    );
    let mut reader = proc.reader();
    reader.begin_tick();
    reader.process_of_thread(4242);
    let info = reader.info(&key(4242, 5000)).unwrap();
    let container = info.container.as_ref().unwrap();
    assert_eq!(container.runtime, Runtime::Docker);
    assert_eq!(container.id, CONTAINER_ID);
    assert_eq!(info.uid, Some(3_999_999_999));
    assert_eq!(info.user, None);
}

#[test]
fn this_process_resolves_in_the_real_proc() {
    let mut reader = ProcReader::new("/proc");
    reader.begin_tick();
    let pid = std::process::id();
    let key = reader.process_of_thread(pid).unwrap();
    assert_eq!(key.pid, pid);
    assert_ne!(key.start_time, 0);
    let info = reader.info(&key).unwrap();
    assert!(!info.comm.is_empty());
    assert!(!info.cmdline.is_empty());
    assert!(info.started_at.is_some());
    assert!(reader.end_tick().is_empty());
}

#[test]
fn a_named_thread_of_this_process_resolves_in_the_real_proc() {
    let (tid_tx, tid_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::Builder::new()
        .name("restop-probe".into())
        .spawn(move || {
            tid_tx.send(nix::unistd::gettid().as_raw() as u32).unwrap();
            let _ = done_rx.recv();
        })
        .unwrap();
    let tid = tid_rx.recv().unwrap();

    let mut reader = ProcReader::new("/proc");
    reader.begin_tick();
    let key = reader.process_of_thread(tid).unwrap();
    assert_eq!(key.pid, std::process::id());
    let creators = &reader.info(&key).unwrap().creator_threads;
    assert_eq!(creators, &[(tid, "restop-probe".to_string())]);

    done_tx.send(()).unwrap();
    worker.join().unwrap();
}
