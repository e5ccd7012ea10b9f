//! restop's own cost at scale: a synthetic host with 100k, 1M and 2M MRs
//! (made from real kernel replies, see `scale/synthetic.rs`) collected by the
//! real client and `LiveSource`, aggregated and rendered as `--json` does.
//!
//! `cargo bench --bench collect_scale` prints, per size, the median over
//! several runs of CPU time per collection, MRs per CPU second, and the peak
//! RSS of a process that did only that (each size runs in its own child
//! process), next to the parse-only and generator-only baselines.
//! `-- --sizes 1000000 --runs 5` picks sizes and runs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A benchmark binary offers nothing outside itself (see tests/it/main.rs).
#![allow(unreachable_pub)]

#[path = "../tests/it/support/fake_kernel.rs"]
#[allow(dead_code)]
mod fake_kernel;
#[path = "../tests/it/support/fake_proc.rs"]
#[allow(dead_code)]
mod fake_proc;
#[path = "scale/synthetic.rs"]
mod synthetic;

use fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::model::filter::Filter;
use restop::model::{Object, ResourceType};
use restop::nldev::NldevClient;
use restop::output::render_json;
use restop::source::{CollectRequest, Source};
use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};
use synthetic::SyntheticKernel;

/// What one child measured.
#[derive(Clone, Copy)]
struct Figures {
    cpu_s: f64,
    wall_s: f64,
    peak_rss_kib: u64,
}

fn cpu_now() -> Duration {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID).unwrap();
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `what` `runs` times in this process; medians and this process's peak RSS.
fn measure(what: &str, mrs: u64, runs: usize) -> Figures {
    let proc = FakeProc::captured_host();
    let mut cpu = Vec::new();
    let mut wall = Vec::new();
    let mut run: Box<dyn FnMut() -> u64> = match what {
        "generate" => {
            let mut kernel = SyntheticKernel::new(mrs);
            Box::new(move || {
                use restop::nldev::Transport;
                kernel.send("RES_MR_GET", &mr_request()).unwrap();
                let mut bytes = 0u64;
                loop {
                    let d = kernel.recv("RES_MR_GET").unwrap();
                    bytes += d.len() as u64;
                    if d.len() == 20 {
                        break bytes;
                    }
                }
            })
        }
        "parse" => {
            let mut client = NldevClient::new(SyntheticKernel::new(mrs));
            Box::new(move || {
                let mut n = 0u64;
                client
                    .dump_objects(0, ResourceType::Mr, &mut |o: Object| {
                        black_box(&o);
                        n += 1;
                    })
                    .unwrap();
                assert_eq!(n, mrs);
                n
            })
        }
        "collect" | "collect-shuffled" => {
            let mut kernel = SyntheticKernel::new(mrs);
            kernel.shuffled = what == "collect-shuffled";
            let options = LiveOptions {
                proc_root: proc.root().to_path_buf(),
                sys_root: proc.root().join("no-sysfs"),
                verbs: false,
                own_pid: 1,
                ..LiveOptions::default()
            };
            let mut src = LiveSource::with_client(NldevClient::new(kernel), options);
            let request = CollectRequest {
                force_objects: true,
                ..CollectRequest::default()
            };
            Box::new(move || {
                let snapshot = src.collect(&request).unwrap();
                let mrs_seen: u64 = snapshot
                    .tallies
                    .iter()
                    .filter(|t| t.device == 0)
                    .map(|t| t.counts[ResourceType::Mr])
                    .sum();
                assert_eq!(mrs_seen, mrs, "every synthetic MR counted once");
                let json =
                    serde_json::to_string_pretty(&render_json(&snapshot, &Filter::default()))
                        .unwrap();
                black_box(json.len() as u64)
            })
        }
        other => panic!("unknown measurement {other}"),
    };
    for _ in 0..runs {
        let (c0, w0) = (cpu_now(), Instant::now());
        black_box(run());
        cpu.push((cpu_now() - c0).as_secs_f64());
        wall.push(w0.elapsed().as_secs_f64());
    }
    Figures {
        cpu_s: median(cpu),
        wall_s: median(wall),
        peak_rss_kib: peak_rss_kib(),
    }
}

fn mr_request() -> Vec<u8> {
    let mut r = vec![0u8; 24];
    r[0..4].copy_from_slice(&24u32.to_ne_bytes());
    let kind = restop::nldev::consts::nldev_type(restop::nldev::consts::cmd::RES_MR_GET);
    r[4..6].copy_from_slice(&kind.to_ne_bytes());
    r[16..18].copy_from_slice(&8u16.to_ne_bytes());
    r[18..20].copy_from_slice(&1u16.to_ne_bytes());
    r
}

/// Runs one measurement in a child process, so its peak RSS is its own.
fn in_child(what: &str, mrs: u64, runs: usize) -> Figures {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--child", what, &mrs.to_string(), &runs.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<f64> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    Figures {
        cpu_s: v[0],
        wall_s: v[1],
        peak_rss_kib: v[2] as u64,
    }
}

fn arg_after(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let f = measure(
            &args[i + 1],
            args[i + 2].parse().unwrap(),
            args[i + 3].parse().unwrap(),
        );
        println!("{} {} {}", f.cpu_s, f.wall_s, f.peak_rss_kib);
        return;
    }
    if args.iter().any(|a| a == "--list") {
        return; // cargo's bench harness probing; nothing to list
    }
    let sizes: Vec<u64> = arg_after(&args, "--sizes")
        .map(|s| s.split(',').map(|n| n.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![100_000, 1_000_000, 2_000_000]);
    let runs: usize = arg_after(&args, "--runs")
        .map(|r| r.parse().unwrap())
        .unwrap_or(7);
    println!(
        "{:>9} {:>17} {:>10} {:>10} {:>12} {:>9} {:>11} {:>11}",
        "MRs",
        "measurement",
        "cpu ms",
        "wall ms",
        "M MRs/s/core",
        "peak MiB",
        "x generate",
        "x parse"
    );
    for mrs in sizes {
        let generate = in_child("generate", mrs, runs);
        let parse = in_child("parse", mrs, runs);
        for what in ["generate", "parse", "collect", "collect-shuffled"] {
            let f = match what {
                "generate" => generate,
                "parse" => parse,
                _ => in_child(what, mrs, runs),
            };
            println!(
                "{:>9} {:>17} {:>10.1} {:>10.1} {:>12.2} {:>9.1} {:>11.2} {:>11.2}",
                mrs,
                what,
                f.cpu_s * 1e3,
                f.wall_s * 1e3,
                mrs as f64 / f.cpu_s / 1e6,
                f.peak_rss_kib as f64 / 1024.0,
                f.cpu_s / generate.cpu_s,
                f.cpu_s / parse.cpu_s,
            );
        }
    }
}
