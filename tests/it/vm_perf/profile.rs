//! The start-up profile of the perf scenario (`profile-{version,no-verbs}-sym.txt`: `perf report
//! --sort dso,sym` of six runs each, see perf.sh), summed by area: the shared objects, and
//! restop's own code by the crate or module a symbol names. Under TCG the profile is flat (every
//! function run for the first time is translated), so areas say more than the top symbols.

use std::fmt::Write;
use std::fs;
use std::path::Path;

/// One line of `perf report --sort dso,sym`: percent of the samples, shared object, symbol.
#[derive(Clone, Debug)]
pub struct Sample {
    pub percent: f64,
    pub dso: String,
    pub symbol: String,
}

/// The lines of `dir/file`; none when the file is missing (no perf in the run).
pub fn load(dir: &Path, file: &str) -> Vec<Sample> {
    let text = fs::read_to_string(dir.join(file)).unwrap_or_default();
    text.lines().filter_map(parse).collect()
}

/// `    3.36%  restop-profiling  [.] restop::nldev::entry::EntryFields::parse`
fn parse(line: &str) -> Option<Sample> {
    let mut words = line.split_whitespace();
    let percent = words.next()?.strip_suffix('%')?.parse().ok()?;
    let dso = words.next()?.to_string();
    let _kind = words.next()?;
    let symbol = words.collect::<Vec<_>>().join(" ");
    Some(Sample {
        percent,
        dso,
        symbol,
    })
}

/// Where a sample belongs: restop's code by what its symbol names, anything else by its object.
fn area(s: &Sample) -> String {
    if !s.dso.starts_with("restop") {
        return s.dso.clone();
    }
    const AREAS: [(&str, &str); 9] = [
        ("clap", "clap (command line)"),
        ("serde", "serde (JSON)"),
        ("restop::nldev", "restop::nldev (netlink)"),
        ("procfs", "procfs"),
        ("restop::collect", "restop::collect"),
        ("restop::model", "restop::model"),
        ("restop::output", "restop::output"),
        ("restop::", "restop, other"),
        ("", "std, core, alloc and the rest"),
    ];
    let (_, name) = AREAS
        .iter()
        .find(|(needle, _)| s.symbol.contains(needle))
        .unwrap_or(&("", "?"));
    format!("restop: {name}")
}

/// The areas of `samples`, largest first, as `| area | % |` rows.
pub fn by_area(samples: &[Sample]) -> Vec<(String, f64)> {
    let mut areas: Vec<(String, f64)> = Vec::new();
    for s in samples {
        let a = area(s);
        match areas.iter_mut().find(|(name, _)| *name == a) {
            Some((_, p)) => *p += s.percent,
            None => areas.push((a, s.percent)),
        }
    }
    areas.sort_by(|a, b| b.1.total_cmp(&a.1));
    areas
}

/// Both profiles side by side, when the run has them.
pub fn table(version: &[Sample], no_verbs: &[Sample], out: &mut String) {
    if version.is_empty() || no_verbs.is_empty() {
        return;
    }
    let (v, n) = (by_area(version), by_area(no_verbs));
    let _ = writeln!(
        out,
        "\nstart-up profile (perf record, cpu-clock, six runs each; % of the samples):\n\n\
         | area | --version % | --json --no-verbs % |\n|---|---:|---:|"
    );
    for (name, p) in &n {
        let in_version = v.iter().find(|(a, _)| a == name).map_or(0.0, |(_, p)| *p);
        let _ = writeln!(out, "| {name} | {in_version:.1} | {p:.1} |");
    }
}

#[test]
fn areas_come_from_objects_and_symbols() {
    let lines = "    3.36%  [kernel.kallsyms]     [k] xa_get_mark\n\
                 \x20   1.57%  restop-profiling  [.] restop::nldev::entry::EntryFields::parse\n\
                 \x20   0.86%  restop-profiling  [.] <restop::export::args::ExportArgs as clap_builder::derive::Args>::augment_args\n\
                 \x20   0.50%  restop-profiling  [.] clap_builder::builder::command::Command::_build_self\n\
                 \x20   0.20%  restop-profiling  [.] core::ptr::drop_in_place<u8>\n\
                 # not a sample";
    let samples: Vec<Sample> = lines.lines().filter_map(parse).collect();
    assert_eq!(samples.len(), 5);
    let areas = by_area(&samples);
    assert_eq!(areas[0].0, "[kernel.kallsyms]");
    assert_eq!(areas[1].0, "restop: restop::nldev (netlink)");
    assert_eq!(areas[2].0, "restop: clap (command line)");
    assert!((areas[2].1 - 1.36).abs() < 1e-9);
    assert_eq!(areas[3].0, "restop: std, core, alloc and the rest");
}
