//! The bottom line: the filter being typed, or the keys that matter most.
//! While a modal box (signal dialog, sort menu, help, message) is open it
//! takes every key, so the footer names the box's keys, not the screen's
//! under it.

use crate::interactive::app::App;
use crate::interactive::keys::sort_key_char;
use crate::interactive::rows::consumer_columns::consumer_columns;
use crate::interactive::screens::main::draw_consumers::sort_marker;
use crate::interactive::widgets::fit::{Part, fit_parts};
use crate::interactive::widgets::paint::put_spans;
use crate::interactive::widgets::theme::Theme;
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
    if let Some(status) = &app.status {
        // The answer to the last key (a signal sent or refused) until the next key.
        put_spans(buf, area, &[Span::styled(status.clone(), theme.bold())]);
        return;
    }
    let mut parts = Vec::new();
    let modal = app.top().overlay();
    if app.on_main() && !modal {
        let sorted = consumer_columns(&app.filter)
            .into_iter()
            .find(|c| c.sort_key() == app.main.sort)
            .map(|c| c.header())
            .unwrap_or("?");
        // The column's direct key, so the next sort is one key away.
        let direct = sort_key_char(app.main.sort)
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        let marker = sort_marker(app.main.direction);
        parts.push(
            Part::new(vec![Span::styled(
                format!("sort {sorted}{marker}{direct} "),
                theme.title(),
            )])
            .or(
                vec![Span::styled(format!("{sorted}{marker} "), theme.title())],
                COST_SHORT_SORT,
            ),
        );
    }
    // Earlier hints matter more: each later one is dropped first, whole.
    for (i, (k, w)) in hints(app).into_iter().enumerate() {
        let cost = u8::try_from(200usize.saturating_sub(i * 8))
            .unwrap_or(0)
            .max(1);
        parts.push(Part::new(vec![Span::styled(k, theme.bold()), Span::raw(w)]).drop_at(cost));
    }
    put_spans(buf, area, &fit_parts(parts, usize::from(area.width)));
}

/// The sort hint loses its key and word only after most hints are gone.
const COST_SHORT_SORT: u8 = 150;

/// The keys named on the current screen, most important first: a modal
/// box's own when one is open.
fn hints(app: &App) -> Vec<(&'static str, &'static str)> {
    let top = app.top();
    if top.overlay() {
        return top.hints().to_vec();
    }
    let on_main = app.on_main();
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
    if app.frozen && !replay {
        // Frozen is the state to leave: say how, before anything else.
        hints.insert(0, ("␣", " resume "));
    }
    hints.extend(app.page().hints().iter().copied());
    // Freezing and the interval mean nothing in a replay.
    if !replay && !app.frozen {
        hints.push(("␣", " freeze "));
    }
    if on_main {
        hints.extend([("a", " alerts "), ("t", " trends "), ("b", " baseline ")]);
    }
    hints.push(("w", " full text "));
    if !replay && on_main {
        hints.push(("+-", " interval"));
    }
    hints
}
