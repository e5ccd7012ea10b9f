//! `App::update`: every state change, one event at a time.

use super::columns::{consumer_columns, fit_consumer_columns_with};
use super::config::{default_direction, longer_interval, shorter_interval};
use super::cursor::{Cursor, visible_offset};
use super::drill::DrillView;
use super::event::{Command, Event};
use super::keys::{Action, HELP, action_for};
use super::layout::{self, TablePane, contains, contains_y, fit_columns};
use super::object_table::ObjectTable;
use super::state::{App, FilterEdit, Focus, Screen};
use crate::model::OwnerKey;
use crate::model::consumers::SortKey;
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

/// Rows the mouse wheel scrolls per notch.
const WHEEL_ROWS: isize = 3;

impl App {
    /// Applies one event; returns what the event loop must do.
    pub fn update(&mut self, event: Event) -> Vec<Command> {
        let mut commands = Vec::new();
        match event {
            Event::Key(key) => self.on_key(key, &mut commands),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(w, h) => {
                self.size = Rect::new(0, 0, w, h);
                self.settle_cursors();
            }
            Event::Snapshot { result, details } => match result {
                Ok(snapshot) => self.receive(*snapshot, details),
                Err(e) => self.collect_error = Some(e.to_string()),
            },
            Event::Tick(now_ms) => {
                self.now_ms = now_ms;
                if let Some(replay) = self.replay.as_mut() {
                    replay.tick(now_ms);
                }
            }
            Event::Quit => self.quit(&mut commands),
        }
        let wanted = self.wanted_details();
        if wanted != self.requested_details {
            self.requested_details = wanted.clone();
            commands.push(Command::SetDetails(wanted));
        }
        if let Some(index) = self.replay.as_mut().and_then(|r| r.take_request()) {
            commands.push(Command::ShowRecord(index));
        }
        commands
    }

    fn quit(&mut self, commands: &mut Vec<Command>) {
        self.quitting = true;
        commands.push(Command::Quit);
    }

