//! The help overlay: every key.

use super::paint::put;
use super::theme::Theme;
use crate::app::App;
use crate::app::keys::HELP;
use crate::app::layout::centered;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Clear};

const KEY_WIDTH: u16 = 16;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let lines = u16::try_from(HELP.len()).unwrap_or(u16::MAX);
    let longest = HELP
        .iter()
        .map(|(_, what)| what.chars().count())
        .max()
        .unwrap_or(0);
    let want_w = KEY_WIDTH + u16::try_from(longest).unwrap_or(60) + 4;
    let boxed = centered(area, want_w, lines.saturating_add(2));
    frame.render_widget(Clear, boxed);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Keys: Esc or ? closes ")
        .border_style(theme.title());
    let inner = block.inner(boxed);
    frame.render_widget(block, boxed);
    let buf = frame.buffer_mut();
    let scroll = usize::from(app.help.unwrap_or(0));
    for (i, (keys, what)) in HELP
        .iter()
        .skip(scroll)
        .take(usize::from(inner.height))
        .enumerate()
    {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        put(
            buf,
            inner.x + 1,
            y,
            keys,
            KEY_WIDTH.min(inner.width.saturating_sub(1)),
            theme.bold(),
        );
        let x = inner.x + 1 + KEY_WIDTH;
        put(
            buf,
            x,
            y,
            what,
            inner.right().saturating_sub(x),
            theme.plain(),
        );
    }
}
