//! The TUI's behaviour, key by key, without a terminal.

use crate::tui_common::*;
use crossterm::event::{KeyCode, MouseEventKind};
use restop::interactive::app::{Command, Event, Focus};
use restop::interactive::screens::drill::DetailState;
use restop::interactive::widgets::table::Cell;
use restop::model::consumers::{SortDirection, SortKey};
use restop::model::{DetailScope, OwnerKey, QpState, ResourceType};
use restop::source::CollectError;
use std::time::Duration;

fn processes(pids: &[u32]) -> DetailScope {
    DetailScope::Processes(pids.iter().copied().collect())
}

#[test]
fn consumers_start_sorted_by_qp_largest_first() {
    let app = app();
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Qp));
    assert_eq!(app.main.direction, SortDirection::Descending);
    assert_eq!(
        names(&app),
        ["train.py", "ib_write_bw", "[nvme_rdma]", "(unattributed)"]
    );
    assert_eq!(selected_name(&app).as_deref(), Some("train.py"));
}

#[test]
fn s_and_greater_than_move_to_the_next_sort_column() {
    let mut app = app();
    app.update(ch('s'));
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Cq));
    app.update(ch('>'));
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Mr));
    assert_eq!(names(&app)[0], "train.py");
    assert_eq!(names(&app)[1], "ib_write_bw");
}

#[test]
fn less_than_moves_back_over_the_columns_shown_and_wraps() {
    // 80 columns: USER, CONTAINER and SRQ are not shown, so they are skipped.
    let mut app = app();
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::Name);
    assert_eq!(
        app.main.direction,
        SortDirection::Ascending,
        "names sort A→Z"
    );
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::Pid);
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::ErrQps, "wraps to the last column");
}

#[test]
fn wide_terminals_cycle_through_every_column_in_screen_order() {
    let mut app = app_sized(160, 40);
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::Pod);
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::Container);
    for expected in [SortKey::Name, SortKey::User, SortKey::Pid, SortKey::ErrQps] {
        app.update(ch('<'));
        assert_eq!(app.main.sort, expected);
    }
    app.update(ch('<'));
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::CmId));
}

#[test]
fn direct_sort_keys_sort_and_again_reverse() {
    let mut app = app();
    app.update(ch('M'));
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Mr));
    assert_eq!(app.main.direction, SortDirection::Descending);
    app.update(ch('M'));
    assert_eq!(app.main.direction, SortDirection::Ascending);
    app.update(ch('N'));
    assert_eq!(
        (app.main.sort, app.main.direction),
        (SortKey::Name, SortDirection::Ascending)
    );
    app.update(ch('E'));
    assert_eq!(app.main.sort, SortKey::ErrQps);
    // Elsewhere the keys do nothing to the consumers.
    app.update(ch('e'));
    app.update(ch('Q'));
    assert_eq!(app.main.sort, SortKey::ErrQps);
}

#[test]
fn f6_opens_the_sort_menu_on_the_sorted_column_and_enter_sorts() {
    let mut app = app();
    app.update(key(KeyCode::F(6)));
    let menu = app
        .find_screen::<restop::interactive::screens::sort_menu::SortMenu>()
        .expect("the sort menu");
    let headers: Vec<_> = menu.columns.iter().map(|c| c.header()).collect();
    assert_eq!(
        headers,
        [
            "PID", "NAME", "QP", "CQ", "MR", "MR-BYTES", "PD", "CTX", "CM_ID", "ERR"
        ],
        "the columns shown at 80 columns, in screen order"
    );
    assert_eq!(menu.selected, 2, "on QP, the sorted column");
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Enter));
    assert!(app.screen_ids().is_empty());
    assert_eq!(
        (app.main.sort, app.main.direction),
        (SortKey::Count(ResourceType::Mr), SortDirection::Descending)
    );
    // Esc cancels; a direct key in the menu sorts at once.
    app.update(key(KeyCode::F(6)));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Esc));
    assert!(app.screen_ids().is_empty());
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Mr));
    app.update(key(KeyCode::F(6)));
    app.update(ch('P'));
    assert!(app.screen_ids().is_empty());
    assert_eq!(app.main.sort, SortKey::Pid);
}

#[test]
fn r_reverses_the_order() {
    let mut app = app();
    app.update(ch('r'));
    assert_eq!(app.main.direction, SortDirection::Ascending);
    assert_eq!(names(&app)[0], "(unattributed)");
}