    fn on_key(&mut self, key: KeyEvent, commands: &mut Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            return self.quit(commands);
        }
        if self.filter_edit.is_some() {
            return self.on_filter_key(key);
        }
        let Some(action) = action_for(key) else {
            return;
        };
        if self.help.is_some() {
            return self.on_help_action(action);
        }
        self.on_action(action, commands);
    }

    fn on_help_action(&mut self, action: Action) {
        let max = u16::try_from(HELP.len()).unwrap_or(u16::MAX);
        match action {
            Action::Help | Action::Back | Action::Quit => self.help = None,
            Action::Down => self.help = self.help.map(|s| (s + 1).min(max)),
            Action::Up => self.help = self.help.map(|s| s.saturating_sub(1)),
            Action::Home => self.help = Some(0),
            _ => {}
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent) {
        let Some(edit) = self.filter_edit.as_mut() else {
            return;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter => {
                self.filter_edit = None;
                return;
            }
            KeyCode::Esc => {
                let previous = edit.previous.take();
                self.filter_edit = None;
                self.set_filter_text(previous);
                return;
            }
            KeyCode::Backspace => {
                edit.text.pop();
            }
            KeyCode::Char('u') if ctrl => edit.text.clear(),
            KeyCode::Char(c) if !ctrl => edit.text.push(c),
            _ => return,
        }
        let text = edit.text.clone();
        self.set_filter_text(Some(text));
    }

    /// Applies the text filter as it is typed.
    fn set_filter_text(&mut self, text: Option<String>) {
        let text = text.filter(|t| !t.trim().is_empty());
        if self.filter.text != text {
            self.filter.text = text;
            self.refresh();
        }
    }

    fn on_action(&mut self, action: Action, commands: &mut Vec<Command>) {
        match action {
            Action::Quit => self.quit(commands),
            Action::Help => self.help = Some(0),
            Action::Back => self.back(),
            Action::Up => self.move_selection(-1),
            Action::Down => self.move_selection(1),
            Action::PageUp => self.move_selection(-self.page_rows()),
            Action::PageDown => self.move_selection(self.page_rows()),
            Action::Home => self.move_selection(isize::MIN / 2),
            Action::End => self.move_selection(isize::MAX / 2),
            Action::Enter => self.enter(),
            Action::ErrorPane => self.toggle_pane(Screen::ErrorQps),
            Action::AlertsPane => self.toggle_pane(Screen::Alerts),
            Action::Baseline => self.toggle_baseline(),
            Action::Sparklines => {
                self.sparklines = !self.sparklines;
                self.settle_cursors();
            }
            Action::Filter => {
                self.filter_edit = Some(FilterEdit {
                    text: self.filter.text.clone().unwrap_or_default(),
                    previous: self.filter.text.clone(),
                });
            }
            Action::SortNext => self.step_sort(1),
            Action::SortPrev => self.step_sort(-1),
            Action::Reverse => self.reverse_sort(),
            Action::Freeze => match self.replay.as_mut() {
                // A replay pauses instead: nothing new arrives while paused.
                Some(replay) => replay.toggle_play(self.now_ms),
                None => self.toggle_freeze(),
            },
            // A replay follows the recorded pace, not an interval.
            Action::IntervalLonger | Action::IntervalShorter if self.replay.is_some() => {}
            Action::IntervalLonger => self.set_interval(longer_interval(self.interval), commands),
            Action::IntervalShorter => self.set_interval(shorter_interval(self.interval), commands),
            Action::NextPane | Action::Right => self.next_pane(1, action),
            Action::PrevPane | Action::Left => self.next_pane(-1, action),
            Action::Tab(i) => self.select_tab_index(i),
            Action::StepBack
            | Action::StepForward
            | Action::Slower
            | Action::Faster
            | Action::MinuteBack
            | Action::MinuteForward
            | Action::First
            | Action::Last => self.on_replay_action(action),
        }
    }

    /// The replay keys; they do nothing on live or simulated data.
    fn on_replay_action(&mut self, action: Action) {
        let now = self.now_ms;
        let Some(replay) = self.replay.as_mut() else {
            return;
        };
        match action {
            Action::StepBack => replay.step(-1),
            Action::StepForward => replay.step(1),
            Action::Slower => replay.change_speed(-1, now),
            Action::Faster => replay.change_speed(1, now),
            Action::MinuteBack => replay.seek_by(-60_000, now),
            Action::MinuteForward => replay.seek_by(60_000, now),
            Action::First => replay.seek_start(now),
            Action::Last => replay.seek_end(now),
            _ => {}
        }
    }

    fn set_interval(&mut self, interval: std::time::Duration, commands: &mut Vec<Command>) {
        if interval != self.interval {
            self.interval = interval;
            commands.push(Command::SetInterval(interval));
        }
    }

    fn back(&mut self) {
        if self.screens.pop().is_some() {
            self.settle_cursors();
        } else if self.filter.text.is_some() {
            self.set_filter_text(None);
        }
    }

    fn page_rows(&self) -> isize {
        let h = match self.screens.last() {
            Some(Screen::Drill(_)) => {
                layout::drill_layout(self.frame_layout().body)
                    .table
                    .rows
                    .height
            }
            Some(Screen::ErrorQps | Screen::Alerts) => {
                layout::errors_layout(self.frame_layout().body).rows.height
            }
            None => match self.focus {
                Focus::Devices => self.main_layout().devices.rows.height,
                Focus::Consumers => self.main_layout().consumers.rows.height,
            },
        };
        isize::try_from(h.max(2) - 1).unwrap_or(1)
    }

    fn move_selection(&mut self, delta: isize) {
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => move_table(&mut d.table, delta),
            Some(Screen::ErrorQps) => move_table(&mut self.errors, delta),
            Some(Screen::Alerts) => move_table(&mut self.alerts, delta),
            None => match self.focus {
                Focus::Devices => self.device_cursor.move_by(delta, self.devices.len()),
                Focus::Consumers => {
                    self.consumer_cursor.move_by(delta, self.consumers.len());
                    self.remember_consumer();
                }
            },
        }
        self.settle_cursors();
    }

    fn enter(&mut self) {
        match self.screens.last() {
            None if self.focus == Focus::Consumers => {
                if let Some(owner) = self.selected_consumer().map(|c| c.owner.clone()) {
                    self.open_drill(owner);
                }
            }
            Some(Screen::ErrorQps) => {
                let Some(row) = self.errors.selected() else {
                    return;
                };
                let (Some(owner), id) = (row.owner.clone(), row.id) else {
                    return;
                };
                self.open_drill(owner);
                if let Some(d) = self.drill_mut() {
                    // Land on the broken QP itself.
                    d.table.select_id(id);
                }
                self.settle_cursors();
            }
            Some(Screen::Alerts) => {
                if let Some(owner) = self.alerts.selected().and_then(|r| r.owner.clone()) {
                    self.open_drill(owner);
                }
            }
            _ => {}
        }
    }

    fn open_drill(&mut self, owner: OwnerKey) {
        let view = DrillView::new(owner, &self.filter);
        self.screens.push(Screen::Drill(Box::new(view)));
        self.refresh();
    }

    /// Opens the ERROR-QP or alerts pane (`e`, `a`); the same key again, or
    /// from a screen opened over it, goes back to it.
    fn toggle_pane(&mut self, pane: Screen) {
        if self.screens.last() == Some(&pane) {
            self.screens.pop();
        } else if let Some(i) = self.screens.iter().position(|s| s == &pane) {
            self.screens.truncate(i + 1);
        } else {
            self.screens.push(pane);
        }
        self.settle_cursors();
    }

    fn step_sort(&mut self, step: isize) {
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => d.table.next_sort_column(step),
            Some(Screen::ErrorQps) => self.errors.next_sort_column(step),
            Some(Screen::Alerts) => self.alerts.next_sort_column(step),
            None => {
                let cols = consumer_columns(&self.filter);
                let n = cols.len() as isize;
                let current = cols.iter().position(|c| c.sort_key() == self.sort);
                let next = match current {
                    Some(i) => (i as isize + step).rem_euclid(n) as usize,
                    None => 0,
                };
                if let Some(c) = cols.get(next) {
                    self.sort = c.sort_key();
                    self.direction = default_direction(self.sort);
                }
                self.resort_consumers();
            }
        }
        self.settle_cursors();
    }

    fn reverse_sort(&mut self) {
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => d.table.reverse(),
            Some(Screen::ErrorQps) => self.errors.reverse(),
            Some(Screen::Alerts) => self.alerts.reverse(),
            None => {
                self.direction = self.direction.reversed();
                self.resort_consumers();
            }
        }
        self.settle_cursors();
    }

    /// Sorts the consumers by `key`; choosing the sorted column again reverses it.
    fn sort_consumers_by(&mut self, key: SortKey) {
        if self.sort == key {
            self.direction = self.direction.reversed();
        } else {
            self.sort = key;
            self.direction = default_direction(key);
        }
        self.resort_consumers();
    }

    fn next_pane(&mut self, step: isize, action: Action) {
        let snapshot = self.shown.as_ref();
        let filter = &self.filter;
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => d.step_tab(step, snapshot, filter),
            Some(Screen::ErrorQps | Screen::Alerts) => {}
            None => {
                if matches!(action, Action::NextPane | Action::PrevPane) {
                    self.focus = match self.focus {
                        Focus::Devices => Focus::Consumers,
                        Focus::Consumers => Focus::Devices,
                    };
                }
            }
        }
        self.settle_cursors();
    }

    fn select_tab_index(&mut self, i: usize) {
        let snapshot = self.shown.as_ref();
        let filter = &self.filter;
        if let Some(Screen::Drill(d)) = self.screens.last_mut()
            && let Some(t) = d.tabs.get(i).copied()
        {
            d.select_tab(t, snapshot, filter);
        }
        self.settle_cursors();
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if self.help.is_some() {
            if let MouseEventKind::Down(_) = mouse.kind {
                self.help = None;
            }
            return;
        }
        if self.filter_edit.is_some() {
            return;
        }
        let (x, y) = (mouse.column, mouse.row);
        match mouse.kind {
            MouseEventKind::ScrollDown => self.wheel(x, y, WHEEL_ROWS),
            MouseEventKind::ScrollUp => self.wheel(x, y, -WHEEL_ROWS),
            MouseEventKind::Down(MouseButton::Left) => self.click(x, y),
            _ => {}
        }
    }

    fn wheel(&mut self, x: u16, y: u16, delta: isize) {
        let body = self.frame_layout().body;
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => {
                let pane = layout::drill_layout(body).table;
                let len = d.table.rows.len();
                d.table
                    .cursor
                    .scroll_by(delta, len, usize::from(pane.rows.height));
                d.table.remember_selection();
            }
            Some(Screen::ErrorQps) => {
                let pane = layout::errors_layout(body);
                let len = self.errors.rows.len();
                self.errors
                    .cursor
                    .scroll_by(delta, len, usize::from(pane.rows.height));
                self.errors.remember_selection();
            }
            Some(Screen::Alerts) => {
                let pane = layout::errors_layout(body);
                let len = self.alerts.rows.len();
                self.alerts
                    .cursor
                    .scroll_by(delta, len, usize::from(pane.rows.height));
                self.alerts.remember_selection();
            }
            None => {
                let main = self.main_layout();
                if contains(main.devices.area(), x, y) {
                    self.device_cursor.scroll_by(
                        delta,
                        self.devices.len(),
                        usize::from(main.devices.rows.height),
                    );
                } else {
                    self.consumer_cursor.scroll_by(
                        delta,
                        self.consumers.len(),
                        usize::from(main.consumers.rows.height),
                    );
                    self.remember_consumer();
                }
            }
        }
    }

    fn click(&mut self, x: u16, y: u16) {
        let body = self.frame_layout().body;
        if !contains(body, x, y) {
            return;
        }
        match self.screens.last_mut() {
            Some(Screen::Drill(d)) => {
                let l = layout::drill_layout(body);
                if contains_y(l.tabs, y) {
                    let labels: Vec<String> = d
                        .tabs
                        .iter()
                        .map(|t| tab_label(*t, d.consumer.as_ref().map(|c| c.counts.get(*t))))
                        .collect();
                    let hit = layout::tab_spans(&labels, l.tabs)
                        .iter()
                        .position(|(tx, w)| x >= *tx && x < tx.saturating_add(*w));
                    if let Some(i) = hit {
                        self.select_tab_index(i);
                    }
                } else {
                    click_table(&mut d.table, &l.table, x, y);
                }
            }
            Some(Screen::ErrorQps) => {
                let pane = layout::errors_layout(body);
                click_table(&mut self.errors, &pane, x, y);
            }
            Some(Screen::Alerts) => {
                let pane = layout::errors_layout(body);
                click_table(&mut self.alerts, &pane, x, y);
            }
            None => self.click_main(x, y),
        }
        self.settle_cursors();
    }

    fn click_main(&mut self, x: u16, y: u16) {
        let main = self.main_layout();
        if contains(main.devices.area(), x, y) {
            self.focus = Focus::Devices;
            if let Some(i) = main.devices.row_at(y) {
                let len = self.devices.len();
                let offset = visible_offset(
                    self.device_cursor,
                    len,
                    usize::from(main.devices.rows.height),
                );
                if offset + i < len {
                    self.device_cursor.selected = offset + i;
                }
            }
            return;
        }
        let pane = main.consumers;
        if !contains(pane.area(), x, y) {
            return;
        }
        self.focus = Focus::Consumers;
        if contains_y(pane.header, y) {
            let placed =
                fit_consumer_columns_with(&self.filter, pane.header.width, self.sparklines);
            let rel = x.saturating_sub(pane.header.x);
            if let Some(p) = placed.iter().find(|p| rel >= p.x && rel < p.x + p.width) {
                self.sort_consumers_by(p.column.sort_key());
            }
        } else if let Some(i) = pane.row_at(y) {
            let len = self.consumers.len();
            let offset = visible_offset(self.consumer_cursor, len, usize::from(pane.rows.height));
            if offset + i < len {
                self.consumer_cursor = Cursor {
                    selected: offset + i,
                    offset,
                };
                self.remember_consumer();
            }
        }
    }
}

