//! What keys do, from one table (`table.rs`): the dispatch (`resolve`),
//! the help box (`help_rows`), the footer's words (each screen names the
//! rows it offers; `Hint`), the man page's KEYS section and the README's
//! key list (`docs.rs`) are all read from it, so a key is written once.
//!
//! Nothing here knows where the data comes from: a screen of another data
//! source offers the same rows, or rows of its own, from the same types.

pub(crate) mod docs;
pub(crate) mod fleet;
pub(crate) mod table;

use crate::model::consumers::SortKey;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A key as the table names it: its code, and whether Ctrl is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chord {
    pub code: KeyCode,
    pub ctrl: bool,
}

/// A character key (any modifier but Ctrl).
pub(crate) const fn key(c: char) -> Chord {
    Chord {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

/// A character key with Ctrl.
pub(crate) const fn ctrl(c: char) -> Chord {
    Chord {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

/// A named key (Esc, F1, the arrows, ...).
pub(crate) const fn code(code: KeyCode) -> Chord {
    Chord { code, ctrl: false }
}

/// Where a row's keys do something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applies {
    /// On every screen (each screen answers in its own way, or not at all).
    Everywhere,
    /// On the main screen only: the consumers' sort keys, grouping.
    MainScreen,
    /// While collecting, not in a replay (which keeps the recorded pace).
    Collecting,
    /// In a replay only.
    Replay,
    /// In an open box (help, message, sort menu, signal dialog).
    Box,
}

/// Where the view is, as far as the key table cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Here {
    /// The main screen is on top.
    pub main_screen: bool,
    /// A recording is played.
    pub replay: bool,
}

impl Applies {
    pub fn holds(self, here: Here) -> bool {
        match self {
            Applies::Everywhere | Applies::Box => true,
            Applies::MainScreen => here.main_screen,
            Applies::Collecting => !here.replay,
            Applies::Replay => here.replay,
        }
    }
}

/// A row's word in the footer: the key as written there, the word after
/// it, and its place (lower comes first; the last are dropped first on a
/// narrow terminal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hint {
    pub key: &'static str,
    pub word: &'static str,
    pub priority: u8,
}

/// One row of the key table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// The keys and the action each asks for.
    pub chords: &'static [(Chord, Action)],
    /// The keys as the help box, the man page and the README write them.
    pub label: &'static str,
    /// The row's line in the help box; `None` for a footer word only.
    pub help: Option<&'static str>,
    pub applies: Applies,
    pub hint: Option<Hint>,
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
    ErrorQps,
    /// `a`: the alerts panel.
    Alerts,
    /// `c`: the counters screen of the selected device's port.
    Counters,
    /// `b`: mark the baseline, or clear it.
    Baseline,
    /// `w`: the full text of the selected alert, or of the header's warnings.
    FullText,
    /// `t`: sparklines on or off.
    Sparklines,
    /// `o`: group the consumers by process, container or pod (cycles).
    Group,
    /// `v`: show or fold the VFs of the selected PF in the devices pane.
    Vfs,
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
    /// Tab: the other half of the main screen, the next tab in a drill-down.
    NextPart,
    PrevPart,
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

/// The row and action of a key in normal (not text-editing) mode: the
/// first row with a chord for it. A chord with Ctrl is looked for first
/// when Ctrl is held; other modifiers do not change a key.
pub(crate) fn resolve(key: KeyEvent) -> Option<(&'static Command, Action)> {
    resolve_in(table::COMMANDS, key)
}

/// As [`resolve`], in another view's rows (the fleet's, `fleet.rs`).
pub(crate) fn resolve_in(
    commands: &[&'static Command],
    key: KeyEvent,
) -> Option<(&'static Command, Action)> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let find = |want_ctrl: bool| {
        commands.iter().find_map(|command| {
            command
                .chords
                .iter()
                .find(|(chord, _)| chord.code == key.code && chord.ctrl == want_ctrl)
                .map(|(_, action)| (*command, *action))
        })
    };
    if ctrl && let Some(found) = find(true) {
        return Some(found);
    }
    find(false)
}

/// The direct sort key of `key`, if it has one (`P`, `Q`, `M`, ...).
pub(crate) fn sort_key_char(key: SortKey) -> Option<char> {
    table::SORT_BY
        .chords
        .iter()
        .find(|(_, action)| *action == Action::SortBy(key))
        .and_then(|(chord, _)| match chord.code {
            KeyCode::Char(c) => Some(c),
            _ => None,
        })
}

/// The help box's lines: every documented row's keys and what they do.
pub(crate) fn help_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    table::COMMANDS
        .iter()
        .filter_map(|c| c.help.map(|help| (c.label, help)))
}

/// The footer's keys and words for `commands`, in footer order.
pub(crate) fn footer_hints(commands: &[&'static Command]) -> Vec<Hint> {
    let mut hints: Vec<Hint> = commands.iter().filter_map(|c| c.hint).collect();
    // Stable: rows of the same place keep the order they were named in.
    hints.sort_by_key(|h| h.priority);
    hints
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ResourceType;

    /// The action for a key in normal (not text-editing) mode.
    fn action_for(key: KeyEvent) -> Option<Action> {
        resolve(key).map(|(_, action)| action)
    }

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
        assert_eq!(
            action_for(KeyEvent::new(KeyCode::Char('b'), KeyModifiers::CONTROL)),
            Some(Action::PageUp)
        );
        assert_eq!(
            action_for(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL)),
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
        assert_eq!(sort_key_char(SortKey::MrBytes), Some('B'));
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(action_for(k), None);
    }

    #[test]
    fn a_chord_means_one_action_in_every_row() {
        let mut seen: Vec<(Chord, Action)> = Vec::new();
        for command in table::COMMANDS {
            for (chord, action) in command.chords {
                if let Some((_, first)) = seen.iter().find(|(c, _)| c == chord) {
                    assert_eq!(first, action, "{chord:?} in {}", command.label);
                } else {
                    seen.push((*chord, *action));
                }
            }
        }
    }

    #[test]
    fn help_fits_an_80_column_terminal() {
        for (keys, what) in help_rows() {
            assert!(keys.chars().count() <= 15, "{keys}");
            assert!(what.chars().count() <= 58, "{what}");
        }
    }

    #[test]
    fn footer_words_are_in_priority_order() {
        let hints = footer_hints(&[&table::REVERSE, &table::QUIT, &table::BACK]);
        let keys: Vec<&str> = hints.iter().map(|h| h.key).collect();
        assert_eq!(keys, ["q", "Esc", "r"]);
    }
}
