//! The perf run's tables, as docs/performance.md shows them (markdown, medians and ratios).

use super::load::{PerfRun, Size, TIMED_OUT, med};
use serde_json::Value;
use std::fmt::Write;

/// One `--batch --json` line of the freshness run: how old each type's dump is.
#[derive(Clone, Copy, Debug)]
pub struct Ages {
    pub tick: usize,
    pub seconds: f64,
    pub qp_at: u64,
    pub mr_at: u64,
    pub qp_age_s: f64,
    pub mr_age_s: f64,
    pub error_qps: u64,
}

/// Ages relative to the tick's start (a dump finishing during the tick counts as 0 s old).
pub fn ages(lines: &[Value]) -> Vec<Ages> {
    let start = lines
        .first()
        .and_then(|l| l["meta"]["collected_at_ms"].as_u64())
        .unwrap_or(0);
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let at = l["meta"]["collected_at_ms"].as_u64()?;
            let dev = l["devices"]
                .as_array()?
                .iter()
                .find(|d| d["name"] == "rxe0")?;
            let by = &dev["objects_collected_at_ms_by_type"];
            let (qp, mr) = (by["qp"].as_u64()?, by["mr"].as_u64()?);
            let age = |t: u64| (at.saturating_sub(t)) as f64 / 1000.0;
            Some(Ages {
                tick: i + 1,
                seconds: (at - start) as f64 / 1000.0,
                qp_at: qp,
                mr_at: mr,
                qp_age_s: age(qp),
                mr_age_s: age(mr),
                error_qps: l["error_qps"].as_array()?.len() as u64,
            })
        })
        .collect()
}

fn side_by_side(run: &PerfRun, out: &mut String) {
    let _ = writeln!(
        out,
        "| QPs | MRs | reps (rdma) | bare ms | restop ms | restop user ms | restop sys ms | \
         restop peak RSS MiB | rdma (7 types) ms | restop/bare | restop/rdma |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for s in &run.sizes {
        if s.restop.is_empty() || s.bare.is_empty() {
            continue;
        }
        let r = med(&s.restop, |c| c.wall_ms);
        let b = med(&s.bare, |c| c.wall_ms);
        let (rdma, ratio) = match s.rdma_ms() {
            Some(x) => (format!("{x:.0}"), format!("{:.2}", r / x)),
            None => {
                let without: f64 = s
                    .rdma
                    .values()
                    .filter(|c| !c.is_empty() && c.iter().all(|c| c.rc != TIMED_OUT))
                    .map(|c| med(c, |c| c.wall_ms))
                    .sum();
                let mr = match s.rdma.get("mr") {
                    Some(c) if !c.is_empty() => "mr > 900 s",
                    _ => "no mr",
                };
                (format!("{without:.0} ({mr})"), "-".into())
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} ({}) | {b:.0} | {r:.0} | {:.0} | {:.0} | {:.1} | {rdma} | {:.2} | {ratio} |",
            s.qps,
            s.mrs,
            s.restop.len(),
            s.rdma.get("qp").map_or(0, Vec::len),
            med(&s.restop, |c| c.user_ms),
            med(&s.restop, |c| c.sys_ms),
            med(&s.restop, |c| c.maxrss_kb) / 1024.0,
            r / b,
        );
    }
}

fn startup(s: &Size, out: &mut String) {
    if s.startup_version.is_empty() || s.startup_bare.is_empty() || s.startup_json.is_empty() {
        return;
    }
    let row = |out: &mut String, what: &str, c: &[super::load::Cost]| {
        let _ = writeln!(
            out,
            "| {what} | {:.0} | {:.0} | {:.0} |",
            med(c, |c| c.wall_ms),
            med(c, |c| c.user_ms),
            med(c, |c| c.sys_ms)
        );
    };
    let _ = writeln!(
        out,
        "\nstart-up, {} QPs / {} MRs (medians of {}):\n\n| run | wall ms | user ms | sys ms |\n|---|---:|---:|---:|",
        s.qps,
        s.mrs,
        s.startup_version.len()
    );
    row(out, "bare_dump", &s.startup_bare);
    row(out, "restop --version", &s.startup_version);
    row(out, "restop --json --no-verbs", &s.startup_no_verbs);
    row(out, "restop --json", &s.startup_json);
    if !s.calib_demo.is_empty() {
        row(out, "restop --demo --batch --json -n 100", &s.calib_demo);
    }
    let collect: Vec<f64> = s
        .restop_json
        .iter()
        .filter_map(|j| j["meta"]["collect_ms"].as_f64())
        .collect();
    if let Some(c) = collect.first() {
        let _ = writeln!(out, "(collect_ms of the first --json: {c:.0})");
    }
    super::profile::table(&s.profile_version, &s.profile_no_verbs, out);
}

fn ticks(run: &PerfRun, out: &mut String) {
    let _ = writeln!(
        out,
        "\n| QPs | MRs | RES_GET ms (bare, per call) | its sys ms | restop user ms/tick | \
         restop sys ms/tick | ticks |\n|---:|---:|---:|---:|---:|---:|---:|"
    );
    for s in &run.sizes {
        let per = |t: f64, w: &super::load::Window| format!("{:.1}", t * 10.0 / w.lines);
        let (u, k, n) = match s.ticks {
            Some(w) if w.lines > 0.0 => (per(w.user_ticks, &w), per(w.sys_ticks, &w), w.lines),
            _ => ("-".into(), "-".into(), 0.0),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.2} | {u} | {k} | {n} |",
            s.qps,
            s.mrs,
            s.summary_ms.unwrap_or(f64::NAN),
            s.summary_sys_ms.unwrap_or(f64::NAN)
        );
    }
}

fn tui_and_fresh(run: &PerfRun, factor: Option<f64>, out: &mut String) {
    if let Some(f) = factor {
        let _ = writeln!(
            out,
            "\nTCG factor (restop --demo --batch --json -n 100, user time guest / host): {f:.1}"
        );
    }
    for s in run.with_flag('t') {
        if let Some(w) = s.tui {
            let user = w.user_ticks / w.seconds;
            let _ = writeln!(
                out,
                "\ninteractive view, -d 1s, {} QPs / {} MRs, {:.0} s: user {user:.2} % of an \
                 emulated core (~{:.2} % of a real one), system {:.2} %",
                s.qps,
                s.mrs,
                w.seconds,
                factor.map_or(f64::NAN, |f| user / f),
                w.sys_ticks / w.seconds
            );
        }
    }
    for s in run.with_flag('f') {
        let _ = writeln!(
            out,
            "\nfreshness, --batch --json -d 1s, {} QPs / {} MRs:\n\n| tick | s | qp age s | \
             mr age s | ERROR QPs |\n|---:|---:|---:|---:|---:|",
            s.qps, s.mrs
        );
        for a in ages(&s.fresh) {
            let _ = writeln!(
                out,
                "| {} | {:.1} | {:.1} | {:.1} | {} |",
                a.tick, a.seconds, a.qp_age_s, a.mr_age_s, a.error_qps
            );
        }
    }
}

/// Every table of the run; `factor`: how much slower restop's code runs under TCG.
pub fn all(run: &PerfRun, factor: Option<f64>) -> String {
    let mut out = String::new();
    side_by_side(run, &mut out);
    if let Some(s) = run.sizes.first() {
        startup(s, &mut out);
    }
    ticks(run, &mut out);
    tui_and_fresh(run, factor, &mut out);
    out
}
