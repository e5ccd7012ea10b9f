//! The help overlay (`?`, F1): every key, scrollable; it takes every key
//! and click while open.

use crate::interactive::keys::table;
use crate::interactive::keys::{Action, Command, help_rows};
use crate::interactive::screens::{Ctx, Outcome, Screen};
use crate::interactive::widgets::modal::draw_box;
use crate::interactive::widgets::paint::put;
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

const KEY_WIDTH: u16 = 16;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HelpScreen {
    /// Lines scrolled off the top.
    pub scroll: u16,
}

impl HelpScreen {
    pub(crate) const ID: &'static str = "help";
}

impl Screen for HelpScreen {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn on_action(&mut self, action: Action, _ctx: &Ctx) -> Outcome {
        let max = u16::try_from(help_rows().count()).unwrap_or(u16::MAX);
        match action {
            Action::Help | Action::Back | Action::Quit => return Outcome::Close,
            Action::Down => self.scroll = (self.scroll + 1).min(max),
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Home => self.scroll = 0,
            _ => {}
        }
        Outcome::Handled
    }

    fn overlay(&self) -> bool {
        true
    }

    fn render(&self, frame: &mut Frame, area: Rect, _ctx: &Ctx, theme: &Theme) {
        let lines = u16::try_from(help_rows().count()).unwrap_or(u16::MAX);
        let longest = help_rows()
            .map(|(_, what)| what.chars().count())
            .max()
            .unwrap_or(0);
        let want_w = KEY_WIDTH + u16::try_from(longest).unwrap_or(60) + 4;
        let size = (want_w, lines.saturating_add(2));
        let inner = draw_box(
            frame,
            area,
            size,
            " Keys: Esc or ? closes, ↑↓ scrolls ",
            theme,
        );
        let buf = frame.buffer_mut();
        for (i, (keys, what)) in help_rows()
            .skip(usize::from(self.scroll))
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

    fn hints(&self) -> &'static [&'static Command] {
        &[&table::BOX_SCROLL, &table::BOX_CLOSE]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