#[test]
fn selection_follows_the_process_not_the_row() {
    let mut app = app();
    app.update(key(KeyCode::Down));
    assert_eq!(selected_name(&app).as_deref(), Some("ib_write_bw"));
    app.update(ch('r'));
    assert_eq!(selected_name(&app).as_deref(), Some("ib_write_bw"));
    assert_eq!(app.main.consumer_cursor.selected, 2);

    // A refresh in which ib_write_bw becomes the biggest QP holder.
    let mut snapshot = fixture(&DetailScope::ErrorsOnly);
    snapshot.tallies[1].counts.add(ResourceType::Qp, 50);
    app.update(ch('r'));
    app.update(snapshot_event(snapshot, DetailScope::ErrorsOnly));
    assert_eq!(names(&app)[0], "ib_write_bw");
    assert_eq!(app.main.consumer_cursor.selected, 0);
    assert_eq!(selected_name(&app).as_deref(), Some("ib_write_bw"));
}

#[test]
fn a_vanished_selection_stays_at_the_same_place() {
    let mut app = app();
    app.update(key(KeyCode::Down));
    let mut snapshot = fixture(&DetailScope::ErrorsOnly);
    snapshot.tallies.remove(1);
    app.update(snapshot_event(snapshot, DetailScope::ErrorsOnly));
    assert_eq!(app.main.consumer_cursor.selected, 1);
    assert_eq!(selected_name(&app).as_deref(), Some("[nvme_rdma]"));
}

#[test]
fn movement_keys() {
    let mut app = app();
    app.update(key(KeyCode::End));
    assert_eq!(selected_name(&app).as_deref(), Some("(unattributed)"));
    app.update(ch('k'));
    assert_eq!(selected_name(&app).as_deref(), Some("[nvme_rdma]"));
    app.update(key(KeyCode::Home));
    assert_eq!(app.main.consumer_cursor.selected, 0);
    app.update(ch('j'));
    assert_eq!(app.main.consumer_cursor.selected, 1);
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.main.consumer_cursor.selected, 3);
    app.update(key(KeyCode::PageUp));
    assert_eq!(app.main.consumer_cursor.selected, 0);
    app.update(ch('G'));
    assert_eq!(app.main.consumer_cursor.selected, 3);
    app.update(ch('g'));
    assert_eq!(app.main.consumer_cursor.selected, 0);
}

#[test]
fn slash_filters_as_you_type_and_enter_keeps_it() {
    let mut app = app();
    app.update(ch('/'));
    assert!(app.filter_edit.is_some());
    typed(&mut app, "bob");
    assert_eq!(names(&app), ["ib_write_bw"]);
    app.update(key(KeyCode::Enter));
    assert!(app.filter_edit.is_none());
    assert_eq!(app.filter.text.as_deref(), Some("bob"));
    // Keys act normally again: q quits.
    assert_eq!(app.update(ch('q')), [Command::Quit]);
}

#[test]
fn filter_matches_name_pid_user_and_device() {
    for (text, expected) in [
        ("train", "train.py"),
        ("100", "train.py"),
        ("alice", "train.py"),
        ("mlx5_1", "ib_write_bw"),
        ("NVME", "[nvme_rdma]"),
    ] {
        let mut app = app();
        app.update(ch('/'));
        typed(&mut app, text);
        assert_eq!(names(&app), [expected], "filter {text:?}");
    }
}

#[test]
fn esc_while_typing_restores_the_previous_filter() {
    let mut app = app();
    app.update(ch('/'));
    typed(&mut app, "bob");
    app.update(key(KeyCode::Enter));
    app.update(ch('/'));
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Backspace));
    assert_eq!(names(&app).len(), 4, "an empty filter shows everything");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.filter.text.as_deref(), Some("bob"));
    assert_eq!(names(&app), ["ib_write_bw"]);
}

#[test]
fn esc_on_the_main_screen_clears_the_filter() {
    let mut app = app();
    app.update(ch('/'));
    typed(&mut app, "zzz");
    app.update(key(KeyCode::Enter));
    assert!(names(&app).is_empty());
    app.update(key(KeyCode::Esc));
    assert_eq!(app.filter.text, None);
    assert_eq!(names(&app).len(), 4);
}

#[test]
fn ctrl_u_clears_the_typed_filter() {
    let mut app = app();
    app.update(ch('/'));
    typed(&mut app, "bob");
    app.update(ctrl('u'));
    assert_eq!(app.filter_edit.as_ref().map(|e| e.text.as_str()), Some(""));
    assert_eq!(names(&app).len(), 4);
}

