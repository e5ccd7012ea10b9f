//! Paging, scrolling and clicks in the drill-down act on the geometry its
//! last draw recorded: the lines its texts wrapped onto, at the size drawn.

use crate::tui_common::*;
use crate::tui_render::draw;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use restop::model::ResourceType;

fn line(terminal: &Terminal<TestBackend>, y: u16) -> String {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol())
        .collect()
}

#[test]
fn a_click_lands_on_the_drill_down_tab_as_drawn_when_its_lines_wrap() {
    let (w, h) = (44, 24);
    let mut app = app_sized(w, h);
    app.update(key(KeyCode::Enter));
    let body = app.ctx().body;
    let undrawn = app.drill().unwrap().layout(body);
    let terminal = draw(&app, w, h);
    let drawn = app.drill().unwrap().layout(body);
    assert!(
        drawn.tabs.y > undrawn.tabs.y,
        "at {w} columns the lines above the tabs wrap"
    );
    let tabs = line(&terminal, drawn.tabs.y);
    assert!(tabs.starts_with(" QP "), "{tabs}");
    let mr = u16::try_from(tabs.find(" MR ").expect("an MR tab")).unwrap();
    app.update(click(drawn.tabs.x + mr + 1, drawn.tabs.y));
    assert_eq!(app.drill().unwrap().tab, ResourceType::Mr);
}
