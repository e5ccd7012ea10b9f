//! Keys to actions, and the key list the help overlay shows.

use crate::model::ResourceType;
use crate::model::consumers::SortKey;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Direct sort keys of the consumers table, as htop's `P` `M` `T`.
pub const SORT_KEYS: [(char, SortKey); 8] = [
    ('P', SortKey::Pid),
    ('U', SortKey::User),
    ('N', SortKey::Name),
    ('Q', SortKey::Count(ResourceType::Qp)),
    ('C', SortKey::Count(ResourceType::Cq)),
    ('M', SortKey::Count(ResourceType::Mr)),
    ('B', SortKey::MrBytes),
    ('E', SortKey::ErrQps),
];

/// The direct sort key of `key`, if it has one.
pub fn sort_key_char(key: SortKey) -> Option<char> {
    SORT_KEYS.iter().find(|(_, k)| *k == key).map(|(c, _)| *c)
}

/// What a key asks for, independent of the screen it is pressed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    ErrorPane,
    /// `a`: the alerts panel.
    AlertsPane,
    /// `c`: the counters view of the selected device's port.
    Counters,
    /// `b`: mark the baseline, or clear it.
    Baseline,
    /// `w`: the full text of the selected alert, or of the header's warnings.
    FullText,
    /// `t`: sparklines on or off.
    Sparklines,
    /// `o`: group the consumers by process, container or pod (cycles).
    Group,
    Filter,
    SortNext,
    SortPrev,
    /// `F6`: the sort menu.
    SortMenu,
    /// `F9`, `K`: send a signal to the selected process (a dialog confirms).
    Signal,
    /// `P`, `Q`, `M`, ...: sort the consumers by this column (again: reverse).
    SortBy(SortKey),
    Reverse,
    Freeze,
    IntervalLonger,
    IntervalShorter,
    /// Tab: the other pane on the main screen, the next tab in a drill-down.
    NextPane,
    PrevPane,
    Left,
    Right,
    /// `1`..`7`: a drill-down tab by number.
    Tab(usize),
    /// Replay: `,` `.` one snapshot back / forward.
    StepBack,
    StepForward,
    /// Replay: `[` `]` slower / faster.
    Slower,
    Faster,
    /// Replay: `{` `}` one minute back / forward.
    MinuteBack,
    MinuteForward,
    /// Replay: `^` `$` first / last snapshot.
    First,
    Last,
}

/// The action for a key in normal (not text-editing) mode.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let action = match key.code {
        KeyCode::Char('c') if ctrl => Action::Quit,
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('?') | KeyCode::F(1) => Action::Help,
        KeyCode::Esc => Action::Back,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        KeyCode::Char('b') if ctrl => Action::PageUp,
        KeyCode::Char('f') if ctrl => Action::PageDown,
        KeyCode::Home | KeyCode::Char('g') => Action::Home,
        KeyCode::End | KeyCode::Char('G') => Action::End,
        KeyCode::Enter => Action::Enter,
        KeyCode::Char('e') => Action::ErrorPane,
        KeyCode::Char('a') => Action::AlertsPane,
        KeyCode::Char('c') => Action::Counters,
        KeyCode::Char('b') => Action::Baseline,
        KeyCode::Char('t') => Action::Sparklines,
        KeyCode::Char('o') => Action::Group,
        KeyCode::Char('w') => Action::FullText,
        KeyCode::Char('/') => Action::Filter,
        KeyCode::Char('s') | KeyCode::Char('>') => Action::SortNext,
        KeyCode::Char('<') => Action::SortPrev,
        KeyCode::F(6) => Action::SortMenu,
        KeyCode::F(9) | KeyCode::Char('K') => Action::Signal,
        KeyCode::Char(c) if SORT_KEYS.iter().any(|(k, _)| *k == c) => {
            let key = SORT_KEYS
                .iter()
                .find(|(k, _)| *k == c)
                .map(|(_, key)| *key)?;
            Action::SortBy(key)
        }
        KeyCode::Char('r') => Action::Reverse,
        KeyCode::Char(' ') | KeyCode::Char('f') => Action::Freeze,
        KeyCode::Char('+') | KeyCode::Char('=') => Action::IntervalLonger,
        KeyCode::Char('-') => Action::IntervalShorter,
        KeyCode::Tab => Action::NextPane,
        KeyCode::BackTab => Action::PrevPane,
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::Char(c @ '1'..='7') => Action::Tab(usize::from(c as u8 - b'1')),
        KeyCode::Char(',') => Action::StepBack,
        KeyCode::Char('.') => Action::StepForward,
        KeyCode::Char('[') => Action::Slower,
        KeyCode::Char(']') => Action::Faster,
        KeyCode::Char('{') => Action::MinuteBack,
        KeyCode::Char('}') => Action::MinuteForward,
        KeyCode::Char('^') => Action::First,
        KeyCode::Char('$') => Action::Last,
        _ => return None,
    };
    Some(action)
}