#[test]
fn freeze_keeps_the_view_while_snapshots_keep_arriving() {
    let mut app = app();
    app.update(ch(' '));
    assert!(app.frozen);
    let mut newer = fixture(&DetailScope::ErrorsOnly);
    newer.tallies[1].counts.add(ResourceType::Qp, 50);
    newer.meta.collected_at_ms = newer
        .meta
        .collected_at_ms
        .plus(restop::model::Millis(2_000));
    app.update(snapshot_event(newer, DetailScope::ErrorsOnly));
    assert_eq!(app.newer_while_frozen, 1);
    assert_eq!(names(&app)[0], "train.py", "the frozen view is unchanged");
    assert_eq!(
        app.snapshot().map(|s| s.meta.collected_at_ms),
        Some(COLLECTED_AT_MS)
    );

    // Still fully browsable.
    app.update(ch('r'));
    assert_eq!(names(&app)[0], "(unattributed)");
    app.update(ch('/'));
    typed(&mut app, "bob");
    app.update(key(KeyCode::Enter));
    assert_eq!(names(&app), ["ib_write_bw"]);
    app.update(key(KeyCode::Esc));
    app.update(ch('r'));

    // Resuming shows the newest snapshot.
    app.update(ch('f'));
    assert!(!app.frozen);
    assert_eq!(app.newer_while_frozen, 0);
    assert_eq!(names(&app)[0], "ib_write_bw");
}

#[test]
fn plus_and_minus_change_the_interval() {
    let mut app = app();
    assert_eq!(
        app.update(ch('+')),
        [Command::SetInterval(Duration::from_secs(3))]
    );
    app.update(ch('-'));
    assert_eq!(
        app.update(ch('-')),
        [Command::SetInterval(Duration::from_secs(1))]
    );
    assert_eq!(app.interval, Duration::from_secs(1));
}

#[test]
fn q_ctrl_c_and_the_quit_event_quit() {
    assert_eq!(app().update(ch('q')), [Command::Quit]);
    assert_eq!(app().update(ctrl('c')), [Command::Quit]);
    assert_eq!(app().update(Event::Quit), [Command::Quit]);
    let mut typing = app();
    typing.update(ch('/'));
    assert_eq!(
        typing.update(ch('q')),
        [],
        "q is text while typing a filter"
    );
    assert_eq!(typing.update(ctrl('c')), [Command::Quit]);
}

#[test]
fn help_opens_with_question_mark_or_f1_and_closes_without_quitting() {
    let mut app = app();
    app.update(ch('?'));
    assert!(app.help_scroll().is_some());
    assert_eq!(app.update(ch('q')), [], "q closes help first");
    assert!(app.help_scroll().is_none());
    app.update(key(KeyCode::F(1)));
    assert!(app.help_scroll().is_some());
    app.update(key(KeyCode::Down));
    assert_eq!(app.help_scroll(), Some(1));
    app.update(key(KeyCode::Esc));
    assert!(app.help_scroll().is_none());
    app.update(ch('?'));
    assert_eq!(app.update(ctrl('c')), [Command::Quit]);
}

#[test]
fn enter_drills_down_and_asks_for_that_process_objects() {
    let mut app = app();
    let commands = app.update(key(KeyCode::Enter));
    assert_eq!(commands, [Command::SetDetails(processes(&[100]))]);
    let drill = app.drill().unwrap();
    assert_eq!(drill.owner, owner(100));
    assert_eq!(drill.details, DetailState::Loading);
    assert_eq!(drill.table.rows.len(), 1, "only the ERR QP is known yet");

    collect_as_asked(&mut app, processes(&[100]));
    let drill = app.drill().unwrap();
    assert_eq!(drill.details, DetailState::Loaded);
    assert_eq!(drill.tab, ResourceType::Qp);
    assert_eq!(drill.table.rows.len(), 10);
    assert!(drill.table.rows.iter().any(|r| r.alert));
    assert_eq!(
        drill
            .consumer
            .as_ref()
            .map(|c| c.counts.get(ResourceType::Qp)),
        Some(10)
    );
}

