//! The consumers table grouped by container or pod (`o`, `--group`), on the demo host (a
//! Kubernetes GPU node whose trainers and services run in pods).

use crate::tui_common::*;
use crate::tui_render::{demo_app, screen};
use crossterm::event::KeyCode;
use restop::interactive::app::AppConfig;
use restop::interactive::screens::drill::DrillScreen;
use restop::interactive::screens::group::GroupScreen;
use restop::model::owner_group::{GroupKey, OwnerGroup};

fn grouped(group: OwnerGroup) -> AppConfig {
    AppConfig {
        group,
        ..AppConfig::default()
    }
}

/// The consumers table's title line and the footer.
fn title_and_footer(text: &str) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    let title = lines
        .iter()
        .find(|l| l.contains("Top consumers"))
        .map(|l| l.to_string())
        .unwrap_or_default();
    let footer = lines.last().map(|l| l.to_string()).unwrap_or_default();
    (title, footer)
}

#[test]
fn main_screen_grouped_by_pod_160x50() {
    let (app, _) = demo_app(160, 50, grouped(OwnerGroup::Pod));
    insta::assert_snapshot!(screen(&app, 160, 50));
}

#[test]
fn o_cycles_process_container_pod_and_the_title_and_footer_say_so() {
    let (mut app, _) = demo_app(120, 40, AppConfig::default());
    let (title, footer) = title_and_footer(&screen(&app, 120, 40));
    assert!(title.contains("Top consumers ("), "{title}");
    assert!(!footer.contains(" by "), "{footer}");
    let processes = app.main.rows.len();

    app.update(ch('o'));
    assert_eq!(app.main.grouping, OwnerGroup::Container);
    let (title, footer) = title_and_footer(&screen(&app, 120, 40));
    assert!(title.contains("Top consumers by container ("), "{title}");
    assert!(footer.contains("o by container"), "{footer}");

    app.update(ch('o'));
    assert_eq!(app.main.grouping, OwnerGroup::Pod);
    let (title, footer) = title_and_footer(&screen(&app, 120, 40));
    assert!(title.contains("Top consumers by pod ("), "{title}");
    assert!(footer.contains("o by pod"), "{footer}");
    assert!(app.main.rows.len() < processes);

    app.update(ch('o'));
    assert_eq!(app.main.grouping, OwnerGroup::Process);
    let (title, _) = title_and_footer(&screen(&app, 120, 40));
    assert!(title.contains("Top consumers ("), "{title}");
    assert_eq!(app.main.rows.len(), processes);
}

#[test]
fn a_pods_row_sums_its_processes_and_says_how_many() {
    let (app, _) = demo_app(160, 50, grouped(OwnerGroup::Pod));
    let pods: Vec<_> = app.main.rows.iter().filter(|r| r.is_group()).collect();
    assert!(!pods.is_empty());
    for pod in &pods {
        let qps: u64 = pod
            .members
            .iter()
            .map(|m| m.counts.get(restop::model::ResourceType::Qp))
            .sum();
        assert_eq!(pod.total.counts.get(restop::model::ResourceType::Qp), qps);
        assert!(matches!(pod.key, GroupKey::Pod(_)));
    }
    let several = pods
        .iter()
        .find(|p| p.members.len() > 1)
        .expect("a pod with several processes");
    let text = screen(&app, 160, 50);
    let name = format!("{} ({} procs)", several.name, several.members.len());
    assert!(text.contains(&name), "{name} not in\n{text}");
    // Kernel owners stay rows of their own.
    assert!(
        app.main
            .rows
            .iter()
            .any(|r| !r.is_group() && r.total.pid().is_none())
    );
}

#[test]
fn the_filter_and_sorting_work_on_groups() {
    let (mut app, _) = demo_app(120, 40, grouped(OwnerGroup::Pod));
    app.update(ch('/'));
    typed(&mut app, "ml-training");
    app.update(key(KeyCode::Enter));
    assert!(!app.main.rows.is_empty());
    for row in &app.main.rows {
        let pod = row.pod().unwrap_or_default();
        assert!(pod.starts_with("ml-training/"), "{pod}");
    }
    app.update(ch('N'));
    let names: Vec<String> = app.main.rows.iter().map(|r| r.name.clone()).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(names, sorted);
}

