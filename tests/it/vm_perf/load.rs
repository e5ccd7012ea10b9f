//! Loading what the perf scenario recorded (perf_time lines, CPU windows, JSON Lines), and the
//! one boot that records it.

use crate::vm_support::boot;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `timeout`'s exit status: the run was stopped (flag M's `rdma res show mr`).
pub const TIMED_OUT: i64 = 124;

pub const TYPES: [&str; 7] = ["qp", "cq", "mr", "pd", "cm_id", "ctx", "srq"];

/// One perf_time line: what one run of a command cost.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    pub wall_ms: f64,
    pub user_ms: f64,
    pub sys_ms: f64,
    pub maxrss_kb: f64,
    pub rc: i64,
}

/// CPU of a running restop over a window (utime/stime in 1/100 s).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub seconds: f64,
    pub user_ticks: f64,
    pub sys_ticks: f64,
    pub lines: f64,
}

#[derive(Debug)]
pub struct Size {
    pub dir: PathBuf,
    pub qps: u64,
    pub mrs: u64,
    pub flags: String,
    pub done: bool,
    pub bare: Vec<Cost>,
    pub restop: Vec<Cost>,
    pub rdma: BTreeMap<&'static str, Vec<Cost>>,
    pub restop_json: Option<Value>,
    /// bare_dump -c: entries per type on rxe0.
    pub entries: BTreeMap<String, u64>,
    /// bare_dump -s -n N: ms per RES_GET and the run's system ms per call.
    pub summary_ms: Option<f64>,
    pub summary_sys_ms: Option<f64>,
    /// The start-up runs, interleaved: bare_dump, `--version`, `--json --no-verbs`, `--json`.
    pub startup_bare: Vec<Cost>,
    pub startup_json: Vec<Cost>,
    pub startup_version: Vec<Cost>,
    pub startup_no_verbs: Vec<Cost>,
    pub profile_version: Vec<super::profile::Sample>,
    pub profile_no_verbs: Vec<super::profile::Sample>,
    /// `restop --demo --batch --json -n 100 -d 1ms` in the guest: restop's code alone.
    pub calib_demo: Vec<Cost>,
    pub ticks: Option<Window>,
    pub tick_lines: Vec<Value>,
    pub tui: Option<Window>,
    pub fresh: Vec<Value>,
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// `key=value` pairs of one line.
fn pairs(line: &str) -> BTreeMap<&str, &str> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .collect()
}

fn num(p: &BTreeMap<&str, &str>, key: &str) -> Option<f64> {
    p.get(key).and_then(|v| v.parse().ok())
}

fn costs(dir: &Path, name: &str) -> Vec<Cost> {
    read(dir, name)
        .lines()
        .filter_map(|l| {
            let p = pairs(l);
            Some(Cost {
                wall_ms: num(&p, "wall_ms")?,
                user_ms: num(&p, "user_ms")?,
                sys_ms: num(&p, "sys_ms")?,
                maxrss_kb: num(&p, "maxrss_kb")?,
                rc: num(&p, "rc")? as i64,
            })
        })
        .collect()
}

fn window(dir: &Path, name: &str) -> Option<Window> {
    let text = read(dir, name);
    let p = pairs(text.lines().next()?);
    Some(Window {
        seconds: num(&p, "seconds")?,
        user_ticks: num(&p, "utime_ticks")?,
        sys_ticks: num(&p, "stime_ticks")?,
        lines: num(&p, "lines")?,
    })
}

fn json_lines(dir: &Path, name: &str) -> Vec<Value> {
    read(dir, name)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

pub fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "no values to take a median of");
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn med(c: &[Cost], f: fn(&Cost) -> f64) -> f64 {
    median(c.iter().map(f).collect())
}

