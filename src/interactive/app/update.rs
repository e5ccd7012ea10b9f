//! `App::update`: every state change, one event at a time.

use crate::interactive::app::state::{App, FilterEdit, ctx};
use crate::interactive::config::{longer_interval, shorter_interval};
use crate::interactive::event::{Command, Event};
use crate::interactive::keys::{Action, Here, resolve};
use crate::interactive::screens::alerts::AlertsScreen;
use crate::interactive::screens::error_qps::ErrorQpScreen;
use crate::interactive::screens::help::HelpScreen;
use crate::interactive::screens::message::MessageScreen;
use crate::interactive::screens::port_counters::PortCountersScreen;
use crate::interactive::screens::signal::{SignalScreen, refusal};
use crate::interactive::screens::sort_menu::SortMenu;
use crate::interactive::screens::{Outcome, Screen};
use crate::model::SourceKind;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent};
use ratatui::layout::Rect;

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
                Err(e) => self.collection_failed(e.to_string()),
            },
            Event::Tick(now_ms) => {
                self.now_ms = now_ms;
                if let Some(path) = &self.config.record {
                    // Read once per tick, never while drawing.
                    self.record_bytes = std::fs::metadata(path).ok().map(|m| m.len());
                }
                if let Some(replay) = self.replay.as_mut() {
                    replay.tick(now_ms);
                }
            }
            Event::Quit => self.quit(&mut commands),
            Event::SignalResult { request, outcome } => {
                self.status = Some(outcome.message(&request));
            }
            Event::Fleet(_) => {}
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
        self.status = None;
        if self.filter_edit.is_some() {
            return self.on_filter_key(key);
        }
        let Some((command, action)) = resolve(key) else {
            return;
        };
        let here = Here {
            main_screen: self.on_main(),
            replay: self.replay.is_some(),
        };
        let ctx = ctx!(self);
        let top: &mut dyn Screen = match self.screens.last_mut() {
            Some(s) => s.as_mut(),
            None => &mut self.main,
        };
        match top.on_action(action, &ctx) {
            // Where the key table says the key means nothing, it does nothing.
            Outcome::Pass if !command.applies.holds(here) => {}
            Outcome::Pass => self.on_action(action, commands),
            outcome => self.follow(outcome, commands),
        }
    }

    /// Does what the top screen asked for with the action or mouse event it took.
    fn follow(&mut self, outcome: Outcome, commands: &mut Vec<Command>) {
        match outcome {
            Outcome::Pass => {}
            Outcome::Handled => self.settle_cursors(),
            Outcome::Close => self.back(),
            Outcome::CloseAndSort(key) => {
                self.screens.pop();
                self.main.sort_to(key);
                self.settle_cursors();
            }
            Outcome::Signal(request) => {
                self.back();
                self.status = Some(format!(
                    "sending {} to pid {}…",
                    request.signal.name(),
                    request.pid
                ));
                commands.push(Command::Signal(request));
            }
            Outcome::Open(screen) => {
                self.settle_cursors();
                self.open(screen);
            }
            Outcome::Counters(device, port) => {
                self.settle_cursors();
                self.open(Box::new(PortCountersScreen::new(device, port)));
            }
            // Why the selected row leads nowhere, until the next key.
            Outcome::Status(why) => {
                self.settle_cursors();
                self.status = Some(why);
            }
            Outcome::FullText(title, paragraphs) => self.show_text(title, paragraphs),
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
            Action::Help => self.open(Box::new(HelpScreen::default())),
            Action::Back => self.back(),
            Action::ErrorQps => self.toggle_screen(Box::new(ErrorQpScreen::default())),
            Action::Alerts => self.toggle_screen(Box::new(AlertsScreen::default())),
            Action::Baseline => self.toggle_baseline(),
            Action::FullText => self.show_full_text(),
            Action::Sparklines => {
                self.sparklines = !self.sparklines;
                self.settle_cursors();
            }
            Action::Group => {
                let ctx = ctx!(self);
                self.main.cycle_grouping(&ctx);
                self.settle_cursors();
            }
            Action::Filter => {
                self.filter_edit = Some(FilterEdit {
                    text: self.filter.text.clone().unwrap_or_default(),
                    previous: self.filter.text.clone(),
                });
            }
            Action::SortMenu => {
                let columns = self.main.visible_columns(&self.ctx());
                let menu = SortMenu::new(columns, self.main.sort);
                self.open(Box::new(menu));
            }
            Action::SortBy(key) => {
                self.main.sort_by(key);
                self.settle_cursors();
            }
            Action::Signal => self.open_signal_dialog(),
            Action::Freeze => match self.replay.as_mut() {
                // A replay pauses instead: nothing new arrives while paused.
                Some(replay) => replay.toggle_play(self.now_ms),
                None => self.toggle_freeze(),
            },
            Action::IntervalLonger => self.set_interval(longer_interval(self.interval), commands),
            Action::IntervalShorter => self.set_interval(shorter_interval(self.interval), commands),
            // What the top screen did not take means nothing there.
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End
            | Action::Enter
            | Action::Counters
            | Action::SortNext
            | Action::SortPrev
            | Action::Reverse
            | Action::NextPart
            | Action::PrevPart
            | Action::Right
            | Action::Left
            | Action::Vfs
            | Action::Tab(_) => {}
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

    /// `F9`/`K`: the signal dialog for the selected process, or why not.
    fn open_signal_dialog(&mut self) {
        if self.config.read_only {
            self.status = Some("read-only (--read-only): no signals are sent".to_string());
            return;
        }
        if self.source != SourceKind::Live {
            self.status =
                Some("pids of demo/replay data are not this host's: no signal is sent".to_string());
            return;
        }
        let Some(consumer) = self.page().selected_process() else {
            self.status = Some("select a process in the consumers table to signal it".to_string());
            return;
        };
        match SignalScreen::for_consumer(consumer) {
            Some(dialog) => self.open(Box::new(dialog)),
            None => self.status = refusal(consumer).map(str::to_string),
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

    /// `w` where the top screen has nothing selected to show: every header
    /// warning and alert, whole.
    fn show_full_text(&mut self) {
        let mut texts: Vec<String> = self
            .shown_warnings()
            .into_iter()
            .map(|w| format!("⚠ {}", w.message))
            .collect();
        texts.extend(
            self.insights
                .alerts
                .iter()
                .map(|a| format!("⚑ {}", a.message)),
        );
        self.show_text("Warnings and alerts".to_string(), texts);
    }

    fn show_text(&mut self, title: String, paragraphs: Vec<String>) {
        let paragraphs = if paragraphs.is_empty() {
            vec!["no warning or alert to show".to_string()]
        } else {
            paragraphs
        };
        self.open(Box::new(MessageScreen::new(title, paragraphs)));
    }

    /// `+`/`-`: the new interval, said in the footer until the next key
    /// (the header's `every 2 s` is the first thing a narrow one drops).
    fn set_interval(&mut self, interval: std::time::Duration, commands: &mut Vec<Command>) {
        let unchanged = interval == self.interval;
        if !unchanged {
            self.interval = interval;
            commands.push(Command::SetInterval(interval));
        }
        let limit = if unchanged { " (the limit)" } else { "" };
        self.status = Some(format!(
            "collecting every {}{limit}",
            crate::units::duration(interval)
        ));
    }

    fn back(&mut self) {
        if self.screens.pop().is_some() {
            self.settle_cursors();
        } else if self.filter.text.is_some() {
            self.set_filter_text(None);
        }
    }

    /// Opens the ERROR-QP or alerts screen (`e`, `a`); the same key again, or
    /// from a screen opened over it, goes back to it.
    fn toggle_screen(&mut self, screen: Box<dyn Screen>) {
        let id = screen.id();
        if self.screens.last().is_some_and(|s| s.id() == id) {
            self.screens.pop();
        } else if let Some(i) = self.screens.iter().position(|s| s.id() == id) {
            self.screens.truncate(i + 1);
        } else {
            self.open(screen);
        }
        self.settle_cursors();
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        let ctx = ctx!(self);
        let top: &mut dyn Screen = match self.screens.last_mut() {
            Some(s) => s.as_mut(),
            None => &mut self.main,
        };
        // While the filter is typed only an overlay (modal) takes the mouse.
        if self.filter_edit.is_some() && !top.overlay() {
            return;
        }
        let outcome = top.on_mouse(mouse, &ctx);
        self.follow(outcome, &mut Vec::new());
    }
}
