//! Reading and parsing the few /proc files restop needs.
//!
//! Plain `std::fs` reads with small parsers here, rather than `procfs::process::Process`:
//! - the hot path (re-validating a cached thread every tick) is one open + read, where a
//!   `Process` adds an `O_PATH` directory fd and an `openat`, and nothing is left open between
//!   reads, so file descriptors cannot pile up;
//! - procfs-core's `Stat` parser slices at the parenthesis positions and can panic on a
//!   truncated or malformed file, and its `Status` parser requires some twenty fields to be
//!   present, where restop needs two lines and must degrade field by field;
//! - the same code reads a fake tree in tests and the real /proc.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Why a file could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadFailure {
    /// The process or thread no longer exists (or procfs hides it: `hidepid=invisible`).
    Gone,
    /// Permission denied (`hidepid=noaccess`, or a file only the owner may read).
    Denied,
    /// The file exists but could not be read or made no sense.
    Unreadable,
}

impl From<io::Error> for ReadFailure {
    fn from(e: io::Error) -> ReadFailure {
        // A process that exits while its file is open makes reads fail with ESRCH.
        if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(nix::libc::ESRCH) {
            ReadFailure::Gone
        } else if e.kind() == io::ErrorKind::PermissionDenied {
            ReadFailure::Denied
        } else {
            ReadFailure::Unreadable
        }
    }
}

/// Reads at most `limit` bytes: /proc files report size 0, and a command line can be
/// megabytes long.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadFailure> {
    let mut buf = Vec::with_capacity(512);
    File::open(path)?.take(limit).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads a short text file (stat, status, cgroup), replacing invalid UTF-8.
pub(super) fn read_text(path: &Path) -> Result<String, ReadFailure> {
    const TEXT_LIMIT: u64 = 64 * 1024;
    let bytes = read_limited(path, TEXT_LIMIT)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// What restop takes from `/proc/<pid>/stat`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct StatFields {
    pub comm: String,
    /// Field 22, clock ticks since boot.
    pub start_time: u64,
}

/// Parses `pid (comm) state ppid … starttime …`. The comm may contain spaces and
/// parentheses, so it runs from the first '(' to the *last* ')'.
pub(super) fn parse_stat(text: &str) -> Option<StatFields> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?;
    // Fields after the comm start at field 3 (state); starttime is field 22.
    const STARTTIME_AFTER_COMM: usize = 22 - 3;
    let start_time = text
        .get(close + 1..)?
        .split_ascii_whitespace()
        .nth(STARTTIME_AFTER_COMM)?
        .parse()
        .ok()?;
    Some(StatFields {
        comm: comm.to_string(),
        start_time,
    })
}

/// What restop takes from `/proc/<pid>/status`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct StatusFields {
    pub tgid: Option<u32>,
    /// Effective uid, the one `ps` and `top` show as USER.
    pub euid: Option<u32>,
}

pub(super) fn parse_status(text: &str) -> StatusFields {
    let mut fields = StatusFields::default();
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("Tgid:") {
            fields.tgid = value.trim().parse().ok();
        } else if let Some(value) = line.strip_prefix("Uid:") {
            // Real, effective, saved, filesystem.
            fields.euid = value
                .split_ascii_whitespace()
                .nth(1)
                .and_then(|v| v.parse().ok());
        }
    }
    fields
}

/// Splits `/proc/<pid>/cmdline` (NUL-separated, usually NUL-terminated). Empty for zombies
/// and kernel threads. Arguments that are not UTF-8 are kept, with replacement characters.
pub(super) fn parse_cmdline(bytes: &[u8]) -> Vec<String> {
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    if bytes.is_empty() {
        return Vec::new();
    }
    bytes
        .split(|&b| b == 0)
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// `btime` from `/proc/stat`: boot time in seconds since the epoch.
pub(super) fn parse_boot_time(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|value| value.trim().parse().ok())
}

