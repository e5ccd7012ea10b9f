//! A message box over the screen: the full text of a warning or alert that
//! did not fit its line (`w`), or why a key did nothing. Wrapped to the
//! terminal, scrollable; any other key closes it.

use crate::interactive::keys::Action;
use crate::interactive::keys::{Command, table};
use crate::interactive::layout::centered;
use crate::interactive::screens::{Ctx, Outcome, Screen};
use crate::interactive::widgets::theme::Theme;
use crossterm::event::{MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use std::any::Any;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageScreen {
    pub title: String,
    /// Paragraphs, each wrapped on its own.
    pub paragraphs: Vec<String>,
    /// Lines scrolled off the top.
    pub scroll: u16,
}

impl MessageScreen {
    pub const ID: &'static str = "message";

    pub fn new(title: impl Into<String>, paragraphs: Vec<String>) -> MessageScreen {
        MessageScreen {
            title: title.into(),
            paragraphs,
            scroll: 0,
        }
    }
}

impl Screen for MessageScreen {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn on_action(&mut self, action: Action, _ctx: &Ctx) -> Outcome {
        match action {
            Action::Down => self.scroll = self.scroll.saturating_add(1),
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::PageDown => self.scroll = self.scroll.saturating_add(10),
            Action::PageUp => self.scroll = self.scroll.saturating_sub(10),
            Action::Home => self.scroll = 0,
            _ => return Outcome::Close,
        }
        Outcome::Handled
    }

    fn on_mouse(&mut self, mouse: MouseEvent, _ctx: &Ctx) -> Outcome {
        match mouse.kind {
            MouseEventKind::ScrollDown => self.scroll = self.scroll.saturating_add(3),
            MouseEventKind::ScrollUp => self.scroll = self.scroll.saturating_sub(3),
            MouseEventKind::Down(_) => return Outcome::Close,
            _ => {}
        }
        Outcome::Handled
    }

    fn overlay(&self) -> bool {
        true
    }

    fn render(&self, frame: &mut Frame, area: Rect, _ctx: &Ctx, theme: &Theme) {
        let longest = self
            .paragraphs
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0);
        let inner_w = u16::try_from(longest).unwrap_or(u16::MAX).clamp(30, 76);
        let inner_w = inner_w.min(area.width.saturating_sub(4));
        // Lines once wrapped, with a blank line between paragraphs.
        let wrapped: usize = self
            .paragraphs
            .iter()
            .map(|p| {
                p.chars()
                    .count()
                    .div_ceil(usize::from(inner_w.max(1)))
                    .max(1)
                    + 1
            })
            .sum();
        let want_h = u16::try_from(wrapped).unwrap_or(u16::MAX).saturating_add(3);
        let boxed = centered(area, inner_w.saturating_add(4), want_h);
        frame.render_widget(Clear, boxed);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(format!(" {}: Esc closes, ↑↓ scroll ", self.title))
            .border_style(theme.title());
        let mut lines = Vec::new();
        for (i, p) in self.paragraphs.iter().enumerate() {
            if i > 0 {
                lines.push(Line::raw(""));
            }
            lines.push(Line::raw(p.clone()));
        }
        let text = Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((self.scroll, 0));
        frame.render_widget(text, boxed);
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[&table::BOX_SCROLL, &table::BOX_CLOSE]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
