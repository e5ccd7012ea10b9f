//! The signal dialog (`F9` or `K`, as htop's `F9`): names the selected
//! process by pid, comm and command line, offers TERM (the default), INT,
//! HUP and KILL; Enter asks the event loop to send it, Esc cancels.
//!
//! The process is keyed by (pid, start time): the event loop re-reads the
//! start time right before sending, so a pid reused since the snapshot is
//! never signalled. This is the only thing in restop that acts on the host.

use crate::interactive::keys::Action;
use crate::interactive::keys::{Command, table};
use crate::interactive::screens::{Ctx, Outcome, Screen};
use crate::interactive::signal::{SignalKind, SignalRequest};
use crate::interactive::widgets::cursor::Cursor;
use crate::interactive::widgets::modal::draw_box;
use crate::interactive::widgets::paint::{put, style_area};
use crate::interactive::widgets::theme::Theme;
use crate::model::OwnerKey;
use crate::model::consumers::Consumer;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;

/// What the dialog says a signal does.
fn what(kind: SignalKind) -> &'static str {
    match kind {
        SignalKind::Term => "ask it to exit (default)",
        SignalKind::Int => "interrupt, as Ctrl-C",
        SignalKind::Hup => "hang up (many daemons reload)",
        SignalKind::Kill => "end it now, no clean-up",
    }
}

/// Why the signal key opens no dialog on `consumer` (`None`: it may).
pub fn refusal(consumer: &Consumer) -> Option<&'static str> {
    match &consumer.owner {
        OwnerKey::Process(key) if key.start_time == 0 => Some(
            "the start time of this process is unknown, so a reused pid cannot be ruled out: \
             nothing sent",
        ),
        OwnerKey::Process(_) => None,
        OwnerKey::Kernel(_) => Some("kernel owners are not processes: nothing to signal"),
        OwnerKey::Unattributed => Some("the unattributed row is not a process: nothing to signal"),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalScreen {
    pub pid: u32,
    pub start_time: u64,
    pub comm: String,
    /// The command line, joined by spaces (empty when unknown).
    pub cmdline: String,
    /// The highlighted signal, an index into `SignalKind::ALL`.
    pub cursor: Cursor,
}

impl SignalScreen {
    pub const ID: &'static str = "signal";

    /// The dialog for `consumer`, on TERM; `None` when it is not a process
    /// that can be told apart from a later one (see [`refusal`]).
    pub(crate) fn for_consumer(consumer: &Consumer) -> Option<SignalScreen> {
        if refusal(consumer).is_some() {
            return None;
        }
        let OwnerKey::Process(key) = &consumer.owner else {
            return None;
        };
        let (comm, cmdline) = match &consumer.process {
            Some(p) if !p.comm.is_empty() => (p.comm.clone(), p.cmdline.join(" ")),
            Some(p) => (consumer.name.clone(), p.cmdline.join(" ")),
            None => (consumer.name.clone(), String::new()),
        };
        Some(SignalScreen {
            pid: key.pid,
            start_time: key.start_time,
            comm,
            cmdline,
            cursor: Cursor::default(),
        })
    }

    pub fn signal(&self) -> SignalKind {
        SignalKind::ALL
            .get(self.cursor.selected)
            .copied()
            .unwrap_or(SignalKind::Term)
    }

    pub fn request(&self) -> SignalRequest {
        SignalRequest {
            pid: self.pid,
            start_time: self.start_time,
            signal: self.signal(),
        }
    }

    fn lines(&self) -> Vec<String> {
        let cmdline = if self.cmdline.is_empty() {
            "(no command line)"
        } else {
            &self.cmdline
        };
        vec![
            format!("pid {}  {}", self.pid, self.comm),
            cmdline.to_string(),
            String::new(),
        ]
    }
}

impl Screen for SignalScreen {
    fn id(&self) -> &'static str {
        Self::ID
    }

    fn on_action(&mut self, action: Action, _ctx: &Ctx) -> Outcome {
        let len = SignalKind::ALL.len();
        match action {
            Action::Back | Action::Quit | Action::Signal => return Outcome::Close,
            Action::Enter => return Outcome::Signal(self.request()),
            Action::Down | Action::Right | Action::NextPart => self.cursor.move_by(1, len),
            Action::Up | Action::Left | Action::PrevPart => self.cursor.move_by(-1, len),
            Action::Home | Action::PageUp => self.cursor.home(),
            Action::End | Action::PageDown => self.cursor.end(len),
            _ => {}
        }
        Outcome::Handled
    }

    fn overlay(&self) -> bool {
        true
    }

    fn render(&self, frame: &mut Frame, area: Rect, _ctx: &Ctx, theme: &Theme) {
        let head = self.lines();
        let rows = u16::try_from(head.len() + SignalKind::ALL.len() + 2).unwrap_or(u16::MAX);
        let width = u16::try_from(self.cmdline.chars().count().clamp(44, 72)).unwrap_or(44);
        let inner = draw_box(
            frame,
            area,
            (width.saturating_add(2), rows.saturating_add(2)),
            " Send a signal ",
            theme,
        );
        let buf = frame.buffer_mut();
        let mut y = inner.y;
        let bottom = inner.y.saturating_add(inner.height);
        for (i, line) in head.iter().enumerate() {
            let style = if i == 0 { theme.bold() } else { theme.plain() };
            if y < bottom {
                put(buf, inner.x, y, line, inner.width, style);
            }
            y = y.saturating_add(1);
        }
        for (i, signal) in SignalKind::ALL.iter().enumerate() {
            if y >= bottom {
                break;
            }
            let marker = if i == self.cursor.selected {
                '▸'
            } else {
                ' '
            };
            let text = format!("{marker} {:<8} {}", signal.name(), what(*signal));
            put(buf, inner.x, y, &text, inner.width, theme.plain());
            if i == self.cursor.selected {
                style_area(
                    buf,
                    Rect::new(inner.x, y, inner.width, 1),
                    theme.selected(true),
                );
            }
            y = y.saturating_add(1);
        }
        y = y.saturating_add(1);
        if y < bottom {
            let help = "Enter sends   Esc cancels";
            put(buf, inner.x, y, help, inner.width, theme.dim());
        }
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[&table::BOX_CHOOSE, &table::BOX_SEND, &table::BOX_CANCEL]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests;
