//! restop's entry point: read the options, pick a source, run the mode, and
//! turn the outcome into an exit status (0 shown, 1 nothing collected, 2 usage).

use anyhow::{Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use restop::batch::{self, BatchError, BatchFormat, BatchOptions};
use restop::cli::{Cli, Command, Mode};
use restop::collect::{LiveOptions, LiveSource};
use restop::demo::DemoSource;
use restop::export::{DEFAULT_INTERVAL, ExportArgs, Reopening};
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::output::{self, OnceOptions};
use restop::record::{Opening, RecordWriter, RecordingSource, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Duration;

/// Report shown.
const EXIT_OK: u8 = 0;
/// Nothing could be collected, or `--dev` named no device.
const EXIT_NOTHING: u8 = 1;
/// Bad options (clap uses the same status for its own usage errors).
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    restop::cli::check_export_options(&matches).unwrap_or_else(|err| err.exit());
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    if let Err(message) = cli.thresholds() {
        Cli::command()
            .error(clap::error::ErrorKind::ValueValidation, message)
            .exit();
    }
    let outcome = match (&cli.command, cli.mode()) {
        (Some(Command::Export(args)), _) => run_export(&cli, args, &matches),
        (Some(Command::Completions { shell }), _) => {
            let mut out = Vec::new();
            restop::manual::write_completions(*shell, &mut out);
            write_stdout(&String::from_utf8_lossy(&out)).map(|()| EXIT_OK)
        }
        (Some(Command::Man { page }), _) => {
            let mut out = Vec::new();
            match restop::manual::write_man_page(page.as_deref(), &mut out) {
                Ok(()) => write_stdout(&String::from_utf8_lossy(&out)).map(|()| EXIT_OK),
                Err(err) => {
                    tell(&err.to_string());
                    Ok(EXIT_USAGE)
                }
            }
        }
        (_, Mode::Interactive) => run_interactive(&cli),
        (_, Mode::Batch | Mode::BatchJson) => run_batch(&cli),
        (_, _) => run_once(&cli),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            tell(&format!("{err:#}"));
            ExitCode::from(EXIT_NOTHING)
        }
    }
}

/// The interactive view. Kept as the single place that starts it, so the TUI
/// plugs in here.
fn run_interactive(cli: &Cli) -> Result<u8> {
    if !restop::tui::has_terminal() {
        tell("the interactive view needs a terminal; use --once or --json in pipes and scripts");
        return Ok(EXIT_USAGE);
    }
    let options = restop::tui::TuiOptions {
        interval: cli.delay,
        filter: cli.filter(),
        sort: cli.sort,
        direction: Some(cli.sort_direction()),
        mouse: !cli.no_mouse,
        color: !cli.no_color,
        thresholds: cli.thresholds().unwrap_or_default(),
        history: cli.history_config(),
    };
    if let Some(path) = &cli.replay {
        let replay = ReplaySource::open(path)?;
        return restop::tui::run_replay(replay, options).map(|()| EXIT_OK);
    }
    let mut source = open_source(cli)?;
    if let Some(writer) = open_recorder(cli, source.kind())? {
        source = Box::new(RecordingSource::new(source, writer));
    }
    restop::tui::run(source, options).map(|()| EXIT_OK)
}

/// `--batch`: reports every interval until `-n`, the end of a replay, a
/// closed pipe or a termination signal.
fn run_batch(cli: &Cli) -> Result<u8> {
    let mut source = open_source(cli)?;
    let mut recorder = open_recorder(cli, source.kind())?;
    let _signals = restop::tui::signals::install()?;
    let thresholds = cli.thresholds().unwrap_or_default();
    let options = BatchOptions {
        interval: cli.delay,
        iterations: cli.iterations,
        format: match cli.mode() {
            Mode::BatchJson => BatchFormat::JsonLines,
            _ => BatchFormat::Text(OnceOptions {
                top: cli.top,
                sort: cli.sort,
                direction: cli.sort_direction(),
                thresholds,
            }),
        },
        filter: cli.filter(),
        thresholds,
        paced: cli.replay.is_none(),
        history: cli.history_config(),
    };
    let mut out = io::stdout().lock();
    let ended = batch::run(
        source.as_mut(),
        recorder.as_mut(),
        &options,
        &mut out,
        &restop::tui::signals::termination_requested,
        &mut |message: &str| tell(message),
    );
    match ended {
        Ok(_) => Ok(EXIT_OK),
        Err(BatchError::NoDevices) => {
            tell(&BatchError::NoDevices.to_string());
            Ok(EXIT_NOTHING)
        }
        Err(e) => Err(e.into()),
    }
}

