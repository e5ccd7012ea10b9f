//! The keys of the fleet view (`restop fleet`): rows of the same kind as the single-host
//! table's (`table.rs`), where the keys the two views share are the same rows and the same
//! actions, and the fleet's own meaning of a key has its own help line. The fleet's help box,
//! footer, the man page's FLEET KEYS section and docs/fleet.md's key list are read from
//! [`FLEET_COMMANDS`].

use super::table::{self, footer, hint, row};
use super::{Action, Applies, Chord, Command, code, key};
use crossterm::event::KeyCode;

pub(crate) const BACK: Command = row(
    &[(code(KeyCode::Esc), Action::Back)],
    "Esc",
    "back: leave a host's detail or a box; clear the filter",
    Applies::Everywhere,
    hint("Esc", " back ", 40),
);
const ENTER: &[(Chord, Action)] = &[(code(KeyCode::Enter), Action::Enter)];
pub(crate) const OPEN_HOST: Command = row(
    ENTER,
    "Enter",
    "the selected host's detail (Prometheus, live exporter)",
    Applies::Everywhere,
    hint("⏎", " host ", 41),
);
const TAB: &[(Chord, Action)] = &[
    (code(KeyCode::Tab), Action::NextPart),
    (code(KeyCode::BackTab), Action::PrevPart),
];
pub(crate) const NEXT_LIST: Command = row(
    TAB,
    "Tab  BackTab",
    "hosts → cluster consumers → ERROR QPs → leak suspects",
    Applies::Everywhere,
    hint("Tab", " next list ", 43),
);
pub(crate) const VIEWS: Command = row(
    &[(key('1'), Action::Tab(0)), (key('2'), Action::Tab(1))],
    "1  2",
    "the hosts table / the cluster-wide lists",
    Applies::Everywhere,
    None,
);
pub(crate) const ERRORS: Command = row(
    &[(key('e'), Action::ErrorQps)],
    "e",
    "ERROR QPs across the cluster, most first",
    Applies::Everywhere,
    hint("e", " errors ", 50),
);
pub(crate) const LEAKS: Command = row(
    &[(key('a'), Action::Alerts)],
    "a",
    "leak suspects across the cluster",
    Applies::Everywhere,
    hint("a", " leaks ", 52),
);
pub(crate) const KIND: Command = row(
    &[(key('o'), Action::Group)],
    "o",
    "cluster consumers: processes → pods → namespaces",
    Applies::Everywhere,
    hint("o", " kind ", 44),
);
pub(crate) const FILTER: Command = row(
    &[(key('/'), Action::Filter)],
    "/",
    "filter: host, pod, namespace, device (Enter/Esc)",
    Applies::Everywhere,
    hint("/", " filter ", 51),
);
const S: &[(Chord, Action)] = &[(key('s'), Action::SortNext), (key('>'), Action::SortNext)];
pub(crate) const SORT_NEXT: Command = row(
    S,
    "s  >  <",
    "hosts: next sort key; consumers: next type or MR bytes",
    Applies::Everywhere,
    hint("s", " sort ", 45),
);
pub(crate) const SORT_PREV: Command =
    footer(&[(key('<'), Action::SortPrev)], Applies::Everywhere, None);
pub(crate) const METRIC: Command = footer(S, Applies::Everywhere, hint("s", " type ", 45));
pub(crate) const INTERVAL: Command = row(
    &[
        (key('+'), Action::IntervalLonger),
        (key('='), Action::IntervalLonger),
        (key('-'), Action::IntervalShorter),
    ],
    "+  -",
    "longer / shorter refresh interval (follow the scrape)",
    Applies::Everywhere,
    hint("+-", " refresh ", 85),
);
pub(crate) const FULL_TEXT: Command = row(
    &[(key('w'), Action::FullText)],
    "w",
    "the selected host's reasons, the refresh's notes, whole",
    Applies::Everywhere,
    hint("w", " full text ", 90),
);

/// Every row of the fleet view, in help order; the first row with a chord decides.
pub(crate) const FLEET_COMMANDS: &[&Command] = &[
    &table::QUIT,
    &table::HELP,
    &BACK,
    &table::MOVE,
    &table::PAGE,
    &table::ENDS,
    &OPEN_HOST,
    &NEXT_LIST,
    &VIEWS,
    &ERRORS,
    &LEAKS,
    &KIND,
    &FILTER,
    &SORT_NEXT,
    &SORT_PREV,
    &table::REVERSE,
    &INTERVAL,
    &FULL_TEXT,
    &table::WHEEL,
    &table::CLICK,
    &METRIC,
    &table::BOX_SCROLL,
    &table::BOX_CLOSE,
];

/// The fleet help box's lines: every documented row's keys and what they do.
pub(crate) fn fleet_help_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    FLEET_COMMANDS
        .iter()
        .filter_map(|c| c.help.map(|help| (c.label, help)))
}

/// The FLEET KEYS section of restop-fleet(1).
pub(crate) fn roff_section() -> String {
    let mut out = String::from(".SH KEYS\n");
    out.push_str(
        "The keys of the full-screen fleet view, as its help box (\\fB?\\fR) lists them.\n",
    );
    for (label, help) in fleet_help_rows() {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n\\&{}\n",
            super::docs::roff(label),
            super::docs::roff(help)
        ));
    }
    out
}

/// docs/fleet.md's key list (between its two markers; a test compares them).
#[cfg(test)]
pub(crate) fn markdown_list() -> String {
    let mut out = String::from("| keys | what they do |\n|---|---|\n");
    for (label, help) in fleet_help_rows() {
        out.push_str(&format!("| `{label}` | {help} |\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEvent, KeyModifiers};

    fn action(c: KeyCode) -> Option<Action> {
        super::super::resolve_in(FLEET_COMMANDS, KeyEvent::new(c, KeyModifiers::NONE))
            .map(|(_, a)| a)
    }

    #[test]
    fn the_fleet_keys_mean_what_the_single_host_keys_mean() {
        assert_eq!(action(KeyCode::Char('q')), Some(Action::Quit));
        assert_eq!(action(KeyCode::Char('/')), Some(Action::Filter));
        assert_eq!(action(KeyCode::Enter), Some(Action::Enter));
        assert_eq!(action(KeyCode::Char('x')), None);
        // A chord means one action, and the same as in the single-host table.
        for command in FLEET_COMMANDS {
            for (chord, act) in command.chords {
                let single = table::COMMANDS
                    .iter()
                    .flat_map(|c| c.chords.iter())
                    .find(|(c, _)| c == chord);
                if let Some((_, same)) = single {
                    assert_eq!(same, act, "{chord:?} in {}", command.label);
                }
            }
        }
        for (keys, what) in fleet_help_rows() {
            assert!(keys.chars().count() <= 15, "{keys}");
            assert!(what.chars().count() <= 58, "{what}");
        }
    }

    /// The line before docs/fleet.md's key list.
    const DOC_START: &str =
        "<!-- keys: generated from src/interactive/keys/fleet.rs (keys::fleet::markdown_list) -->";
    const DOC_END: &str = "<!-- /keys -->";

    #[test]
    fn the_fleet_docs_key_list_is_the_table() {
        let doc = include_str!("../../../docs/fleet.md");
        let start = doc.find(DOC_START).map(|i| i + DOC_START.len() + 1);
        let end = doc.find(DOC_END);
        let (Some(start), Some(end)) = (start, end) else {
            panic!("docs/fleet.md has no key list between {DOC_START} and {DOC_END}");
        };
        assert_eq!(&doc[start..end], markdown_list());
    }
}
