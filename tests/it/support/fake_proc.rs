//! A fake /proc tree in a temporary directory, for tests of owner resolution.

use restop::collect::procfs::ProcReader;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

pub const BOOT_TIME: u64 = 1_767_225_600;
pub const CONTAINER_ID: &str = "3f4e9c0b1a2d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f";

/// A fake /proc: `<root>/<pid>/…` for processes, `<root>/<pid>/task/<tid>/…` and
/// `<root>/<tid>/…` for threads (the kernel serves `/proc/<tid>` though readdir omits it).
pub struct FakeProc {
    dir: TempDir,
}

impl FakeProc {
    pub fn new() -> FakeProc {
        let dir = TempDir::new().unwrap();
        fs::write(
            dir.path().join("stat"),
            format!("cpu  1 2 3 4\nctxt 99\nbtime {BOOT_TIME}\nprocesses 5\n"),
        )
        .unwrap();
        FakeProc { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn reader(&self) -> ProcReader {
        ProcReader::new(self.root())
    }

    pub fn write(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }

    /// A single-threaded process (its main thread is itself).
    pub fn process(&self, pid: u32, comm: &str, start_time: u64, cmdline: &[&str], uid: u32) {
        let cmdline: Vec<u8> = cmdline
            .iter()
            .flat_map(|arg| arg.bytes().chain([0]))
            .collect();
        for dir in [
            PathBuf::from(pid.to_string()),
            PathBuf::from(format!("{pid}/task/{pid}")),
        ] {
            self.write(dir.join("stat"), stat(pid, comm, start_time));
            self.write(dir.join("status"), status(comm, pid, pid, uid));
            self.write(dir.join("comm"), format!("{comm}\n"));
            self.write(dir.join("cmdline"), &cmdline);
            self.write(
                dir.join("cgroup"),
                "0::/user.slice/user-1000.slice/session-2.scope\n",
            );
        }
    }

    /// Another thread of process `pid`.
    pub fn thread(&self, pid: u32, tid: u32, comm: &str, start_time: u64, uid: u32) {
        for dir in [
            PathBuf::from(tid.to_string()),
            PathBuf::from(format!("{pid}/task/{tid}")),
        ] {
            self.write(dir.join("stat"), stat(tid, comm, start_time));
            self.write(dir.join("status"), status(comm, pid, tid, uid));
            self.write(dir.join("comm"), format!("{comm}\n"));
        }
    }

    pub fn remove(&self, pid: u32) {
        fs::remove_dir_all(self.root().join(pid.to_string())).unwrap();
    }
}

pub fn stat(pid: u32, comm: &str, start_time: u64) -> String {
    format!(
        "{pid} ({comm}) S 1 {pid} {pid} 0 -1 4194304 500 0 0 0 10 5 0 0 20 0 4 0 {start_time} 123456789 2000 18446744073709551615 1 1 0 0 0 0 0 4096 1260 0 0 0 17 1 0 0 0 0 0\n"
    )
}

pub fn status(comm: &str, tgid: u32, pid: u32, uid: u32) -> String {
    format!(
        "Name:\t{comm}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{tgid}\nNgid:\t0\nPid:\t{pid}\nPPid:\t1\nTracerPid:\t0\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t\nThreads:\t4\n"
    )
}

impl FakeProc {
    /// The processes of the host in `tests/fixtures/netlink/` (see
    /// `FakeKernel::captured_host`). rping's objects were created by its
    /// worker threads 664 and 673; ib_write_bw 676 has exited since.
    pub fn captured_host() -> FakeProc {
        let proc = FakeProc::new();
        for (pid, comm) in [
            (638, "ibv_rc_pingpong"),
            (642, "ibv_rc_pingpong"),
            (645, "ibv_srq_pingpon"),
            (649, "ibv_srq_pingpon"),
            (652, "ibv_ud_pingpong"),
            (656, "ibv_ud_pingpong"),
            (659, "rping"),
            (667, "ib_write_bw"),
            (670, "rping"),
            (679, "rxe_helper"),
        ] {
            proc.process(pid, comm, u64::from(pid) * 10, &[comm, "-d", "rxe0"], 0);
        }
        proc.thread(659, 664, "rping", 6640, 0);
        proc.thread(670, 673, "rping", 6730, 0);
        proc
    }
}