#[test]
fn drill_down_tabs_sort_and_scroll() {
    let mut app = app();
    app.update(key(KeyCode::Enter));
    collect_as_asked(&mut app, processes(&[100]));
    // Sorted by LQPN ascending by default.
    let lqpns = |app: &restop::interactive::app::App| -> Vec<Cell> {
        app.drill()
            .unwrap()
            .table
            .rows
            .iter()
            .map(|r| r.cells[2].clone())
            .collect()
    };
    assert_eq!(lqpns(&app)[0], Cell::Num(Some(17)));
    app.update(ch('r'));
    assert_eq!(lqpns(&app)[0], Cell::Num(Some(26)));
    app.update(key(KeyCode::End));
    assert_eq!(app.drill().unwrap().table.cursor.selected, 9);

    app.update(key(KeyCode::Tab));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Cq);
    app.update(key(KeyCode::Right));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Mr);
    assert_eq!(app.drill().unwrap().table.rows.len(), 5);
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::BackTab));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Qp);
    app.update(ch('3'));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Mr);
    app.update(ch('s'));
    assert_eq!(app.drill().unwrap().table.sort_column, 3);
}

#[test]
fn esc_leaves_the_drill_down_and_stops_asking_for_details() {
    let mut app = app();
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Enter));
    assert_eq!(app.drill().unwrap().owner, owner(200));
    let commands = app.update(key(KeyCode::Esc));
    assert_eq!(commands, [Command::SetDetails(DetailScope::ErrorsOnly)]);
    assert!(app.screen_ids().is_empty());
    assert_eq!(selected_name(&app).as_deref(), Some("ib_write_bw"));
}

#[test]
fn a_kernel_owner_needs_every_object() {
    let mut app = app();
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        [Command::SetDetails(DetailScope::All)]
    );
}

#[test]
fn drilling_into_a_frozen_snapshot_says_the_objects_are_missing() {
    let mut app = app();
    app.update(ch(' '));
    app.update(key(KeyCode::Enter));
    assert_eq!(app.drill().unwrap().details, DetailState::NotInFrozen);
    collect_as_asked(&mut app, processes(&[100]));
    assert_eq!(app.drill().unwrap().details, DetailState::NotInFrozen);
    app.update(ch(' '));
    assert_eq!(app.drill().unwrap().details, DetailState::Loaded);
    assert_eq!(app.drill().unwrap().table.rows.len(), 10);
}

#[test]
fn e_opens_the_error_pane_from_anywhere_and_closes_it() {
    let mut app = app();
    app.update(ch('e'));
    assert_eq!(app.screen_ids(), ["error_qps"]);
    assert_eq!(error_pane(&app).rows.len(), 2);
    app.update(ch('e'));
    assert!(app.screen_ids().is_empty());

    app.update(key(KeyCode::Enter));
    app.update(ch('e'));
    assert_eq!(app.screens.len(), 2);
    app.update(key(KeyCode::Esc));
    assert!(app.drill().is_some(), "Esc goes back to the drill-down");
}

#[test]
fn enter_on_an_error_qp_opens_its_owner_on_that_qp() {
    let mut app = app();
    app.update(ch('e'));
    // Rows sorted by age, oldest first. Both QPs were first seen in the same
    // snapshot; the tie goes by device and QP number in the same (descending)
    // order, so QP 17 (train.py) is second.
    app.update(key(KeyCode::Down));
    let selected_owner = error_pane(&app).selected().unwrap().owner.clone();
    assert_eq!(selected_owner, Some(owner(100)));
    app.update(key(KeyCode::Enter));
    collect_as_asked(&mut app, processes(&[100]));
    let drill = app.drill().unwrap();
    assert_eq!(drill.owner, owner(100));
    let selected = drill.table.selected().unwrap();
    assert_eq!(selected.cells[2], Cell::Num(Some(17)));
    assert_eq!(selected.cells[5], Cell::Text(QpState::Err.to_string()));

    // e from the drill-down goes back to the same pane, not a new one.
    app.update(ch('e'));
    assert_eq!(app.screen_ids(), ["error_qps"]);
}

#[test]
fn error_pane_sorts_and_moves() {
    let mut app = app();
    app.update(ch('e'));
    assert_eq!(
        error_pane(&app).rows[0].owner,
        Some(OwnerKey::Kernel("nvme_rdma".into()))
    );
    app.update(ch('r'));
    assert_eq!(error_pane(&app).rows[0].owner, Some(owner(100)));
    app.update(key(KeyCode::Down));
    assert_eq!(error_pane(&app).cursor.selected, 1);
}

