//! restop's entry point: read the options, pick a source, run the mode, and
//! turn the outcome into an exit status (0 shown, 1 nothing collected, 2 usage).

use anyhow::{Context, Result};
use clap::Parser;
use restop::batch::{self, BatchError, BatchFormat, BatchOptions};
use restop::cli::{Cli, Mode};
use restop::collect::{LiveOptions, LiveSource};
use restop::demo::DemoSource;
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::output::{self, OnceOptions};
use restop::record::{Opening, RecordWriter, RecordingSource, ReplaySource};
use restop::source::{CollectRequest, Source};
use std::io::{self, Write};
use std::process::ExitCode;

/// Report shown.
const EXIT_OK: u8 = 0;
/// Nothing could be collected, or `--dev` named no device.
const EXIT_NOTHING: u8 = 1;
/// Bad options (clap uses the same status for its own usage errors).
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.mode() {
        Mode::Interactive => run_interactive(&cli),
        Mode::Once | Mode::Json => run_once(&cli),
        Mode::Batch | Mode::BatchJson => run_batch(&cli),
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
        history: cli.history_config(),
        ..Default::default()
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
    let options = BatchOptions {
        interval: cli.delay,
        iterations: cli.iterations,
        format: match cli.mode() {
            Mode::BatchJson => BatchFormat::JsonLines,
            _ => BatchFormat::Text(OnceOptions {
                top: cli.top,
                sort: cli.sort,
                direction: cli.sort_direction(),
            }),
        },
        filter: cli.filter(),
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
    let text = match cli.mode() {
        Mode::Json => json_text(&snapshot, &filter)?,
        _ => output::render_once(
            &snapshot,
            &filter,
            &OnceOptions {
                top: cli.top,
                sort: cli.sort,
                direction: cli.sort_direction(),
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

/// The live host, the simulated one or a recording, as asked: never a
/// silent fallback.
fn open_source(cli: &Cli) -> Result<Box<dyn Source>> {
    if let Some(path) = &cli.replay {
        return Ok(Box::new(ReplaySource::open(path)?));
    }
    if cli.demo {
        return Ok(Box::new(DemoSource::new(cli.seed, cli.delay)));
    }
    let options = LiveOptions {
        timeout: cli.timeout,
        object_interval: cli.objects_every.unwrap_or_default(),
        ..LiveOptions::default()
    };
    Ok(Box::new(LiveSource::open(options)?))
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

fn json_text(snapshot: &Snapshot, filter: &restop::model::filter::Filter) -> Result<String> {
    let document = output::render_json(snapshot, filter);
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
