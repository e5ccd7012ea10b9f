//! The walls inside the interactive view, kept by allow lists read from the
//! source: `widgets/` name no screen and nothing above them, and the
//! runtime (`terminal/`) names no screen and not `local/`, so another data
//! source brings its own feed and screens to the same runtime and widgets.

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
            let text = std::fs::read_to_string(&path).unwrap();
            let prefix = "crate::interactive::";
            for (at, _) in text.match_indices(prefix) {
                let named = use_path(&text[at + prefix.len()..]);
                found.push((path.display().to_string(), named));
            }
        }
    }
    found
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

/// Widgets serve every screen and know none: they name only other widgets,
/// the frame's geometry and the rows screens show.
#[test]
fn widgets_import_no_screen() {
    let allowed = ["widgets", "layout", "rows"];
    let named = interactive_paths_named(&dir("widgets"));
    assert!(!named.is_empty(), "the widgets name each other");
    for (file, path) in named {
        assert!(
            allowed.contains(&room(&path)),
            "{file} imports crate::interactive::{path}"
        );
    }
}

/// The runtime knows the application, its events and commands, the frame
/// it draws and the `Feed` trait, never a screen or where snapshots come
/// from (`local/`).
#[test]
fn the_runtime_imports_no_screen_and_not_local() {
    let allowed = ["app", "frame", "terminal"];
    // `app` passes on what every screen reads; the runtime takes none of it.
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
