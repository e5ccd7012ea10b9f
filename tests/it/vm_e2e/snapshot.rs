//! restop `--json`/`--once` of the first phase against `rdma` dumped around it: schema, devices, usage, ERROR QPs, per-process, kernel and unattributed counts, what the workloads created.

use super::*;

#[test]
fn restop_exits_zero_and_its_json_follows_the_schema() {
    let Some(r) = results() else { return };
    let mut f = Failures::default();
    eprintln!(
        "restop --json took {:?} s, --once {:?} s (in the TCG guest)",
        r.json.seconds, r.once.seconds
    );
    f.check(r.json.rc == Some(0), || {
        format!(
            "restop --json exit status {:?}; stderr: {}",
            r.json.rc,
            r.json.stderr.trim()
        )
    });
    f.check(r.once.rc == Some(0), || {
        format!(
            "restop --once exit status {:?}; stderr: {}",
            r.once.rc,
            r.once.stderr.trim()
        )
    });
    for dev in ["rxe0", "rxe1"] {
        f.check(r.once.stdout.contains(dev), || {
            format!(
                "restop --once does not mention {dev}; stdout:\n{}",
                r.once.stdout
            )
        });
    }
    match r.restop_json() {
        Err(e) => f.fail(e),
        Ok(doc) => {
            schema::check(&doc, &mut f);
            let meta = &doc["meta"];
            f.check(meta["kernel"] == r.kernel.as_str(), || {
                format!(
                    "meta.kernel: restop {}, uname -r {}",
                    meta["kernel"], r.kernel
                )
            });
            f.check(meta["host"] == r.hostname.as_str(), || {
                format!(
                    "meta.host: restop {}, uname -n {}",
                    meta["host"], r.hostname
                )
            });
            // the scenario runs as root: nothing is withheld
            f.check(
                meta["hidden_fields"].as_array().is_some_and(Vec::is_empty),
                || format!("meta.hidden_fields as root: {}", meta["hidden_fields"]),
            );
            for w in meta["warnings"].as_array().into_iter().flatten() {
                eprintln!("restop warning: {w}");
                let kind = w["kind"].as_str().unwrap_or("");
                f.check(!matches!(kind, "permission" | "dump_failed"), || {
                    format!("restop warned as root on a healthy system: {w}")
                });
            }
            for d in doc["devices"].as_array().into_iter().flatten() {
                let errors = &d["object_errors"];
                f.check(errors.as_array().is_none_or(Vec::is_empty), || {
                    format!("device {}: object_errors {errors}", d["name"])
                });
            }
        }
    }
    f.finish("restop's runs and JSON schema");
}

