//! Thread id → owning process, with the process's details, cached across ticks.

use super::container::container_from_cgroup;
use super::files::{
    ReadFailure, StatFields, mountinfo_has_hidepid, parse_boot_time, parse_cmdline, parse_stat,
    parse_status, read_limited, read_text,
};
use super::kubelet::KubeletPods;
use super::users::UserNames;
use crate::model::{ProcessInfo, ProcessKey, Warning, WarningKind};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Longest command line kept: enough for any real launcher, bounded against a 2 MiB argv.
const CMDLINE_LIMIT: u64 = 64 * 1024;

/// Resolves the thread ids the kernel reports as `RES_PID` to processes.
///
/// One collection round is `begin_tick`, any number of `process_of_thread` and `info`
/// calls, then `end_tick`. Per tick, a known thread costs one read (its `stat`, to check its
/// start time against pid reuse); a new thread two or three; a new process a few more
/// (`cmdline`, `cgroup`), once for its lifetime. Nothing is held open between reads.
///
/// A `ProcessKey::start_time` of 0 means the process's start time could not be read.
#[derive(Debug)]
pub struct ProcReader {
    root: PathBuf,
    ticks_per_second: u64,
    /// `btime` from `<root>/stat`, read on first use.
    boot_time: Option<Option<u64>>,
    /// Whether `<root>` is mounted with `hidepid`, checked on the first failed lookup.
    hidepid: Option<bool>,
    users: UserNames,
    /// Namespace, pod and container names from the kubelet's log directories.
    pods: KubeletPods,
    tick: u64,
    threads: HashMap<u32, ThreadEntry>,
    processes: HashMap<ProcessKey, ProcessEntry>,
    /// Every answer given this tick, so looking up a tid again (once per object) is free.
    answered: HashMap<u32, Result<ProcessKey, ReadFailure>>,
    failed: FailedLookups,
}

#[derive(Debug)]
struct ThreadEntry {
    /// The thread's own start time: a tid reused by a new thread has another one.
    start_time: u64,
    process: ProcessKey,
    last_seen: u64,
}

#[derive(Debug)]
struct ProcessEntry {
    info: ProcessInfo,
    last_seen: u64,
}

/// Lookups that found no owner this tick, by cause.
#[derive(Debug, Default)]
struct FailedLookups {
    gone: usize,
    denied: usize,
    unreadable: usize,
}

impl FailedLookups {
    fn count(&mut self, failure: ReadFailure) {
        match failure {
            ReadFailure::Gone => self.gone += 1,
            ReadFailure::Denied => self.denied += 1,
            ReadFailure::Unreadable => self.unreadable += 1,
        }
    }

    fn total(&self) -> usize {
        self.gone + self.denied + self.unreadable
    }
}

impl ProcReader {
    /// `root` is "/proc" in production; tests point it at a fake tree.
    pub fn new(root: impl Into<PathBuf>) -> ProcReader {
        ProcReader {
            root: root.into(),
            ticks_per_second: ::procfs::ticks_per_second(),
            boot_time: None,
            hidepid: None,
            users: UserNames::new(),
            pods: KubeletPods::new("/var/log"),
            tick: 0,
            threads: HashMap::new(),
            processes: HashMap::new(),
            answered: HashMap::new(),
            failed: FailedLookups::default(),
        }
    }

    /// Reads pod and container names from `log_root` (the node's `/var/log`, where the
    /// kubelet keeps `pods/` and `containers/`) instead of `/var/log`.
    pub fn with_kubelet_logs(mut self, log_root: impl Into<PathBuf>) -> ProcReader {
        self.pods = KubeletPods::new(log_root);
        self
    }

    /// Starts a collection round.
    pub fn begin_tick(&mut self) {
        self.tick += 1;
        self.answered.clear();
        self.failed = FailedLookups::default();
        // Creator threads are what this round's objects say, not an accumulation.
        for entry in self.processes.values_mut() {
            entry.info.creator_threads.clear();
        }
    }

