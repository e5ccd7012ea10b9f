//! The bottom line: the filter being typed, or the keys that matter most.
//! While a modal box (signal dialog, sort menu, help, message) is open it
//! takes every key, so the footer names the box's keys, not the screen's
//! under it.

use crate::interactive::app::App;
use crate::interactive::keys::{Command, footer_hints, sort_key_char, table};
use crate::interactive::rows::consumer_columns::consumer_columns;
use crate::interactive::widgets::fit::{Part, fit_parts};
use crate::interactive::widgets::paint::put_spans;
use crate::interactive::widgets::table::draw::sort_marker;
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
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
    for (i, hint) in footer_hints(&commands(app)).into_iter().enumerate() {
        let cost = u8::try_from(200usize.saturating_sub(i * 8))
            .unwrap_or(0)
            .max(1);
        let spans = vec![Span::styled(hint.key, theme.bold()), Span::raw(hint.word)];
        parts.push(Part::new(spans).drop_at(cost));
    }
    put_spans(buf, area, &fit_parts(parts, usize::from(area.width)));
}

/// The sort hint loses its key and word after the hints past the seventh
/// are gone, before the filter's (the eighth) goes.
const COST_SHORT_SORT: u8 = 140;

/// The rows of the key table the footer names on the current screen (it
/// puts them in the table's order): a modal box's own when one is open.
fn commands(app: &App) -> Vec<&'static Command> {
    let top = app.top();
    if top.overlay() {
        return top.hints().to_vec();
    }
    let on_main = app.on_main();
    let mut commands: Vec<&'static Command> = vec![&table::QUIT, &table::HELP];
    let replay = app.replay.is_some();
    if replay {
        // Space pauses a replay instead of freezing it.
        commands.extend([&table::PAUSE, &table::STEP, &table::SPEED, &table::SEEK]);
    }
    if app.frozen && !replay {
        commands.push(&table::RESUME);
    }
    commands.extend(app.page().hints().iter().copied());
    // Freezing and the interval mean nothing in a replay.
    if !replay && !app.frozen {
        commands.push(&table::FREEZE);
    }
    if on_main {
        commands.extend([&table::ALERTS, &table::SPARKLINES, &table::BASELINE]);
    }
    commands.push(&table::FULL_TEXT);
    if !replay && on_main {
        commands.push(&table::INTERVAL);
    }
    commands
}
