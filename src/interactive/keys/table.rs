//! The one key table: every key of the interactive view, what it does,
//! where it applies, its line in the help box (and so in the man page's
//! KEYS section and the README's key list) and its word in the footer.
//!
//! Rows come in help order. Rows without help text only name a key in the
//! footer with another word ("⏎ details" on the main screen, "⏎ owner" on
//! the ERROR-QP screen, the boxes' own keys); their chords are the same as
//! the row that documents the key, so a chord always means one action
//! (`keys::tests` checks it).

use super::{Action, Applies, Chord, Command, Hint, code, ctrl, key};
use crate::model::ResourceType;
use crate::model::consumers::SortKey;
use crossterm::event::KeyCode;

pub(super) const fn hint(key: &'static str, word: &'static str, priority: u8) -> Option<Hint> {
    Some(Hint {
        key,
        word,
        priority,
    })
}

pub(super) const fn row(
    chords: &'static [(Chord, Action)],
    label: &'static str,
    help: &'static str,
    applies: Applies,
    hint: Option<Hint>,
) -> Command {
    Command {
        chords,
        label,
        help: Some(help),
        applies,
        hint,
    }
}

/// A footer word for keys a documented row already binds.
pub(super) const fn footer(
    chords: &'static [(Chord, Action)],
    applies: Applies,
    hint: Option<Hint>,
) -> Command {
    Command {
        chords,
        label: "",
        help: None,
        applies,
        hint,
    }
}