#[test]
fn devices_ports_and_usage_match_rdma() {
    let Some(c) = compared() else { return };
    let r = c.results;
    let doc = r.restop_json().unwrap_or_default();
    let mut f = Failures::default();
    let rdma_devs: BTreeSet<&str> = r.links.iter().map(|l| l.dev.as_str()).collect();
    let restop_devs: BTreeSet<&str> = doc["devices"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["name"].as_str())
        .collect();
    f.check(restop_devs == rdma_devs, || {
        format!("devices: restop {restop_devs:?}, rdma link show {rdma_devs:?}")
    });
    for link in &r.links {
        let Some(dev) = doc["devices"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| d["name"] == link.dev.as_str())
        else {
            continue;
        };
        f.check(dev["index"] == link.dev_index, || {
            format!(
                "{}: index: restop {}, rdma ifindex {}",
                link.dev, dev["index"], link.dev_index
            )
        });
        let port = dev["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["index"] == link.port);
        match port {
            None => f.fail(format!("{}: restop lists no port {}", link.dev, link.port)),
            Some(p) => {
                for (key, want) in [
                    ("netdev", &link.netdev),
                    ("state", &link.state),
                    ("phys_state", &link.phys_state),
                ] {
                    f.check(p[key] == want.as_str(), || {
                        format!(
                            "{} port {}: {key}: restop {}, rdma {want}",
                            link.dev, link.port, p[key]
                        )
                    });
                }
            }
        }
    }
    let keys: BTreeSet<&(String, String)> = r
        .before
        .summary
        .keys()
        .chain(r.after.summary.keys())
        .collect();
    for key in keys {
        let (dev, kind) = key;
        either(
            &mut f,
            &format!("{dev}: usage.{kind}.current"),
            &c.restop.usage.get(key).copied(),
            &r.before.summary.get(key).copied(),
            &r.after.summary.get(key).copied(),
            || "from `rdma -j res show`".to_string(),
        );
    }
    f.finish("devices, ports and usage");
}

#[test]
fn error_qps_match_rdma() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    let restop = &c.restop.error_qps;
    if restop != &c.before.error_qps && restop != &c.after.error_qps {
        let mut sets = vec![(&c.before.error_qps, "before")];
        if c.after.error_qps != c.before.error_qps {
            sets.push((&c.after.error_qps, "after"));
        }
        for (set, when) in sets {
            for missing in set.difference(restop) {
                let how = c
                    .results
                    .before
                    .rows
                    .iter()
                    .find(|r| r.kind == "qp" && r.dev == missing.dev && r.id == missing.lqpn);
                let how = how
                    .map(|row| c.results.before.owner(row).1)
                    .unwrap_or_default();
                f.fail(format!(
                    "ERR QP {} lqpn {} of {:?} (rdma {when}: {how}) is not in restop's error_qps \
                     as such; restop has {:?}",
                    missing.dev,
                    missing.lqpn,
                    missing.pid,
                    restop
                        .iter()
                        .find(|q| q.dev == missing.dev && q.lqpn == missing.lqpn)
                ));
            }
            for extra in restop.difference(set) {
                f.fail(format!(
                    "restop's error QP {} lqpn {} pid {:?} is not an ERR/SQE QP of that owner in rdma {when}",
                    extra.dev, extra.lqpn, extra.pid
                ));
            }
        }
    }
    for q in restop {
        let owner = c.restop.error_qp_owner.get(&(q.dev.clone(), q.lqpn));
        if let Some(process) = q.pid.and_then(|pid| c.restop.processes.get(&pid)) {
            f.check(owner == Some(&process.name), || {
                format!(
                    "error QP {} lqpn {}: owner {owner:?}, but restop's process {:?} is named {:?}",
                    q.dev, q.lqpn, q.pid, process.name
                )
            });
        }
    }
    f.finish("error QPs");
}

#[test]
fn per_process_counts_match_rdma_grouped_by_process() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    compare_processes(
        &mut f,
        &c.results.before.tasks,
        "",
        &c.restop,
        &c.before,
        &c.after,
    );
    f.finish("per-process counts");
}

#[test]
fn kernel_unattributed_and_totals_match_rdma() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    compare_kernel_and_unattributed(&mut f, "", &c.restop, &c.before, &c.after);
    for kind in TYPES {
        let rows = |e: &Expected| e.rows_per_type.get(kind).copied().unwrap_or(0);
        let summary = |s: &crate::vm_support::rdma::Snapshot| {
            s.summary
                .iter()
                .filter(|((_, k), _)| k == kind)
                .map(|(_, n)| n)
                .sum::<u64>()
        };
        either(
            &mut f,
            &format!("{kind}: processes + kernel + unattributed"),
            &c.restop.total(kind),
            &rows(&c.before),
            &rows(&c.after),
            || {
                format!(
                    "rdma dump rows over all devices; rdma summary total {} (before) / {} (after)",
                    summary(&c.results.before),
                    summary(&c.results.after)
                )
            },
        );
    }
    f.finish("kernel rows, unattributed and totals");
}