#[test]
fn the_selected_process_stays_selected_through_its_pod() {
    let (mut app, _) = demo_app(120, 40, AppConfig::default());
    let in_pod = app
        .main
        .consumers
        .iter()
        .rposition(|c| c.pod().is_some())
        .expect("a process in a pod");
    for _ in 0..in_pod {
        app.update(key(KeyCode::Down));
    }
    let chosen = app.selected_consumer().unwrap().owner.clone();
    app.update(ch('o'));
    app.update(ch('o'));
    assert!(app.main.selected_row().unwrap().holds(&chosen));
    app.update(ch('o'));
    assert_eq!(app.selected_consumer().unwrap().owner, chosen);
}

#[test]
fn enter_on_a_pod_lists_its_processes_and_enter_opens_one() {
    let (mut app, _) = demo_app(120, 40, grouped(OwnerGroup::Pod));
    let at = app
        .main
        .rows
        .iter()
        .position(|r| r.is_group() && r.members.len() > 1)
        .expect("a pod with several processes");
    for _ in 0..at {
        app.update(key(KeyCode::Down));
    }
    let pod = app.main.selected_row().unwrap().clone();
    app.update(key(KeyCode::Enter));
    let screen_now = app.top_as::<GroupScreen>().expect("the pod's processes");
    assert_eq!(screen_now.key, pod.key);
    assert_eq!(screen_now.table.rows.len(), pod.members.len());
    let text = screen(&app, 120, 40);
    let pod_name = pod.pod().unwrap();
    assert!(
        text.contains(&format!("pod {pod_name}: {} processes", pod.members.len())),
        "{text}"
    );
    let first = screen_now.table.selected().unwrap().owner.clone().unwrap();
    app.update(key(KeyCode::Enter));
    assert_eq!(
        app.drill().map(|d: &DrillScreen| d.owner.clone()),
        Some(first)
    );
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    assert!(app.on_main());
}

#[test]
fn a_lone_process_in_a_grouped_view_opens_its_objects() {
    let (mut app, _) = demo_app(120, 40, grouped(OwnerGroup::Pod));
    let at = app
        .main
        .rows
        .iter()
        .position(|r| !r.is_group())
        .expect("an owner in no pod");
    for _ in 0..at {
        app.update(key(KeyCode::Down));
    }
    let owner = app.main.selected_row().unwrap().total.owner.clone();
    app.update(key(KeyCode::Enter));
    assert_eq!(app.drill().map(|d| d.owner.clone()), Some(owner));
}

#[test]
fn the_header_counts_owners_whatever_the_grouping() {
    let (mut app, _) = demo_app(120, 40, AppConfig::default());
    let owners = app.main.rows.len();
    let header = |app: &restop::interactive::app::App| {
        screen(app, 120, 40).lines().nth(1).unwrap().to_string()
    };
    let before = header(&app);
    assert!(before.contains(&format!("{owners} owners")), "{before}");
    app.update(ch('o'));
    app.update(ch('o'));
    assert!(app.main.rows.len() < owners);
    assert_eq!(app.main.consumers.len(), owners);
    assert!(header(&app).contains(&format!("{owners} owners")));
}

#[test]
fn a_pods_change_since_the_baseline_is_its_processes_summed() {
    let (mut app, mut demo) = demo_app(120, 40, AppConfig::default());
    app.update(ch('b'));
    for _ in 0..30 {
        demo.feed(&mut app, restop::model::DetailScope::ErrorsOnly);
    }
    let per_process = app.main.deltas.clone();
    assert!(!per_process.is_empty());
    app.update(ch('o'));
    app.update(ch('o'));
    for row in app.main.rows.iter().filter(|r| r.is_group()) {
        let got = app.main.deltas[&row.total.owner];
        let mut qp = 0i64;
        let mut mr_bytes = 0i64;
        for m in &row.members {
            qp += per_process[&m.owner]
                .counts
                .get(restop::model::ResourceType::Qp);
            mr_bytes += per_process[&m.owner].mr_bytes;
        }
        assert_eq!(
            got.counts.get(restop::model::ResourceType::Qp),
            qp,
            "{}",
            row.name
        );
        assert_eq!(got.mr_bytes, mr_bytes, "{}", row.name);
    }
}

#[test]
fn a_pods_processes_120x24() {
    let (mut app, _) = demo_app(120, 24, grouped(OwnerGroup::Pod));
    app.update(key(KeyCode::Enter));
    assert!(app.top_as::<GroupScreen>().is_some());
    insta::assert_snapshot!(screen(&app, 120, 24));
}
