//! cgroup `rdma` quotas against the controller files.

use super::*;

/// restop's quota for `resource` on `device` in a process's `rdma_cgroup`:
/// (cgroup, current, max, ratio).
fn restop_quota(
    rdma_cgroup: &serde_json::Value,
    device: &str,
    resource: &str,
) -> Option<(String, u64, Option<u64>, Option<f64>)> {
    let q = rdma_cgroup.get("devices")?.get(device)?.get(resource)?;
    Some((
        q.get("cgroup")?.as_str()?.to_string(),
        q.get("current")?.as_u64()?,
        q.get("max").and_then(serde_json::Value::as_u64),
        q.get("ratio").and_then(serde_json::Value::as_f64),
    ))
}

#[test]
fn cgroup_rdma_quotas_match_the_controller_files() {
    use crate::vm_support::cgroup::{self, binding, describe};
    let Some(r) = results() else { return };
    let cg = match &r.cgroup {
        Ok(cg) => cg,
        Err(e) => panic!(
            "the cgroup phase left no results: {e} (in {}; see scenario.log)",
            r.dir.display()
        ),
    };
    let mut f = Failures::default();
    let pid = cg.workload.pid;
    eprintln!(
        "cgroup: workload pid {pid} in {:?}; files before restop: {}; after: {}; \
         restop --json {:?} s, --once {:?} s",
        cg.proc_cgroup.trim(),
        describe(&cg.before),
        describe(&cg.after),
        cg.json.seconds,
        cg.once.seconds
    );
    f.check(cg.proc_cgroup.lines().any(|l| l == "0::/pod1/c1"), || {
        format!(
            "the workload (pid {pid}) is not in /pod1/c1: /proc/{pid}/cgroup says {:?}",
            cg.proc_cgroup.trim()
        )
    });
    f.check(cg.once.rc == Some(0) && !cg.once.panicked(), || {
        format!("restop --once: {}", cg.once.outcome())
    });
    let doc = crate::vm_support::checks::json_run(&mut f, "restop --json", &cg.json);
    let process = doc.as_ref().and_then(|d| {
        d["processes"]
            .as_array()?
            .iter()
            .find(|p| p["pid"].as_u64() == Some(u64::from(pid)))
    });
    let rdma_cgroup = process.map(|p| &p["rdma_cgroup"]);
    if doc.is_some() {
        f.check(rdma_cgroup.is_some(), || {
            format!("restop --json does not list the workload (pid {pid})")
        });
    }
    if let Some(rc) = rdma_cgroup {
        f.check(rc["path"] == cgroup::PATH[0], || {
            format!(
                "pid {pid}: rdma_cgroup.path: restop {}, /proc/{pid}/cgroup {:?}",
                rc["path"],
                cg.proc_cgroup.trim()
            )
        });
    }
    let warnings: Vec<&str> = doc
        .as_ref()
        .and_then(|d| d["meta"]["warnings"].as_array())
        .into_iter()
        .flatten()
        .filter(|w| w["kind"] == "limit")
        .filter_map(|w| w["message"].as_str())
        .collect();
    let once = &cg.once.stdout;
    let section: Vec<&str> = once
        .lines()
        .skip_while(|l| !l.starts_with("CGROUP RDMA QUOTAS"))
        .take_while(|l| !l.trim().is_empty())
        .collect();
    f.check(!section.is_empty(), || {
        format!("restop --once has no CGROUP RDMA QUOTAS section:\n{once}")
    });
    f.check(
        section.iter().any(|l| {
            l.trim_start().starts_with("under")
                && l.split(|c: char| !c.is_ascii_digit())
                    .any(|w| w == pid.to_string())
        }),
        || {
            format!(
                "restop --once: no quota lists pid {pid} under it:\n{}",
                section.join("\n")
            )
        },
    );
    let mut warned = 0;
    for resource in ["hca_handle", "hca_object"] {
        let before = binding(&cg.before, "rxe0", resource);
        let after = binding(&cg.after, "rxe0", resource);
        let files = || {
            format!(
                "the files: before {before:?}, after {after:?} ({})",
                describe(&cg.before)
            )
        };
        let Some(expected) = before.clone().or(after.clone()) else {
            f.fail(format!(
                "{resource} on rxe0: no rdma.max limit in the files, the phase set none; {}",
                describe(&cg.before)
            ));
            continue;
        };
        if let Some(rc) = rdma_cgroup {
            let got = restop_quota(rc, "rxe0", resource);
            let matches = |b: &Option<cgroup::Binding>| {
                b.as_ref().is_some_and(|b| {
                    got.as_ref().is_some_and(|(cgroup, current, max, _)| {
                        *cgroup == b.cgroup && *current == b.current && *max == Some(b.max)
                    })
                })
            };
            f.check(matches(&before) || matches(&after), || {
                format!(
                    "pid {pid}: {resource} on rxe0: restop (cgroup, current, max, ratio) {got:?}; {}",
                    files()
                )
            });
            if let Some((_, current, Some(max), ratio)) = got {
                let want = current as f64 / max as f64;
                f.check(ratio.is_some_and(|x| (x - want).abs() < 1e-9), || {
                    format!(
                        "pid {pid}: {resource} on rxe0: ratio {ratio:?}, {current}/{max} = {want}"
                    )
                });
            }
        }
        let head = format!(
            "{}: rxe0 {resource} {}/{} (",
            expected.cgroup, expected.current, expected.max
        );
        f.check(
            section.iter().any(|l| l.trim_start().starts_with(&head)),
            || {
                format!(
                    "restop --once: no quota line {head:?}...; {}; the section:\n{}",
                    files(),
                    section.join("\n")
                )
            },
        );
        // at or above the default warning threshold (80%): a `limit` warning
        if expected.current as f64 >= 0.8 * expected.max as f64 {
            warned += 1;
            let prefix = format!("cgroup {}: {resource} on rxe0 at ", expected.cgroup);
            let figures = format!("of rdma.max ({}/{}, ", expected.current, expected.max);
            let named = |m: &str| m.starts_with(&prefix) && m.contains(&figures);
            f.check(warnings.iter().any(|m| named(m)), || {
                format!(
                    "restop --json: no limit warning \"{prefix}... {figures}...\"; limit warnings {warnings:?}; {}",
                    files()
                )
            });
            f.check(
                once.lines()
                    .any(|l| l.contains(&prefix) && l.contains(&figures)),
                || format!("restop --once does not warn \"{prefix}... {figures}...\":\n{once}"),
            );
        }
    }
    f.check(warned > 0, || {
        format!(
            "no quota at 80% or more, the phase sets c1's hca_handle to its current use: {}",
            describe(&cg.before)
        )
    });
    f.finish("cgroup rdma quotas");
}