    /// Maps a thread id from `RES_PID` to its process. None when the thread is gone or
    /// unreadable; every such call is counted as one object without an owner in the
    /// warning `end_tick` returns.
    pub fn process_of_thread(&mut self, tid: u32) -> Option<ProcessKey> {
        if tid == 0 {
            return None;
        }
        let answer = match self.answered.get(&tid) {
            Some(answer) => *answer,
            None => {
                let answer = self.resolve(tid);
                self.answered.insert(tid, answer);
                answer
            }
        };
        match answer {
            Ok(key) => Some(key),
            Err(failure) => {
                self.failed.count(failure);
                None
            }
        }
    }

    /// Details of a process resolved this tick.
    pub fn info(&self, key: &ProcessKey) -> Option<&ProcessInfo> {
        self.processes
            .get(key)
            .filter(|entry| entry.last_seen == self.tick)
            .map(|entry| &entry.info)
    }

    /// Ends the round: forgets threads and processes not seen in it, and says what could
    /// not be read.
    pub fn end_tick(&mut self) -> Vec<Warning> {
        let tick = self.tick;
        self.threads.retain(|_, entry| entry.last_seen == tick);
        self.processes.retain(|_, entry| entry.last_seen == tick);
        self.failure_warning().into_iter().collect()
    }

    fn resolve(&mut self, tid: u32) -> Result<ProcessKey, ReadFailure> {
        let thread_dir = self.root.join(tid.to_string());
        let thread_stat = match read_text(&thread_dir.join("stat")) {
            Ok(text) => parse_stat(&text),
            Err(ReadFailure::Gone) => return Err(ReadFailure::Gone),
            // Permission or garbage: status may still name the process.
            Err(_) => None,
        };

        if let Some(stat) = &thread_stat
            && let Some(thread) = self.threads.get_mut(&tid)
            && thread.start_time == stat.start_time
        {
            thread.last_seen = self.tick;
            let key = thread.process;
            self.note_process(key, None, None);
            self.note_creator(key, tid, &stat.comm);
            return Ok(key);
        }

        let status = parse_status(&read_text(&thread_dir.join("status"))?);
        let tgid = status.tgid.ok_or(ReadFailure::Unreadable)?;
        let process_stat = if tgid == tid {
            thread_stat.clone()
        } else {
            match read_text(&self.process_dir(tgid).join("stat")) {
                Ok(text) => parse_stat(&text),
                // The thread group is gone, so the thread went with it.
                Err(ReadFailure::Gone) => return Err(ReadFailure::Gone),
                Err(_) => None,
            }
        };
        let key = ProcessKey {
            pid: tgid,
            start_time: process_stat.as_ref().map_or(0, |s| s.start_time),
        };

        if let Some(stat) = &thread_stat {
            self.threads.insert(
                tid,
                ThreadEntry {
                    start_time: stat.start_time,
                    process: key,
                    last_seen: self.tick,
                },
            );
        }
        // Threads normally share their process's credentials; this saves reading the
        // main thread's status.
        self.note_process(key, process_stat, status.euid);
        if let Some(stat) = &thread_stat {
            self.note_creator(key, tid, &stat.comm);
        }
        Ok(key)
    }

    /// Marks a process as seen this tick, reading its details the first time.
    /// `stat` is the main thread's, when it was read anyway: it refreshes the comm for free.
    fn note_process(&mut self, key: ProcessKey, stat: Option<StatFields>, euid: Option<u32>) {
        if let Some(entry) = self.processes.get_mut(&key) {
            entry.last_seen = self.tick;
            if let Some(stat) = stat {
                entry.info.comm = stat.comm;
            }
            return;
        }
        let info = self.read_process_info(key, stat.map(|s| s.comm), euid);
        self.processes.insert(
            key,
            ProcessEntry {
                info,
                last_seen: self.tick,
            },
        );
    }

