//! The sort menu (`F6`, as htop's): the consumers table's columns shown at
//! this width, in screen order; Enter sorts by the highlighted one.

use crate::interactive::keys::{Action, sort_key_char};
use crate::interactive::keys::{Command, table};
use crate::interactive::rows::consumer_columns::ConsumerColumn;
use crate::interactive::screens::{Ctx, Outcome, Screen};
use crate::interactive::widgets::modal::draw_box;
use crate::interactive::widgets::paint::{put, style_area};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::SortKey;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortMenu {
    pub columns: Vec<ConsumerColumn>,
    pub selected: usize,
    /// The key the table is sorted by now (marked).
    current: SortKey,
}

impl SortMenu {
    pub const ID: &'static str = "sort_menu";

    /// A menu over `columns`, on the one sorted by now.
    pub fn new(columns: Vec<ConsumerColumn>, current: SortKey) -> SortMenu {
        let selected = columns
            .iter()
            .position(|c| c.sort_key() == current)
            .unwrap_or(0);
        SortMenu {
            columns,
            selected,
            current,
        }
    }

    fn line(&self, column: ConsumerColumn) -> String {
        let marker = if column.sort_key() == self.current {
            '•'
        } else {
            ' '
        };
        match sort_key_char(column.sort_key()) {
            Some(key) => format!("{marker} {:<10} {key}", column.header()),
            None => format!("{marker} {}", column.header()),
        }
    }
}

impl Screen for SortMenu {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn on_action(&mut self, action: Action, _ctx: &Ctx) -> Outcome {
        let last = self.columns.len().saturating_sub(1);
        match action {
            Action::SortMenu | Action::Back | Action::Quit => return Outcome::Close,
            Action::Enter => {
                return match self.columns.get(self.selected) {
                    Some(c) => Outcome::CloseAndSort(c.sort_key()),
                    None => Outcome::Close,
                };
            }
            Action::SortBy(key) => return Outcome::CloseAndSort(key),
            Action::Down | Action::SortNext => self.selected = (self.selected + 1).min(last),
            Action::Up | Action::SortPrev => self.selected = self.selected.saturating_sub(1),
            Action::Home | Action::PageUp => self.selected = 0,
            Action::End | Action::PageDown => self.selected = last,
            _ => {}
        }
        Outcome::Handled
    }

    fn overlay(&self) -> bool {
        true
    }

    fn render(&self, frame: &mut Frame, area: Rect, _ctx: &Ctx, theme: &Theme) {
        let rows = u16::try_from(self.columns.len()).unwrap_or(u16::MAX);
        let inner = draw_box(
            frame,
            area,
            (24, rows.saturating_add(2)),
            " Sort by ",
            theme,
        );
        let buf = frame.buffer_mut();
        // Keep the highlighted column in view on short terminals.
        let height = usize::from(inner.height);
        let skip = (self.selected + 1).saturating_sub(height);
        for (i, column) in self.columns.iter().enumerate().skip(skip).take(height) {
            let y = inner.y + u16::try_from(i - skip).unwrap_or(0);
            put(
                buf,
                inner.x,
                y,
                &self.line(*column),
                inner.width,
                theme.plain(),
            );
            if i == self.selected {
                style_area(
                    buf,
                    Rect::new(inner.x, y, inner.width, 1),
                    theme.selected(true),
                );
            }
        }
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[&table::BOX_CHOOSE, &table::BOX_SORT, &table::BOX_CANCEL]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