/// Label of a drill-down tab: type and how many objects the owner holds.
pub fn tab_label(t: crate::model::ResourceType, count: Option<u64>) -> String {
    format!(" {} {} ", t.label(), count.unwrap_or(0))
}

fn move_table(table: &mut ObjectTable, delta: isize) {
    let len = table.rows.len();
    table.cursor.move_by(delta, len);
    table.remember_selection();
}

/// Places a generic table's columns the same way the renderer does.
pub fn table_columns(table: &ObjectTable, width: u16) -> Vec<(u16, u16)> {
    let widths: Vec<u16> = table.columns.iter().map(|c| c.width).collect();
    // Natural widths: a stretched middle column would push numbers far apart.
    fit_columns(&widths, None, width)
}

fn click_table(table: &mut ObjectTable, pane: &TablePane, x: u16, y: u16) {
    if contains_y(pane.header, y) {
        let rel = x.saturating_sub(pane.header.x);
        let hit = table_columns(table, pane.header.width)
            .iter()
            .position(|(cx, w)| rel >= *cx && rel < cx.saturating_add(*w));
        if let Some(col) = hit {
            table.sort_by(col);
        }
    } else if let Some(i) = pane.row_at(y) {
        let len = table.rows.len();
        let offset = visible_offset(table.cursor, len, usize::from(pane.rows.height));
        if offset + i < len {
            table.cursor = Cursor {
                selected: offset + i,
                offset,
            };
            table.remember_selection();
        }
    }
}