impl Size {
    fn load(dir: &Path) -> Size {
        let size = read(dir, "size.txt");
        let p = pairs(&size);
        let mut entries = BTreeMap::new();
        for line in read(dir, "counts.txt").lines() {
            let p = pairs(line);
            if p.get("dev") == Some(&"0")
                && let (Some(t), Some(n)) = (p.get("type"), num(&p, "entries"))
            {
                entries.insert(t.to_string(), n as u64);
            }
        }
        let summary = read(dir, "summary.txt");
        let summary = summary.lines().find(|l| l.starts_with("summary "));
        let summary_time = costs(dir, "summary-time.txt");
        let repeat = summary.and_then(|l| num(&pairs(l), "repeat"));
        Size {
            dir: dir.to_path_buf(),
            qps: num(&p, "qps").unwrap_or(0.0) as u64,
            mrs: num(&p, "mrs").unwrap_or(0.0) as u64,
            flags: p.get("flags").unwrap_or(&"").to_string(),
            done: dir.join("done").exists(),
            bare: costs(dir, "bare.txt"),
            restop: costs(dir, "restop.txt"),
            rdma: TYPES
                .iter()
                .map(|t| (*t, costs(dir, &format!("rdma-{t}.txt"))))
                .collect(),
            restop_json: serde_json::from_str(&read(dir, "restop.json")).ok(),
            entries,
            summary_ms: summary.and_then(|l| num(&pairs(l), "ms_per_call")),
            summary_sys_ms: summary_time.first().zip(repeat).map(|(c, n)| c.sys_ms / n),
            startup_bare: costs(dir, "startup-bare.txt"),
            startup_json: costs(dir, "startup-json.txt"),
            startup_version: costs(dir, "startup-version.txt"),
            startup_no_verbs: costs(dir, "startup-no-verbs.txt"),
            profile_version: super::profile::load(dir, "profile-version-sym.txt"),
            profile_no_verbs: super::profile::load(dir, "profile-no-verbs-sym.txt"),
            calib_demo: costs(dir, "calib-demo.txt"),
            ticks: window(dir, "tick-cpu.txt"),
            tick_lines: json_lines(dir, "tick.jsonl"),
            tui: window(dir, "tui-cpu.txt"),
            fresh: json_lines(dir, "fresh.jsonl"),
        }
    }

    pub fn name(&self) -> String {
        format!(
            "{} QPs / {} MRs ({})",
            self.qps,
            self.mrs,
            self.dir.display()
        )
    }

    /// The seven `rdma res show` runs, when every type was timed (and none ran out of its
    /// timeout): the sum of their medians.
    pub fn rdma_ms(&self) -> Option<f64> {
        self.rdma
            .values()
            .map(|c| {
                (!c.is_empty() && c.iter().all(|c| c.rc != TIMED_OUT))
                    .then(|| med(c, |c| c.wall_ms))
            })
            .sum()
    }
}

pub struct PerfRun {
    pub sizes: Vec<Size>,
}

impl PerfRun {
    fn load(dir: &Path) -> Result<PerfRun, String> {
        if dir.join("restop.missing").exists() {
            return Err(format!("{}: the run had no restop binary", dir.display()));
        }
        let perf = dir.join("perf");
        let mut dirs: Vec<PathBuf> = fs::read_dir(&perf)
            .map_err(|e| format!("{}: {e}", perf.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("size.txt").exists())
            .collect();
        dirs.sort_by_key(|p| {
            p.file_name()
                .and_then(|n| n.to_str()?.strip_prefix("size-")?.parse::<u32>().ok())
        });
        let sizes: Vec<Size> = dirs.iter().map(|d| Size::load(d)).collect();
        if sizes.is_empty() {
            return Err(format!("{}: no size was measured", perf.display()));
        }
        Ok(PerfRun { sizes })
    }

    pub fn with_flag(&self, flag: char) -> impl Iterator<Item = &Size> {
        self.sizes
            .iter()
            .filter(move |s| s.flags.contains(flag) || (flag == 'f' && s.flags.contains('F')))
    }
}

/// The build of `profile` (target/PROFILE/restop), when it was made.
fn built(profile: &str) -> Option<PathBuf> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/{profile}/restop"));
    built.is_file().then_some(built)
}

/// `built`, copied under the name the scenario looks for.
fn for_guest(built: &Path, name: &str) -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vm-perf-bin");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let copy = dir.join(name);
    fs::copy(built, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
    Ok(copy)
}

/// The release build, as `restop-release`.
fn release_binary() -> Result<PathBuf, String> {
    let built = built("release").ok_or(
        "target/release/restop is missing: the perf scenario measures the release build; run \
         `cargo build --release` first",
    )?;
    for_guest(&built, "restop-release")
}

