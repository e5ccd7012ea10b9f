//! The bottom line: the filter being typed, or the keys that matter most.

use super::consumers::sort_marker;
use super::paint::put_spans;
use super::theme::Theme;
use crate::app::App;
use crate::app::columns::consumer_columns;
use crate::app::keys::sort_key_char;
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
    let on_main = app.on_main();
    if on_main {
        let sorted = consumer_columns(&app.filter)
            .into_iter()
            .find(|c| c.sort_key() == app.main.sort)
            .map(|c| c.header())
            .unwrap_or("?");
        // The column's direct key, so the next sort is one key away.
        let direct = sort_key_char(app.main.sort)
            .map(|c| format!("({c}) "))
            .unwrap_or_default();
        spans.push(Span::styled(
            format!("sort {sorted}{} {direct}", sort_marker(app.main.direction)),
            theme.title(),
        ));
    }
    let mut hints: Vec<(&'static str, &'static str)> = vec![("q", " quit "), ("?", " help ")];
    let replay = app.replay.is_some();
    if replay {
        // The replay keys first; Space pauses instead of freezing.
        hints.extend([
            ("␣", " pause "),
            (",.", " step "),
            ("[]", " speed "),
            ("{}", " ±1 min "),
        ]);
    }
    hints.extend(app.page().hints().iter().copied());
    // Freezing and the interval mean nothing in a replay.
    if !replay {
        hints.push(("␣", " freeze "));
        if on_main {
            hints.push(("+-", " interval"));
        }
    }
    for (k, w) in hints {
        spans.extend([key(k), word(w)]);
    }
    put_spans(buf, area, &spans);
}