pub(crate) const QUIT: Command = row(
    &[(ctrl('c'), Action::Quit), (key('q'), Action::Quit)],
    "q  Ctrl-C",
    "quit",
    Applies::Everywhere,
    hint("q", " quit ", 10),
);
pub(crate) const HELP: Command = row(
    &[
        (key('?'), Action::Help),
        (code(KeyCode::F(1)), Action::Help),
    ],
    "?  F1",
    "this help (Esc or ? closes it)",
    Applies::Everywhere,
    hint("?", " help ", 20),
);
pub(crate) const BACK: Command = row(
    &[(code(KeyCode::Esc), Action::Back)],
    "Esc",
    "back: leave the drill-down or ERROR pane; clear filter",
    Applies::Everywhere,
    hint("Esc", " back ", 40),
);
pub(crate) const MOVE: Command = row(
    &[
        (code(KeyCode::Up), Action::Up),
        (key('k'), Action::Up),
        (code(KeyCode::Down), Action::Down),
        (key('j'), Action::Down),
    ],
    "↑ ↓  j k",
    "move the selection",
    Applies::Everywhere,
    None,
);
pub(crate) const PAGE: Command = row(
    &[
        (code(KeyCode::PageUp), Action::PageUp),
        (ctrl('b'), Action::PageUp),
        (code(KeyCode::PageDown), Action::PageDown),
        (ctrl('f'), Action::PageDown),
    ],
    "PgUp PgDn",
    "move a page (also Ctrl-B / Ctrl-F)",
    Applies::Everywhere,
    None,
);
pub(crate) const ENDS: Command = row(
    &[
        (code(KeyCode::Home), Action::Home),
        (key('g'), Action::Home),
        (code(KeyCode::End), Action::End),
        (key('G'), Action::End),
    ],
    "Home End  g G",
    "first / last row",
    Applies::Everywhere,
    None,
);
const ENTER: &[(Chord, Action)] = &[(code(KeyCode::Enter), Action::Enter)];
pub(crate) const OPEN: Command = row(
    ENTER,
    "Enter",
    "open: a process's objects, a device's view, a QP's owner",
    Applies::Everywhere,
    hint("⏎", " open ", 41),
);
pub(crate) const ERRORS: Command = row(
    &[(key('e'), Action::ErrorQps)],
    "e",
    "ERROR-QP pane: every QP in ERR/SQE, oldest first",
    Applies::Everywhere,
    hint("e", " errors ", 50),
);
pub(crate) const ALERTS: Command = row(
    &[(key('a'), Action::Alerts)],
    "a",
    "problems: what is wrong, most severe first",
    Applies::Everywhere,
    hint("a", " problems ", 50),
);
const C: &[(Chord, Action)] = &[(key('c'), Action::Counters)];
pub(crate) const COUNTERS: Command = row(
    C,
    "c",
    "NIC counters of the port of the selected device, QP, alert",
    Applies::Everywhere,
    hint("c", " counters ", 44),
);
pub(crate) const BASELINE: Command = row(
    &[(key('b'), Action::Baseline)],
    "b",
    "mark a baseline: counts show the change since; b clears",
    Applies::Everywhere,
    hint("b", " baseline ", 82),
);
pub(crate) const SPARKLINES: Command = row(
    &[(key('t'), Action::Sparklines)],
    "t",
    "sparklines of counts over the trend window",
    Applies::Everywhere,
    hint("t", " trends ", 81),
);
const O: &[(Chord, Action)] = &[(key('o'), Action::Group)];
pub(crate) const GROUP: Command = row(
    O,
    "o",
    "group consumers: process → container → pod (Enter lists)",
    Applies::MainScreen,
    None,
);
pub(crate) const VFS: Command = row(
    &[(key('v'), Action::Vfs)],
    "v",
    "devices pane: show / fold the VFs of the selected PF",
    Applies::MainScreen,
    None,
);
pub(crate) const FULL_TEXT: Command = row(
    &[(key('w'), Action::FullText)],
    "w",
    "full text of the selected alert, or the header's warnings",
    Applies::Everywhere,
    hint("w", " full text ", 90),
);
pub(crate) const FILTER: Command = row(
    &[(key('/'), Action::Filter)],
    "/",
    "filter: name, pid, user, container, device (Enter/Esc)",
    Applies::Everywhere,
    hint("/", " filter ", 51),
);
pub(crate) const SORT_NEXT: Command = row(
    &[(key('s'), Action::SortNext), (key('>'), Action::SortNext)],
    "s  >",
    "sort by the next column shown",
    Applies::Everywhere,
    hint("s", " sort ", 45),
);
pub(crate) const SORT_PREV: Command = row(
    &[(key('<'), Action::SortPrev)],
    "<",
    "sort by the previous column shown",
    Applies::Everywhere,
    None,
);
pub(crate) const SORT_BY: Command = row(
    &[
        (key('P'), Action::SortBy(SortKey::Pid)),
        (key('U'), Action::SortBy(SortKey::User)),
        (key('N'), Action::SortBy(SortKey::Name)),
        (key('Q'), Action::SortBy(SortKey::Count(ResourceType::Qp))),
        (key('C'), Action::SortBy(SortKey::Count(ResourceType::Cq))),
        (key('M'), Action::SortBy(SortKey::Count(ResourceType::Mr))),
        (key('B'), Action::SortBy(SortKey::MrBytes)),
        (key('E'), Action::SortBy(SortKey::ErrQps)),
    ],
    "P U N Q C M B E",
    "sort by PID, USER, NAME, QP, CQ, MR, MR-BYTES, ERR",
    Applies::MainScreen,
    None,
);
pub(crate) const SORT_MENU: Command = row(
    &[(code(KeyCode::F(6)), Action::SortMenu)],
    "F6",
    "sort menu: choose the column to sort by",
    Applies::MainScreen,
    hint("F6", " sort ", 56),
);
pub(crate) const REVERSE: Command = row(
    &[(key('r'), Action::Reverse)],
    "r",
    "reverse the sort order",
    Applies::Everywhere,
    hint("r", " reverse ", 46),
);
pub(crate) const SIGNAL: Command = row(
    &[
        (code(KeyCode::F(9)), Action::Signal),
        (key('K'), Action::Signal),
    ],
    "F9  K",
    "signal the selected process (asks first; not --read-only)",
    Applies::Everywhere,
    None,
);
const SPACE: &[(Chord, Action)] = &[(key(' '), Action::Freeze)];
pub(crate) const FREEZE: Command = row(
    &[(key(' '), Action::Freeze), (key('f'), Action::Freeze)],
    "Space  f",
    "freeze / resume the display (collection goes on)",
    Applies::Everywhere,
    hint("␣", " freeze ", 70),
);
pub(crate) const INTERVAL: Command = row(
    &[
        (key('+'), Action::IntervalLonger),
        (key('='), Action::IntervalLonger),
        (key('-'), Action::IntervalShorter),
    ],
    "+  -",
    "longer / shorter refresh interval",
    Applies::Collecting,
    hint("+-", " interval", 95),
);
const TAB: &[(Chord, Action)] = &[(code(KeyCode::Tab), Action::NextPart)];
pub(crate) const NEXT_PART: Command = row(
    TAB,
    "Tab",
    "main screen: the next pane (consumers, devices, problems)",
    Applies::Everywhere,
    None,
);
/// On the main screen the footer names `c` and Tab (which moves between the
/// panes) after the filter, so `e` keeps its place on narrow terminals.
pub(crate) const PANES: Command = footer(TAB, Applies::MainScreen, hint("Tab", " panes ", 53));
pub(crate) const MAIN_COUNTERS: Command =
    footer(C, Applies::MainScreen, hint("c", " counters ", 52));