/// `cargo build --profile profiling` (the release build with its symbols), as
/// `restop-profiling`; `None` when it was not built.
fn profiling_binary() -> Result<Option<PathBuf>, String> {
    built("profiling")
        .map(|b| for_guest(&b, "restop-profiling"))
        .transpose()
}

fn results_dir() -> Result<PathBuf, String> {
    const PERF: boot::Scenario = boot::Scenario {
        script: "perf.sh",
        out_dir: "vm-perf",
        out_var: "RESTOP_VM_PERF_OUT",
        results_var: "RESTOP_VM_PERF_RESULTS",
        timeout_s: 3600,
    };
    if let Some(dir) = std::env::var_os(PERF.results_var) {
        return Ok(PathBuf::from(dir));
    }
    // 500k MRs hold about 2.5 GiB of kernel memory on rxe
    let mut vm_args: Vec<OsString> = vec!["-m".into(), "5G".into()];
    vm_args.extend(["-b".into(), release_binary()?.into_os_string()]);
    for strace in ["/usr/bin/strace", "/bin/strace"] {
        if Path::new(strace).is_file() {
            vm_args.extend(["-b".into(), strace.into()]);
            break;
        }
    }
    // The start-up profile: perf and the build that kept its symbols, when both are here.
    let perf = Path::new("/usr/bin/perf");
    if let (true, Some(profiling)) = (perf.is_file(), profiling_binary()?) {
        vm_args.extend(["-b".into(), perf.into(), "-b".into(), profiling.into()]);
    }
    let args: Vec<String> = std::env::var("RESTOP_VM_PERF_ARGS")
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    boot::results_dir_with(&PERF, &vm_args, &args)
}

/// `found`, or, when `RESTOP_VM_PERF_ARGS` narrowed the run to sizes or stages without it, a
/// note that this check had nothing to read (`None`). A full run must have measured everything.
pub fn measured<T>(found: Option<T>, what: &str) -> Option<T> {
    if found.is_none() {
        assert!(std::env::var_os("RESTOP_VM_PERF_ARGS").is_some(), "{what}");
        eprintln!("skipped: {what} (RESTOP_VM_PERF_ARGS left it out of this run)");
    }
    found
}

pub fn run() -> Option<&'static PerfRun> {
    if std::env::var("RESTOP_VM_PERF").as_deref() != Ok("1") {
        eprintln!(
            "skipped: the perf scenario (QEMU + Soft-RoCE, ~35 min, needs root and the release \
             build); set RESTOP_VM_PERF=1 to run it, see docs/testing.md"
        );
        return None;
    }
    static RUN: OnceLock<Result<PerfRun, String>> = OnceLock::new();
    match RUN.get_or_init(|| results_dir().and_then(|d| PerfRun::load(&d))) {
        Ok(run) => Some(run),
        Err(e) => panic!("{e}"),
    }
}

/// The guest's calibration run on this host: median user ms of `restop --demo --batch --json -n
/// 100 -d 1ms` (the release build), over three runs. Children's CPU comes from
/// `getrusage(RUSAGE_CHILDREN)`, so run with `--test-threads=1`.
pub fn host_demo_user_ms() -> Option<f64> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/restop");
    let children_user_ms = || {
        // SAFETY: getrusage only writes the struct it is given.
        let mut ru: nix::libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a rusage we own.
        let rc = unsafe { nix::libc::getrusage(nix::libc::RUSAGE_CHILDREN, &mut ru) };
        (rc == 0).then(|| ru.ru_utime.tv_sec as f64 * 1e3 + ru.ru_utime.tv_usec as f64 / 1e3)
    };
    let mut runs = Vec::new();
    for _ in 0..3 {
        let before = children_user_ms()?;
        let status = std::process::Command::new(&bin)
            .args(["--demo", "--batch", "--json", "-n", "100", "-d", "1ms"])
            .stdout(std::process::Stdio::null())
            .status()
            .ok()?;
        if !status.success() {
            return None;
        }
        runs.push(children_user_ms()? - before);
    }
    Some(median(runs))
}