    fn note_creator(&mut self, key: ProcessKey, tid: u32, comm: &str) {
        if tid == key.pid {
            return;
        }
        let Some(entry) = self.processes.get_mut(&key) else {
            return;
        };
        let creators = &mut entry.info.creator_threads;
        match creators.binary_search_by_key(&tid, |(t, _)| *t) {
            Ok(at) => {
                if let Some(creator) = creators.get_mut(at) {
                    creator.1 = comm.to_string();
                }
            }
            Err(at) => creators.insert(at, (tid, comm.to_string())),
        }
    }

    /// Everything else about a new process. Each detail is optional: a process that exits
    /// mid-read, or a file we may not read, leaves just that detail empty.
    fn read_process_info(
        &mut self,
        key: ProcessKey,
        comm: Option<String>,
        euid: Option<u32>,
    ) -> ProcessInfo {
        let dir = self.process_dir(key.pid);
        let comm = comm.or_else(|| {
            read_text(&dir.join("comm"))
                .ok()
                .map(|c| c.trim_end_matches('\n').to_string())
        });
        let euid = euid.or_else(|| {
            read_text(&dir.join("status"))
                .ok()
                .and_then(|s| parse_status(&s).euid)
        });
        let cmdline = read_limited(&dir.join("cmdline"), CMDLINE_LIMIT)
            .map(|bytes| parse_cmdline(&bytes))
            .unwrap_or_default();
        let mut container = read_text(&dir.join("cgroup"))
            .ok()
            .and_then(|cgroup| container_from_cgroup(&cgroup));
        if let Some(c) = container.as_mut() {
            c.kube = self.pods.names(c, self.tick);
        }
        let user = euid.and_then(|uid| self.users.name(uid).map(str::to_string));
        ProcessInfo {
            key,
            comm: comm.unwrap_or_default(),
            cmdline,
            uid: euid,
            user,
            container,
            started_at: self.started_at(key.start_time),
            creator_threads: Vec::new(),
            rdma_cgroup: None,
        }
    }

    /// Start time in ticks since boot → seconds since the epoch.
    fn started_at(&mut self, start_time: u64) -> Option<u64> {
        if start_time == 0 || self.ticks_per_second == 0 {
            return None;
        }
        let root = &self.root;
        let boot_time = *self.boot_time.get_or_insert_with(|| {
            read_text(&root.join("stat"))
                .ok()
                .and_then(|s| parse_boot_time(&s))
        });
        // A hostile or corrupt stat/btime must not overflow: unknown instead.
        boot_time?.checked_add(start_time / self.ticks_per_second)
    }

    fn process_dir(&self, pid: u32) -> PathBuf {
        self.root.join(pid.to_string())
    }

    fn failure_warning(&mut self) -> Option<Warning> {
        let total = self.failed.total();
        if total == 0 {
            return None;
        }
        let hidepid = *self
            .hidepid
            .get_or_insert_with(|| proc_is_mounted_with_hidepid(&self.root));
        let why = if hidepid {
            "procfs is mounted with hidepid; run as root to see other users' processes"
        } else if self.failed.denied > 0 {
            "permission denied; hidepid?"
        } else if self.failed.unreadable > 0 {
            "unreadable files"
        } else {
            "processes exited during collection"
        };
        let objects = if total == 1 { "object" } else { "objects" };
        Some(Warning::new(
            WarningKind::Procfs,
            format!(
                "owners of {total} {objects} could not be read from {} ({why})",
                self.root.display()
            ),
        ))
    }
}

fn proc_is_mounted_with_hidepid(root: &Path) -> bool {
    let Some(mount_point) = root.to_str() else {
        return false;
    };
    read_text(&root.join("self").join("mountinfo"))
        .is_ok_and(|mountinfo| mountinfo_has_hidepid(&mountinfo, mount_point))
}