/// Whether the proc filesystem mounted at `mount_point` hides other users' processes,
/// from `/proc/self/mountinfo`
/// (`22 27 0:21 / /proc rw,relatime - proc proc rw,hidepid=invisible`).
pub(super) fn mountinfo_has_hidepid(mountinfo: &str, mount_point: &str) -> bool {
    mountinfo.lines().any(|line| {
        let Some((mount, fs)) = line.split_once(" - ") else {
            return false;
        };
        let is_mount_point = mount.split(' ').nth(4) == Some(mount_point);
        let mut fs = fs.split(' ');
        let is_proc = fs.next() == Some("proc");
        let options = fs.nth(1).unwrap_or("");
        is_mount_point
            && is_proc
            && options.split(',').any(|option| {
                option
                    .strip_prefix("hidepid=")
                    .is_some_and(|value| !matches!(value, "0" | "off"))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLEEP_STAT: &str = "4242 (sleep) S 1 4242 4242 34816 4242 4194304 89 0 0 0 0 0 0 0 20 0 1 0 12345678 5505024 224 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    #[test]
    fn stat_gives_comm_and_start_time() {
        assert_eq!(
            parse_stat(SLEEP_STAT),
            Some(StatFields {
                comm: "sleep".into(),
                start_time: 12345678
            })
        );
    }

    #[test]
    fn stat_comm_may_hold_spaces_and_parentheses() {
        let stat = SLEEP_STAT.replace("(sleep)", "(a) b (c))");
        assert_eq!(parse_stat(&stat).map(|s| s.comm), Some("a) b (c)".into()));
        assert_eq!(parse_stat(&stat).map(|s| s.start_time), Some(12345678));
    }

    #[test]
    fn truncated_or_garbage_stat_is_none() {
        for text in [
            "",
            "4242",
            "4242 (sleep",
            ") (",
            "(x)",
            "4242 (sleep) S 1 4242",
            "4242 (sleep) S 1 4242 4242 34816 4242 4194304 89 0 0 0 0 0 0 0 20 0 1 0 notanumber",
            "\u{fffd}\u{fffd}(\u{fffd})",
        ] {
            assert_eq!(parse_stat(text), None, "{text:?}");
        }
    }

    #[test]
    fn status_gives_tgid_and_effective_uid() {
        let status = "Name:\tpt_main_thread\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\nPid:\t4250\nPPid:\t1\nUid:\t1000\t1001\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n";
        assert_eq!(
            parse_status(status),
            StatusFields {
                tgid: Some(4242),
                euid: Some(1001)
            }
        );
    }

    #[test]
    fn status_fields_degrade_one_by_one() {
        assert_eq!(parse_status(""), StatusFields::default());
        assert_eq!(
            parse_status("Tgid:\tnope\nUid:\t7\t8\n"),
            StatusFields {
                tgid: None,
                euid: Some(8)
            }
        );
        assert_eq!(parse_status("Uid:\t7\n").euid, None);
    }

    #[test]
    fn cmdline_splits_on_nul() {
        assert_eq!(
            parse_cmdline(b"python3\0-u\0train.py\0"),
            vec!["python3", "-u", "train.py"]
        );
        // A process that rewrote its title may drop the terminating NUL.
        assert_eq!(parse_cmdline(b"nginx: worker"), vec!["nginx: worker"]);
        // Empty arguments in the middle are kept.
        assert_eq!(parse_cmdline(b"a\0\0b\0"), vec!["a", "", "b"]);
    }

    #[test]
    fn cmdline_of_a_zombie_is_empty_and_non_utf8_is_replaced() {
        assert!(parse_cmdline(b"").is_empty());
        assert!(parse_cmdline(b"\0").is_empty());
        assert_eq!(parse_cmdline(b"ib_\xffbw\0"), vec!["ib_\u{fffd}bw"]);
    }

    #[test]
    fn boot_time_from_kernel_stat() {
        let stat = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 1 2\nctxt 99\nbtime 1767225600\nprocesses 5\n";
        assert_eq!(parse_boot_time(stat), Some(1_767_225_600));
        assert_eq!(parse_boot_time("cpu 1 2\n"), None);
        assert_eq!(parse_boot_time("btime soon\n"), None);
    }

    #[test]
    fn hidepid_is_read_from_the_proc_mount() {
        let plain = "22 27 0:21 / /proc rw,relatime - proc proc rw\n";
        let hidden = "22 27 0:21 / /proc rw,relatime shared:12 - proc proc rw,hidepid=invisible\n";
        let numeric = "22 27 0:21 / /proc rw - proc proc rw,gid=10,hidepid=2\n";
        let off = "22 27 0:21 / /proc rw - proc proc rw,hidepid=off\n";
        let elsewhere = "40 27 0:50 / /host/proc rw - proc proc rw,hidepid=2\n";
        assert!(!mountinfo_has_hidepid(plain, "/proc"));
        assert!(mountinfo_has_hidepid(hidden, "/proc"));
        assert!(mountinfo_has_hidepid(numeric, "/proc"));
        assert!(!mountinfo_has_hidepid(off, "/proc"));
        assert!(!mountinfo_has_hidepid(elsewhere, "/proc"));
        assert!(mountinfo_has_hidepid(elsewhere, "/host/proc"));
        assert!(!mountinfo_has_hidepid("garbage\n - \n", "/proc"));
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(text in ".*", bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let _ = parse_stat(&text);
            let _ = parse_status(&text);
            let _ = parse_boot_time(&text);
            let _ = mountinfo_has_hidepid(&text, "/proc");
            let _ = parse_cmdline(&bytes);
            let _ = parse_stat(&String::from_utf8_lossy(&bytes));
        }
    }
}