/// `--once` and `--json`: one collection, one rendering, one write.
fn run_once(cli: &Cli) -> Result<u8> {
    let mut source = open_source(cli)?;
    let request = CollectRequest {
        details: DetailScope::ErrorsOnly,
        force_objects: true,
    };
    let mut snapshot = source
        .collect(&request)
        .context("collecting RDMA resources")?;
    if let Some(mut writer) = open_recorder(cli, source.kind())?
        && let Some(failure) = writer.record_into(&mut snapshot, &request.details)
    {
        tell(&failure);
    }
    if snapshot.devices.is_empty() && snapshot.meta.source == SourceKind::Live {
        tell(
            "no RDMA devices on this host (none is visible in this network namespace).\n\
             Run `restop --demo` to explore restop with a simulated host",
        );
        return Ok(EXIT_NOTHING);
    }

    let filter = cli.filter();
    let thresholds = cli.thresholds().unwrap_or_default();
    let text = match cli.mode() {
        Mode::Json => json_text(&snapshot, &filter, &thresholds)?,
        _ => output::render_once(
            &snapshot,
            &filter,
            &OnceOptions {
                top: cli.top,
                sort: cli.sort,
                direction: cli.sort_direction(),
                thresholds,
            },
        ),
    };
    write_stdout(&text)?;

    if let Some(warning) = output::unknown_device_warning(&snapshot, &filter) {
        tell(&warning.message);
        return Ok(EXIT_NOTHING);
    }
    Ok(EXIT_OK)
}

/// `restop export`. The live source is opened at each collection until it
/// works, so a host without RDMA (yet) is reported as `restop_up 0` rather
/// than ending the exporter.
fn run_export(cli: &Cli, args: &ExportArgs, matches: &ArgMatches) -> Result<u8> {
    let interval = export_interval(cli, matches);
    let source: Box<dyn Source> = if cli.demo {
        Box::new(DemoSource::new(cli.seed, interval))
    } else {
        let options = live_options(cli);
        Box::new(Reopening::new(SourceKind::Live, move || {
            LiveSource::open(options.clone()).map(|s| Box::new(s) as Box<dyn Source>)
        }))
    };
    restop::export::run(args, source, interval)
}

/// `-d` when given (before or after `export`), else the exporter's default.
fn export_interval(cli: &Cli, matches: &ArgMatches) -> Duration {
    let given = |m: &ArgMatches| m.value_source("delay") == Some(ValueSource::CommandLine);
    if given(matches) || matches.subcommand_matches("export").is_some_and(given) {
        cli.delay
    } else {
        DEFAULT_INTERVAL
    }
}

/// The live host, the simulated one or a recording, as asked: never a
/// silent fallback.
fn open_source(cli: &Cli) -> Result<Box<dyn Source>> {
    if let Some(path) = &cli.replay {
        return Ok(Box::new(ReplaySource::open(path)?));
    }
    if cli.demo {
        return Ok(Box::new(DemoSource::new(cli.seed, cli.delay)));
    }
    Ok(Box::new(LiveSource::open(live_options(cli))?))
}

fn live_options(cli: &Cli) -> LiveOptions {
    // In a container the node's /proc, /sys and /var/log are mounted under one
    // directory (docs/kubernetes.md): `RESTOP_HOST_ROOT=/host`.
    let host = std::env::var_os("RESTOP_HOST_ROOT")
        .filter(|root| !root.is_empty())
        .map(std::path::PathBuf::from);
    let defaults = LiveOptions::default();
    let under_host = |path: std::path::PathBuf| match &host {
        Some(root) => root.join(path.strip_prefix("/").unwrap_or(&path)),
        None => path,
    };
    LiveOptions {
        proc_root: under_host(defaults.proc_root.clone()),
        sys_root: under_host(defaults.sys_root.clone()),
        kubelet_logs: under_host(defaults.kubelet_logs.clone()),
        timeout: cli.timeout,
        object_interval: cli.objects_every.unwrap_or_default(),
        verbs: !cli.no_verbs,
        // Diagnostics on stderr only where stderr is not the drawn screen.
        print_notes: cli.mode() != Mode::Interactive && std::env::var_os("RESTOP_DEBUG").is_some(),
        ..defaults
    }
}

/// `--record FILE`: the writer, or `None` without the option. Opening
/// errors end restop before anything runs: recording was asked for.
fn open_recorder(cli: &Cli, source: SourceKind) -> Result<Option<RecordWriter>> {
    let Some(path) = &cli.record else {
        return Ok(None);
    };
    let writer = RecordWriter::open(path, source, cli.delay).context("cannot record")?;
    if let Opening::Appended {
        dropped: Some(note),
        ..
    } = writer.opening()
    {
        tell(&format!(
            "{}: {note}; recording continues after it",
            writer.path()
        ));
    }
    Ok(Some(writer))
}

fn json_text(
    snapshot: &Snapshot,
    filter: &restop::model::filter::Filter,
    thresholds: &restop::model::Thresholds,
) -> Result<String> {
    let document = output::render_json_with(snapshot, filter, thresholds);
    let mut text = serde_json::to_string_pretty(&document).context("encoding JSON")?;
    text.push('\n');
    Ok(text)
}

/// Writes everything to stdout. A reader that went away (`restop --once |
/// head -1`) is not an error: there is no one left to tell.
fn write_stdout(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(err).context("writing to stdout"),
    }
}

/// One message on stderr. Unlike `eprintln!`, never panics when stderr is gone.
fn tell(message: &str) {
    let _ = writeln!(io::stderr(), "restop: {message}");
}
