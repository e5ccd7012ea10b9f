//! Golden tests of the `--once` report on the hand-built fixture.

use restop::model::consumers::{SortDirection, SortKey};
use restop::model::filter::Filter;
use restop::model::{QpState, ResourceType};
use restop::output::text::WIDTH;
use restop::output::{OnceOptions, render_once};

fn report(filter: &Filter, options: &OnceOptions) -> String {
    render_once(&crate::common::fixture(), filter, options)
}

fn assert_fits(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= WIDTH,
            "line wider than {WIDTH} columns ({}): {line:?}",
            line.chars().count()
        );
    }
}

#[test]
fn full_report() {
    let text = report(&Filter::default(), &OnceOptions::default());
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn one_device() {
    let filter = Filter {
        device: Some("mlx5_1".into()),
        ..Filter::default()
    };
    let text = report(&filter, &OnceOptions::default());
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn some_types() {
    let filter = Filter {
        types: vec![ResourceType::Mr, ResourceType::Cq],
        ..Filter::default()
    };
    let text = report(&filter, &OnceOptions::default());
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn err_state() {
    let filter = Filter {
        state: Some(QpState::Err),
        ..Filter::default()
    };
    let text = report(&filter, &OnceOptions::default());
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn a_thread_id_selects_its_process() {
    let by_tid = Filter {
        pid: Some(4251),
        ..Filter::default()
    };
    let by_pid = Filter {
        pid: Some(4242),
        ..Filter::default()
    };
    let text = report(&by_tid, &OnceOptions::default());
    assert_eq!(text, report(&by_pid, &OnceOptions::default()));
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn top_rows_then_a_summary_line_and_totals_over_everything() {
    let options = OnceOptions {
        top: 2,
        sort: SortKey::MrBytes,
        direction: SortDirection::Descending,
        ..OnceOptions::default()
    };
    let text = report(&Filter::default(), &options);
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn unknown_device_is_named_with_the_ones_that_exist() {
    let filter = Filter {
        device: Some("mlx5_9".into()),
        ..Filter::default()
    };
    let text = report(&filter, &OnceOptions::default());
    assert!(text.contains("! no device named mlx5_9 (have: mlx5_0, mlx5_1, rxe0)"));
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn demo_data_is_unmistakable() {
    let mut snapshot = crate::common::fixture();
    snapshot.meta.source = restop::model::SourceKind::Demo;
    let text = render_once(&snapshot, &Filter::default(), &OnceOptions::default());
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("DEMO") && first.contains("simulated"),
        "{first}"
    );
    assert!(text.contains("source DEMO — simulated data"));
}

#[test]
fn long_names_and_huge_numbers_still_fit() {
    let mut snapshot = crate::common::fixture();
    snapshot.meta.host = "h".repeat(120);
    for p in &mut snapshot.processes {
        p.cmdline = vec!["x".repeat(200)];
        p.user = Some("a-very-long-user-name".into());
    }
    for t in &mut snapshot.tallies {
        for ty in ResourceType::ALL {
            t.counts.add(ty, 123_456_789_012);
        }
        t.mr_bytes = u64::MAX / 4;
    }
    for d in &mut snapshot.devices {
        d.name = format!("{}_{}", "dev".repeat(30), d.index);
    }
    let text = render_once(&snapshot, &Filter::default(), &OnceOptions::default());
    assert_fits(&text);
}

#[test]
fn cli_md_shows_this_report() {
    let markdown = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md"))
        .expect("docs/cli.md");
    let section = &markdown[markdown.find("## The `--once` report").expect("section")..];
    let start = section.find("```\n").expect("block") + 4;
    let end = section[start..].find("```").expect("end of block") + start;
    assert_eq!(
        &section[start..end],
        report(&Filter::default(), &OnceOptions::default()),
        "docs/cli.md's example report is stale"
    );
}

#[test]
fn columns_that_cannot_fit_are_dropped_and_named() {
    let mut snapshot = crate::common::fixture();
    for t in &mut snapshot.tallies {
        for ty in ResourceType::ALL {
            t.counts.add(ty, 900_000);
        }
        t.qp_states.add(QpState::Err, 900_000);
        t.mr_bytes = 1023 * 1024;
    }
    for p in &mut snapshot.processes {
        p.key.pid += 4_190_000;
    }
    for t in &mut snapshot.tallies {
        if let restop::model::OwnerKey::Process(k) = &mut t.owner {
            k.pid += 4_190_000;
        }
    }
    let text = render_once(&snapshot, &Filter::default(), &OnceOptions::default());
    assert_fits(&text);
    assert!(
        text.contains("  (CM_ID, SRQ hidden to fit 80 columns; see --json)"),
        "{text}"
    );
    assert!(
        text.contains(
            "    PID USER  NAME               QP     CQ     MR MR-BYTES     PD    CTX    ERR\n"
        ),
        "{text}"
    );
}
