//! Every example in README.md, docs/*.md and the man page that runs restop
//! on the demo is run: each exits 0, and where the text around it says what
//! it shows, it shows that. Commands that would open the full-screen view
//! get `--once`, a `--batch` without a count two ticks; those that cannot
//! run here (a server that never stops on its own) are in `SKIPPED` with
//! the reason.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Examples not run, and why.
const SKIPPED: &[(&str, &str)] = &[
    (
        "restop export --demo --demo-host node-07-leak --listen 127.0.0.1:9907",
        "an exporter serves until stopped; export_http runs it",
    ),
    (
        "restop export --demo",
        "an exporter serves until stopped; export_http runs it",
    ),
    (
        "restop --demo export",
        "an exporter serves until stopped; export_http runs it",
    ),
    (
        "restop export --demo --owners-by pod --no-pid-label",
        "an exporter serves until stopped; kube_join runs it under Prometheus",
    ),
    (
        "restop export --demo --demo-host NAME",
        "NAME stands for a name; fleet_prometheus runs 20 of them",
    ),
];

/// What an example's output shows, where its doc says so.
const SHOWS: &[(&str, &str)] = &[
    (
        "restop --demo --demo-at 10m --once --state err",
        "ERROR QPs (",
    ),
    ("restop --demo --demo-at 44s --once", "out_of_sequence"),
    ("restop --demo --once", "DEMO"),
    ("restop --demo --json --dev mlx5_3", "\"mlx5_3\""),
    ("restop --demo --once --group pod --top 6", "grouped by pod"),
];

/// The demo commands of one document: inline code spans and the lines of
/// fenced blocks (a `$ ` prompt, an environment assignment, a trailing `#`
/// comment and a `| jq` pipe taken off).
fn examples(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let line = line.trim().trim_start_matches("$ ");
            let line = line.split(" #").next().unwrap_or("").trim();
            out.extend(command_in(line));
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 {
                out.extend(command_in(span));
            }
        }
    }
    // The man page's "Example: restop ..." sentences.
    for part in text.split("Example") {
        let part = part.trim_start_matches(['s', ':', ' ']);
        for example in part.split(", ") {
            let example = example.split(['\n', ')']).next().unwrap_or("");
            if example.starts_with("restop ") {
                out.extend(command_in(example));
            }
        }
    }
    out
}

/// `restop ... --demo ...` alone, without what the shell adds.
fn command_in(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches(['.', ',']);
    let start = text.find("restop ")?;
    let before = &text[..start];
    if !(before.is_empty() || before.trim().split(' ').all(|w| w.contains('='))) {
        return None;
    }
    let command = text[start..].split(" | ").next()?.trim().to_string();
    let words: Vec<&str> = command.split_whitespace().collect();
    if !words.contains(&"--demo") || command.contains('[') || command.contains('<') {
        return None;
    }
    Some(command)
}

fn docs() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    )];
    let mut names: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    names.sort();
    for path in names {
        let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
        out.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    let mut man = Vec::new();
    restop::manual::write_man_page(None, &mut man).unwrap();
    // roff escapes hyphens.
    let man = String::from_utf8(man).unwrap().replace("\\-", "-");
    out.push(("restop(1)".to_string(), man));
    out
}

/// Runs one example in a scratch directory (a `--record` writes there),
/// `--once` added where it would open the full-screen view.
fn run(command: &str, dir: &Path) -> (bool, String) {
    let mut words: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    let reports = [
        "--once",
        "--json",
        "--batch",
        "export",
        "man",
        "completions",
    ];
    if !words.iter().any(|w| reports.contains(&w.as_str())) {
        words.push("--once".into());
    }
    // A batch without a count runs until stopped: two ticks show it works.
    if words.iter().any(|w| w == "--batch") && !words.iter().any(|w| w == "-n") {
        words.extend(["-n".into(), "2".into()]);
    }
    // Output goes to files: a pipe nobody reads would stop a long report.
    let out_path = dir.join("example.out");
    let err_path = dir.join("example.err");
    let mut child = Command::new(env!("CARGO_BIN_EXE_restop"))
        .args(&words)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = format!(
        "{}{}",
        std::fs::read_to_string(&out_path).unwrap_or_default(),
        std::fs::read_to_string(&err_path).unwrap_or_default()
    );
    (status.is_some_and(|s| s.success()), text)
}