pub(crate) const OBJECT_TYPES: Command = row(
    &[
        (code(KeyCode::BackTab), Action::PrevPart),
        (code(KeyCode::Left), Action::Left),
        (key('h'), Action::Left),
        (code(KeyCode::Right), Action::Right),
        (key('l'), Action::Right),
        (key('1'), Action::Tab(0)),
        (key('2'), Action::Tab(1)),
        (key('3'), Action::Tab(2)),
        (key('4'), Action::Tab(3)),
        (key('5'), Action::Tab(4)),
        (key('6'), Action::Tab(5)),
        (key('7'), Action::Tab(6)),
    ],
    "Tab ← →  1-7",
    "drill-down: switch object type",
    Applies::Everywhere,
    None,
);
pub(crate) const WHEEL: Command = row(
    &[],
    "mouse wheel",
    "scroll the pane under the pointer",
    Applies::Everywhere,
    None,
);
pub(crate) const CLICK: Command = row(
    &[],
    "click",
    "select a row; a column header sorts (again: reverses)",
    Applies::Everywhere,
    None,
);
pub(crate) const PAUSE: Command = row(
    SPACE,
    "Space (replay)",
    "pause / play the recording",
    Applies::Replay,
    hint("␣", " pause ", 30),
);
pub(crate) const STEP: Command = row(
    &[
        (key(','), Action::StepBack),
        (key('.'), Action::StepForward),
    ],
    ",  .",
    "replay: one snapshot back / forward (pauses)",
    Applies::Replay,
    hint(",.", " step ", 31),
);
pub(crate) const SPEED: Command = row(
    &[(key('['), Action::Slower), (key(']'), Action::Faster)],
    "[  ]",
    "replay: slower / faster (¼× … 64×)",
    Applies::Replay,
    hint("[]", " speed ", 32),
);
pub(crate) const SEEK: Command = row(
    &[
        (key('{'), Action::MinuteBack),
        (key('}'), Action::MinuteForward),
    ],
    "{  }",
    "replay: one minute back / forward",
    Applies::Replay,
    hint("{}", " ±1 min ", 33),
);
pub(crate) const REPLAY_ENDS: Command = row(
    &[(key('^'), Action::First), (key('$'), Action::Last)],
    "^  $",
    "replay: first / last snapshot",
    Applies::Replay,
    None,
);

