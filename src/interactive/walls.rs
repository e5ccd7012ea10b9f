//! The walls inside the interactive view, kept by allow lists read from the
//! source: `widgets/` name no screen and nothing above them, and the
//! runtime (`terminal/`) names no screen and not `local/`, so another data
//! source brings its own feed and screens to the same runtime and widgets;
//! screens name nothing of `app/` (the application sits above them and opens
//! them), and what both read (`config.rs`, `event.rs`, `signal.rs`) names
//! only itself.

use std::path::{Path, PathBuf};

/// What a file names of `crate::interactive`: for every
/// `crate::interactive::` in `dir`'s files, the file and the path after it
/// up to the end of the statement (`app::{App, Event}`).
fn interactive_paths_named(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            found.extend(interactive_paths_named_in(&path));
        }
    }
    found
}

/// What one file names of `crate::interactive`, as [`interactive_paths_named`].
fn interactive_paths_named_in(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let prefix = "crate::interactive::";
    text.match_indices(prefix)
        .map(|(at, _)| {
            let named = use_path(&text[at + prefix.len()..]);
            (path.display().to_string(), named)
        })
        .collect()
}

/// The path at the start of `text`: names and `::`, and inside braces the
/// names listed (`app::{App, Event}`), up to whatever cannot be in one.
fn use_path(text: &str) -> String {
    let mut depth = 0usize;
    let mut path = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            c if c.is_ascii_alphanumeric() || c == '_' || c == ':' => {}
            ',' | ' ' | '\n' if depth > 0 => {}
            _ => break,
        }
        path.push(c);
    }
    path
}

/// The module of `crate::interactive` a path names first.
fn room(named: &str) -> &str {
    named.split("::").next().unwrap_or(named)
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/interactive")
        .join(name)
}

/// Widgets serve every screen and know none: they name only other widgets
/// and the frame's geometry, not even the rows screens show (a part that
/// draws a row is a screen file: `screens/port_traffic.rs`).
#[test]
fn widgets_import_no_screen() {
    let allowed = ["widgets", "layout"];
    let named = interactive_paths_named(&dir("widgets"));
    assert!(!named.is_empty(), "the widgets name each other");
    for (file, path) in named {
        assert!(
            allowed.contains(&room(&path)),
            "{file} imports crate::interactive::{path}"
        );
    }
}

/// The runtime knows its `View` and `Feed` traits and the events, never a
/// view (the application, the frame drawn around it, a screen) or where
/// snapshots come from (`local/`, `fleet_view.rs`, which implement `View`).
#[test]
fn the_runtime_imports_no_view_and_not_local() {
    let allowed = ["config", "event", "signal", "terminal"];
    let screen_names = ["drill", "Ctx", "Screen", "Focus"];
    let named = interactive_paths_named(&dir("terminal"));
    assert!(!named.is_empty(), "the runtime names the application");
    for (file, path) in named {
        assert!(
            allowed.contains(&room(&path)),
            "{file} imports crate::interactive::{path}"
        );
        let words = path.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        for word in words {
            assert!(
                !screen_names.contains(&word),
                "{file} imports crate::interactive::{path}, a screen's"
            );
        }
    }
}

/// Screens read the application through their `Ctx` (`screens/mod.rs`) and
/// the plain data below both (`config.rs`, `event.rs`, `signal.rs`), never
/// `app/`: the application holds the screen stack and opens screens, so a
/// screen naming it would run back up. A screen's `tests.rs` may drive it
/// through the whole application.
#[test]
fn screens_import_no_app() {
    let named = interactive_paths_named(&dir("screens"));
    assert!(!named.is_empty(), "the screens name the widgets");
    for (file, path) in named {
        if file.ends_with("/tests.rs") {
            continue;
        }
        assert!(
            room(&path) != "app",
            "{file} imports crate::interactive::{path}"
        );
    }
}

/// The plain data the application and the screens share names only itself:
/// no application, no screen, nothing of the runtime.
#[test]
fn the_shared_data_imports_only_itself() {
    let allowed = ["config", "event", "signal"];
    for file in allowed {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/interactive")
            .join(format!("{file}.rs"));
        for (file, path) in interactive_paths_named_in(&path) {
            assert!(
                allowed.contains(&room(&path)),
                "{file} imports crate::interactive::{path}"
            );
        }
    }
}