#[test]
fn every_demo_example_in_the_docs_runs_and_shows_what_it_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    for (doc, text) in docs() {
        for command in examples(&text) {
            if SKIPPED.iter().any(|(c, _)| *c == command) || !seen.insert(command.clone()) {
                continue;
            }
            let (ok, output) = run(&command, dir.path());
            if !ok {
                failed.push(format!("{doc}: `{command}` failed:\n{output}"));
                continue;
            }
            for (c, shown) in SHOWS {
                if *c == command && !output.contains(shown) {
                    failed.push(format!(
                        "{doc}: `{command}` does not show {shown:?}:\n{output}"
                    ));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    for (c, _) in SHOWS {
        assert!(seen.contains(*c), "no doc has `{c}` any more: {seen:#?}");
    }
    assert!(seen.len() >= 10, "too few examples found: {seen:#?}");
}

#[test]
fn the_documented_demo_at_default_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, output) = run("restop --demo --demo-at 0s --once", dir.path());
    assert!(ok, "{output}");
    let (ok, output) = run("restop --demo --demo-at 10m --once --state err", dir.path());
    assert!(ok, "{output}");
    let count = output
        .lines()
        .find_map(|l| l.strip_prefix("ERROR QPs ("))
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse::<u32>().ok());
    assert!(
        count.is_some_and(|n| n > 0),
        "no ERROR QPs at 10m: {output}"
    );
}

/// The line before the README's screen sample, and the line after it.
const SCREEN_START: &str =
    "<!-- screen: restop --demo --demo-at 44s at 80x24, drawn by tests/it/docs_examples.rs -->";
const SCREEN_END: &str = "<!-- /screen -->";

/// `restop --demo --demo-at 44s` at 80x24 after its first refreshes, drawn
/// by the view's own frame, trailing blanks taken off.
fn readme_screen() -> String {
    use restop::interactive::app::{App, AppConfig, Event};
    use restop::model::{DetailScope, Millis, SourceKind};
    use restop::source::{CollectRequest, Source};
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(80, 24));
    let mut demo =
        restop::demo::DemoSource::starting_at(1, Duration::from_secs(2), Duration::from_secs(44));
    for _ in 0..2 {
        let s = demo
            .collect(&CollectRequest {
                details: DetailScope::ErrorsOnly,
                force_objects: true,
            })
            .unwrap();
        let now = s.meta.collected_at_ms.plus(Millis(35));
        app.update(crate::tui_common::snapshot_event(
            s,
            DetailScope::ErrorsOnly,
        ));
        app.update(Event::Tick(now));
    }
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|f| restop::interactive::frame::draw(f, &app))
        .unwrap();
    let buffer = terminal.backend().buffer().clone();
    let mut out = String::from("```\n");
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

/// The screen samples of README.md and the user guide are the view's:
/// `RESTOP_BLESS_README=1 cargo test --test it docs_examples::the_readme`
/// writes them again.
#[test]
fn the_readme_screen_is_what_the_view_draws() {
    let drawn = readme_screen();
    for doc in ["README.md", "docs/user-guide.md"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text
            .find(SCREEN_START)
            .map(|i| i + SCREEN_START.len() + 1)
            .unwrap_or_else(|| panic!("{doc} has no screen start marker"));
        let end = text
            .find(SCREEN_END)
            .unwrap_or_else(|| panic!("{doc} has no screen end marker"));
        if std::env::var_os("RESTOP_BLESS_README").is_some() {
            let text = format!("{}{drawn}{}", &text[..start], &text[end..]);
            std::fs::write(&path, text).unwrap();
            continue;
        }
        assert_eq!(
            &text[start..end],
            drawn,
            "{doc}'s screen is stale: RESTOP_BLESS_README=1 cargo test --test it \
             docs_examples::the_readme_screen_is_what_the_view_draws"
        );
    }
}