/// Every key, as the help overlay and the user guide list them.
pub const HELP: &[(&str, &str)] = &[
    ("q  Ctrl-C", "quit"),
    ("?  F1", "this help (Esc or ? closes it)"),
    (
        "Esc",
        "back: leave the drill-down or ERROR pane; clear filter",
    ),
    ("↑ ↓  j k", "move the selection"),
    ("PgUp PgDn", "move a page (also Ctrl-B / Ctrl-F)"),
    ("Home End  g G", "first / last row"),
    (
        "Enter",
        "open: a process's objects, a device's view, a QP's owner",
    ),
    ("e", "ERROR-QP pane: every QP in ERR/SQE, oldest first"),
    ("a", "alerts: leak suspects, lingering ERR QPs, warnings"),
    (
        "c",
        "NIC counters of the port of the selected device, QP, alert",
    ),
    (
        "b",
        "mark a baseline: counts show the change since; b clears",
    ),
    ("t", "sparklines of counts over the trend window"),
    (
        "o",
        "group consumers: process → container → pod (Enter lists)",
    ),
    (
        "w",
        "full text of the selected alert, or the header's warnings",
    ),
    (
        "/",
        "filter: name, pid, user, container, device (Enter/Esc)",
    ),
    ("s  >", "sort by the next column shown"),
    ("<", "sort by the previous column shown"),
    (
        "P U N Q C M B E",
        "sort by PID, USER, NAME, QP, CQ, MR, MR-BYTES, ERR",
    ),
    ("F6", "sort menu: choose the column to sort by"),
    ("r", "reverse the sort order"),
    (
        "F9  K",
        "signal the selected process (asks first; not --read-only)",
    ),
    (
        "Space  f",
        "freeze / resume the display (collection goes on)",
    ),
    ("+  -", "longer / shorter refresh interval"),
    ("Tab", "main screen: switch between devices and consumers"),
    ("Tab ← →  1-7", "drill-down: switch object type"),
    ("mouse wheel", "scroll the pane under the pointer"),
    (
        "click",
        "select a row; a column header sorts (again: reverses)",
    ),
    ("Space (replay)", "pause / play the recording"),
    (",  .", "replay: one snapshot back / forward (pauses)"),
    ("[  ]", "replay: slower / faster (¼× … 64×)"),
    ("{  }", "replay: one minute back / forward"),
    ("^  $", "replay: first / last snapshot"),
];

#[cfg(test)]
mod help_tests {
    use super::HELP;

    #[test]
    fn help_fits_an_80_column_terminal() {
        for (keys, what) in HELP {
            assert!(keys.chars().count() <= 15, "{keys}");
            assert!(what.chars().count() <= 58, "{what}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn top_and_htop_habits() {
        assert_eq!(action_for(key(KeyCode::Char('q'))), Some(Action::Quit));
        assert_eq!(
            action_for(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(action_for(key(KeyCode::F(1))), Some(Action::Help));
        assert_eq!(action_for(key(KeyCode::Char(' '))), Some(Action::Freeze));
        assert_eq!(action_for(key(KeyCode::Char('>'))), Some(Action::SortNext));
        assert_eq!(action_for(key(KeyCode::Char('3'))), Some(Action::Tab(2)));
        assert_eq!(action_for(key(KeyCode::Char('x'))), None);
        assert_eq!(action_for(key(KeyCode::F(6))), Some(Action::SortMenu));
        assert_eq!(action_for(key(KeyCode::F(9))), Some(Action::Signal));
        assert_eq!(action_for(key(KeyCode::Char('K'))), Some(Action::Signal));
        assert_eq!(action_for(key(KeyCode::Char('k'))), Some(Action::Up));
        assert_eq!(action_for(key(KeyCode::Char('o'))), Some(Action::Group));
        assert_eq!(action_for(key(KeyCode::Char('c'))), Some(Action::Counters));
        assert_eq!(
            action_for(key(KeyCode::Char('M'))),
            Some(Action::SortBy(SortKey::Count(ResourceType::Mr)))
        );
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(action_for(k), None);
    }
}