#[test]
fn workload_facts_appear_in_restop() {
    let Some(c) = compared() else { return };
    let mut f = Failures::default();
    for w in &c.results.ready {
        let label = format!("workload {} (pid {})", w.name, w.pid);
        let Some(row) = c.restop.processes.get(&w.pid) else {
            f.fail(format!("{label}: no restop process row"));
            continue;
        };
        let qps = w.final_qps();
        for ((dev, qpn), line) in &qps {
            if line.get("state") == Some("ERR") {
                let want = crate::vm_support::rdma::ErrorQp {
                    dev: dev.clone(),
                    lqpn: *qpn,
                    pid: Some(w.pid),
                };
                f.check(c.restop.error_qps.contains(&want), || {
                    format!(
                        "{label}: ERR QP {dev} {qpn} ({}) not in restop's error_qps with pid {}",
                        line.get("how").unwrap_or("?"),
                        w.pid
                    )
                });
            }
        }
        let states = qps
            .values()
            .fold(std::collections::BTreeMap::new(), |mut m, l| {
                *m.entry(l.get("state").unwrap_or("?").to_string())
                    .or_insert(0u64) += 1;
                m
            });
        f.check(row.tally.qp_states == states, || {
            format!(
                "{label}: qp_states: restop {:?}, ready file {states:?}",
                row.tally.qp_states
            )
        });
        let mr_lengths: Vec<u64> = w.all("mr").filter_map(|l| l.num("length")).collect();
        f.check(row.tally.count("mr") == mr_lengths.len() as u64, || {
            format!(
                "{label}: MRs: restop {}, ready file {mr_lengths:?}",
                row.tally.count("mr")
            )
        });
        f.check(row.tally.mr_bytes == mr_lengths.iter().sum::<u64>(), || {
            format!(
                "{label}: mr_bytes: restop {}, ready file MR lengths {mr_lengths:?} (sum {})",
                row.tally.mr_bytes,
                mr_lengths.iter().sum::<u64>()
            )
        });
        let cm_ids = w.all("cm_id").count() as u64;
        f.check(row.tally.count("cm_id") == cm_ids, || {
            format!(
                "{label}: cm_ids: restop {}, ready file {cm_ids}",
                row.tally.count("cm_id")
            )
        });
        let devs: BTreeSet<String> = w
            .lines
            .iter()
            .filter_map(|l| l.get("dev").map(str::to_string))
            .collect();
        f.check(row.tally.devices == devs, || {
            format!(
                "{label}: devices: restop {:?}, ready file {devs:?}",
                row.tally.devices
            )
        });
    }
    f.check(c.results.ready.len() == 4, || {
        format!("expected 4 ready files, found {}", c.results.ready.len())
    });
    f.finish("workload facts");
}

/// The release binary linked against glibc 2.17 (scripts/release-build.sh) reads the real
/// kernel as the debug build does: exit 0, the schema, the same devices and usage.
#[test]
fn the_old_glibc_release_build_runs_against_the_real_kernel() {
    let Some(r) = results() else { return };
    let run = crate::vm_support::Run::load(&r.dir, "restop-release-json");
    if run.rc.is_none() {
        assert!(
            !std::env::var("RESTOP_DEPLOY_TESTS").is_ok_and(|v| v == "1"),
            "no restop-release-json in {}: target/dist/restop-x86_64 was not in the guest",
            r.dir.display()
        );
        eprintln!("skipped: target/dist/restop-x86_64 not built (scripts/release-build.sh)");
        return;
    }
    let mut f = Failures::default();
    f.check(run.rc == Some(0), || {
        format!("restop-x86_64 --json: {}", run.outcome())
    });
    match (run.parse(), r.restop_json()) {
        (Ok(release), Ok(debug)) => {
            schema::check(&release, &mut f);
            let devices = |doc: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
                doc["devices"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| {
                        // The ports' identity and state: their counters move between the runs.
                        let ports = d["ports"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|p| {
                                serde_json::json!([
                                    p["index"],
                                    p["state"],
                                    p["phys_state"],
                                    p["netdev"]
                                ])
                            })
                            .collect();
                        (
                            d["name"].as_str().unwrap_or("").to_string(),
                            serde_json::Value::Array(ports),
                        )
                    })
                    .collect()
            };
            f.check(devices(&release) == devices(&debug), || {
                format!(
                    "devices: release {:?}, debug build {:?}",
                    devices(&release),
                    devices(&debug)
                )
            });
        }
        (Err(e), _) | (_, Err(e)) => f.fail(e),
    }
    f.finish("the release build against the real kernel");
}