/// Frozen is the state to leave: the footer says how, before anything else.
pub(crate) const RESUME: Command = footer(SPACE, Applies::Everywhere, hint("␣", " resume ", 0));
pub(crate) const OPEN_DETAILS: Command =
    footer(ENTER, Applies::Everywhere, hint("⏎", " details ", 41));
pub(crate) const OPEN_OWNER: Command = footer(ENTER, Applies::Everywhere, hint("⏎", " owner ", 41));
pub(crate) const OPEN_OBJECTS: Command =
    footer(ENTER, Applies::Everywhere, hint("⏎", " objects ", 41));
/// Grouped, the footer says so (and that `o` goes on to the next grouping).
pub(crate) const BY_CONTAINER: Command =
    footer(O, Applies::MainScreen, hint("o", " by container ", 42));
pub(crate) const BY_POD: Command = footer(O, Applies::MainScreen, hint("o", " by pod ", 42));
pub(crate) const NEXT_TYPE: Command = footer(TAB, Applies::Everywhere, hint("Tab", " type ", 43));
pub(crate) const PORTS_OR_CONSUMERS: Command = footer(
    TAB,
    Applies::Everywhere,
    hint("Tab", " ports/consumers ", 43),
);
pub(crate) const CLOSE_COUNTERS: Command = footer(C, Applies::Everywhere, hint("c", " close ", 47));

/// The keys of an open box (help, message, sort menu, signal dialog): it
/// takes every key, so the footer names only these.
const UP_DOWN: &[(Chord, Action)] = &[
    (code(KeyCode::Up), Action::Up),
    (code(KeyCode::Down), Action::Down),
];
const ESC: &[(Chord, Action)] = &[(code(KeyCode::Esc), Action::Back)];
pub(crate) const BOX_SCROLL: Command = footer(UP_DOWN, Applies::Box, hint("↑↓", " scroll ", 1));
pub(crate) const BOX_CHOOSE: Command = footer(UP_DOWN, Applies::Box, hint("↑↓", " choose ", 1));
pub(crate) const BOX_SEND: Command = footer(ENTER, Applies::Box, hint("⏎", " send ", 2));
pub(crate) const BOX_SORT: Command = footer(ENTER, Applies::Box, hint("⏎", " sort ", 2));
pub(crate) const BOX_CLOSE: Command = footer(ESC, Applies::Box, hint("Esc", " close ", 3));
pub(crate) const BOX_CANCEL: Command = footer(ESC, Applies::Box, hint("Esc", " cancel ", 3));

/// Every row, in help order; the first row with a chord decides what it does.
pub(crate) const COMMANDS: &[&Command] = &[
    &QUIT,
    &HELP,
    &BACK,
    &MOVE,
    &PAGE,
    &ENDS,
    &OPEN,
    &ERRORS,
    &ALERTS,
    &COUNTERS,
    &BASELINE,
    &SPARKLINES,
    &GROUP,
    &VFS,
    &FULL_TEXT,
    &FILTER,
    &SORT_NEXT,
    &SORT_PREV,
    &SORT_BY,
    &SORT_MENU,
    &REVERSE,
    &SIGNAL,
    &FREEZE,
    &INTERVAL,
    &NEXT_PART,
    &OBJECT_TYPES,
    &WHEEL,
    &CLICK,
    &PAUSE,
    &STEP,
    &SPEED,
    &SEEK,
    &REPLAY_ENDS,
    &RESUME,
    &OPEN_DETAILS,
    &OPEN_OWNER,
    &OPEN_OBJECTS,
    &BY_CONTAINER,
    &BY_POD,
    &NEXT_TYPE,
    &PANES,
    &MAIN_COUNTERS,
    &PORTS_OR_CONSUMERS,
    &CLOSE_COUNTERS,
    &BOX_SCROLL,
    &BOX_CHOOSE,
    &BOX_SEND,
    &BOX_SORT,
    &BOX_CLOSE,
    &BOX_CANCEL,
];
