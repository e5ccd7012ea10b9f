//! The exporter's textfile against `rdma res show`.

use super::*;

/// `name{device="d",type="t"} v` lines of an exposition, keyed by the two labels.
fn samples(text: &str, metric: &str, second_label: &str) -> BTreeMap<(String, String), f64> {
    let mut out = BTreeMap::new();
    let prefix = format!("{metric}{{device=\"");
    for line in text.lines().filter(|l| l.starts_with(&prefix)) {
        let rest = &line[prefix.len()..];
        let Some((device, rest)) = rest.split_once('"') else {
            continue;
        };
        let label = format!(",{second_label}=\"");
        let Some(rest) = rest.strip_prefix(label.as_str()) else {
            continue;
        };
        let Some((value_of_label, rest)) = rest.split_once('"') else {
            continue;
        };
        let Some(value) = rest.trim_start_matches('}').trim().parse::<f64>().ok() else {
            continue;
        };
        out.insert((device.to_string(), value_of_label.to_string()), value);
    }
    out
}

#[test]
fn exporter_textfile_counts_match_rdma() {
    let Some(r) = results() else { return };
    let mut f = Failures::default();
    let run = crate::vm_support::Run::load(&r.dir, "restop-export");
    f.check(run.rc == Some(0), || {
        format!(
            "restop export --textfile --once: exit {:?}, stderr {:?}",
            run.rc, run.stderr
        )
    });
    let text = std::fs::read_to_string(r.dir.join("restop.prom")).unwrap_or_default();
    f.check(text.contains("restop_up{source=\"live\"} 1"), || {
        "restop.prom: no restop_up{source=\"live\"} 1".to_string()
    });
    let resources = samples(&text, "restop_resources", "type");
    for ((device, t), before) in &r.before.summary {
        let after = r.after.summary.get(&(device.clone(), t.clone()));
        let ours = resources.get(&(device.clone(), t.clone())).copied();
        f.check(
            ours == Some(*before as f64) || ours.is_some_and(|v| Some(&(v as u64)) == after),
            || {
                format!(
                    "restop_resources{{device={device},type={t}}}: exported {ours:?}, \
                     rdma res show {before} before / {after:?} after"
                )
            },
        );
    }
    let exported_devices: BTreeSet<&str> = resources.keys().map(|(d, _)| d.as_str()).collect();
    let rdma_devices: BTreeSet<&str> = r.before.summary.keys().map(|(d, _)| d.as_str()).collect();
    f.check(exported_devices == rdma_devices, || {
        format!("exported devices {exported_devices:?}, rdma {rdma_devices:?}")
    });
    // QPs per device and state equal rdma's rows (before or after).
    let qps = samples(&text, "restop_queue_pairs", "state");
    for ((device, state), value) in &qps {
        let count = |snap: &crate::vm_support::rdma::Snapshot| {
            snap.rows
                .iter()
                .filter(|row| {
                    row.kind == "qp"
                        && &row.dev == device
                        && row.state.as_deref() == Some(state.as_str())
                })
                .count() as f64
        };
        let (before, after) = (count(&r.before), count(&r.after));
        f.check(*value == before || *value == after, || {
            format!("restop_queue_pairs{{device={device},state={state}}}: exported {value}, rdma {before} before / {after} after")
        });
    }
    f.finish("exporter textfile vs rdma");
}
