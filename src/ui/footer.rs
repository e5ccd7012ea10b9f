//! The bottom line: the filter being typed, or the keys that matter most.

use super::consumers::sort_marker;
use super::paint::put_spans;
use super::theme::Theme;
use crate::app::columns::consumer_columns;
use crate::app::{App, Screen};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let buf = frame.buffer_mut();
    if let Some(edit) = &app.filter_edit {
        let spans = [
            Span::styled("filter: ", theme.bold()),
            Span::raw(edit.text.clone()),
            Span::styled("█", theme.plain()),
            Span::styled("  Enter keeps  Esc cancels", theme.dim()),
        ];
        put_spans(buf, area, &spans);
        return;
    }
    let key = |k: &'static str| Span::styled(k, theme.bold());
    let word = |w: &'static str| Span::raw(w);
    let mut spans = Vec::new();
    if app.screens.is_empty() {
        let sorted = consumer_columns(&app.filter)
            .into_iter()
            .find(|c| c.sort_key() == app.sort)
            .map(|c| c.title())
            .unwrap_or("?");
        spans.push(Span::styled(
            format!("sort {sorted}{} ", sort_marker(app.direction)),
            theme.title(),
        ));
    }
    spans.extend([key("q"), word(" quit "), key("?"), word(" help ")]);
    match app.screen() {
        None => spans.extend([
            key("⏎"),
            word(" details "),
            key("e"),
            word(" errors "),
            key("/"),
            word(" filter "),
            key("s"),
            word(" sort "),
            key("r"),
            word(" reverse "),
            key("␣"),
            word(" freeze "),
            key("+-"),
            word(" interval"),
        ]),
        Some(Screen::Drill(_)) => spans.extend([
            key("Esc"),
            word(" back "),
            key("Tab"),
            word(" type "),
            key("s"),
            word(" sort "),
            key("r"),
            word(" reverse "),
            key("e"),
            word(" errors "),
            key("␣"),
            word(" freeze"),
        ]),
        Some(Screen::ErrorQps | Screen::Alerts) => spans.extend([
            key("Esc"),
            word(" back "),
            key("⏎"),
            word(" owner "),
            key("s"),
            word(" sort "),
            key("r"),
            word(" reverse "),
            key("␣"),
            word(" freeze"),
        ]),
    }
    put_spans(buf, area, &spans);
}