#[test]
fn tab_switches_focus_to_the_devices() {
    let mut app = app();
    app.update(key(KeyCode::Tab));
    assert_eq!(app.main.focus, Focus::Devices);
    app.update(key(KeyCode::Down));
    assert_eq!(app.main.device_cursor.selected, 1);
    assert_eq!(app.main.consumer_cursor.selected, 0);
    // Then the problems strip (the fixture has problems), then back.
    app.update(key(KeyCode::Tab));
    assert_eq!(app.main.focus, Focus::Problems);
    app.update(key(KeyCode::Tab));
    assert_eq!(app.main.focus, Focus::Consumers);
}

#[test]
fn enter_on_a_device_opens_its_view_with_the_counts_on_that_device() {
    let mut app = app();
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Enter));
    assert_eq!(app.screen_ids(), ["device"]);
    let view = app
        .find_screen::<restop::interactive::screens::device::DeviceScreen>()
        .unwrap();
    assert_eq!(view.name, "mlx5_1");
    assert_eq!(
        view.table.rows.len(),
        1,
        "only ib_write_bw holds objects there"
    );
    assert_eq!(view.table.rows[0].cells[2], Cell::Num(Some(3)));
    assert_eq!(view.error_qps, 0);
    // Enter on the owner opens its drill-down; Esc comes back.
    app.update(key(KeyCode::Enter));
    assert_eq!(app.drill().unwrap().owner, owner(200));
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    assert!(app.screen_ids().is_empty());

    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Enter));
    let view = app
        .find_screen::<restop::interactive::screens::device::DeviceScreen>()
        .unwrap();
    assert_eq!(view.name, "mlx5_0");
    assert_eq!(view.table.rows.len(), 3);
    assert_eq!(view.error_qps, 2);
}

#[test]
fn a_failed_collection_keeps_the_last_snapshot() {
    let mut app = app();
    app.update(Event::Snapshot {
        result: Err(CollectError::Timeout {
            what: "QP dump".into(),
            after: Duration::from_secs(5),
        }),
        details: DetailScope::ErrorsOnly,
    });
    assert!(
        app.collect_error
            .as_deref()
            .unwrap()
            .contains("did not answer")
    );
    assert_eq!(names(&app).len(), 4);
    collect_as_asked(&mut app, DetailScope::ErrorsOnly);
    assert_eq!(app.collect_error, None);
}

#[test]
fn clicking_a_column_header_sorts_by_it_and_again_reverses() {
    let mut app = app();
    let pane = app.main_layout().consumers;
    let header_y = pane.header.y;
    // At 80 columns: PID NAME QP CQ MR ...; find "MR" by its title position.
    let placed = restop::interactive::rows::consumer_columns::fit_consumer_columns(
        &app.filter,
        pane.header.width,
    );
    let mr = placed
        .iter()
        .find(|p| p.column.sort_key() == SortKey::Count(ResourceType::Mr))
        .unwrap();
    app.update(click(mr.x + 1, header_y));
    assert_eq!(app.main.sort, SortKey::Count(ResourceType::Mr));
    assert_eq!(app.main.direction, SortDirection::Descending);
    app.update(click(mr.x + 1, header_y));
    assert_eq!(app.main.direction, SortDirection::Ascending);
}

#[test]
fn clicking_a_row_selects_it_and_the_wheel_scrolls() {
    let mut app = app();
    let pane = app.main_layout().consumers;
    app.update(click(3, pane.rows.y + 2));
    assert_eq!(selected_name(&app).as_deref(), Some("[nvme_rdma]"));
    app.update(mouse(MouseEventKind::ScrollUp, 3, pane.rows.y));
    assert_eq!(
        app.main.consumer_cursor.selected, 2,
        "all rows fit: nothing to scroll"
    );

    let devices = app.main_layout().devices;
    app.update(click(3, devices.rows.y + 1));
    assert_eq!(app.main.focus, Focus::Devices);
    assert_eq!(app.main.device_cursor.selected, 1);
}

#[test]
fn clicking_a_drill_down_tab_switches_to_it() {
    let mut app = app();
    app.update(key(KeyCode::Enter));
    let l = app.drill().unwrap().layout(app.ctx().body);
    // Tabs: " QP 10 " " CQ 4 " " MR 5 " ...: the third starts after two labels.
    app.update(click(l.tabs.x + 7 + 1 + 6 + 1 + 2, l.tabs.y));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Mr);
}

#[test]
fn resize_keeps_the_selection_visible() {
    let mut app = app_sized(80, 50);
    app.update(key(KeyCode::End));
    app.update(Event::Resize(40, 12));
    let pane = app.main_layout().consumers;
    let c = app.main.consumer_cursor;
    assert!(c.selected >= c.offset && c.selected < c.offset + usize::from(pane.rows.height));
}
