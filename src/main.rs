//! restop's entry point: read the options (over the config file), open the
//! session, run the mode, and turn the outcome into an exit status (0 shown,
//! 1 nothing collected, 2 usage).

use anyhow::{Context, Result};
use clap::FromArgMatches;
use restop::batch::{self, BatchError};
use restop::cli::{self, Cli, Command};
use restop::model::{DetailScope, Snapshot, SourceKind};
use restop::output;
use restop::session::{self, Session};
use restop::settings::locate;
use restop::settings::{Mode, Origin, Settings};
use restop::source::CollectRequest;
use std::io::{self, Write};
use std::process::ExitCode;

/// Report shown.
const EXIT_OK: u8 = 0;
/// Nothing could be collected, or `--dev` named no device.
const EXIT_NOTHING: u8 = 1;
/// Bad options or a bad config file (clap uses the same status for its own usage errors).
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    // First of all: as a container's PID 1 a signal nobody handles is
    // ignored, so a SIGTERM while the command line, the config file or the
    // source is still being read would wait for the kill after the grace
    // period. Each mode's own guard keeps a signal that came in before it.
    let _signals = match restop::signals::install() {
        Ok(guard) => guard,
        Err(e) => {
            tell(&format!("installing signal handlers: {e:#}"));
            return ExitCode::from(EXIT_NOTHING);
        }
    };
    let matches = match matches() {
        Ok(matches) => matches,
        Err(code) => return code,
    };
    cli::check_export_options(&matches).unwrap_or_else(|err| err.exit());
    let args = Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    if let Some(outcome) = run_manual(&args) {
        return exit_code(outcome);
    }
    let settings = match settings(&args) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let outcome = match settings.mode {
        Mode::Export => run_export(&settings),
        Mode::Interactive => run_interactive(&settings),
        Mode::Batch | Mode::BatchJson => run_batch(&settings),
        Mode::Once | Mode::Json => run_once(&settings),
    };
    exit_code(outcome)
}

/// The command line, or the status to end with: `--help` and `--version`
/// print on stdout and end with 0, or with 1 when stdout cannot take them
/// (`restop --help > /dev/full`), as every other write to stdout does.
fn matches() -> Result<clap::ArgMatches, ExitCode> {
    let err = match cli::command().try_get_matches() {
        Ok(matches) => return Ok(matches),
        Err(err) if err.use_stderr() => err.exit(),
        Err(err) => err,
    };
    match err.print().and_then(|()| io::stdout().flush()) {
        Ok(()) => Err(ExitCode::from(EXIT_OK)),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::from(EXIT_OK)),
        Err(e) => {
            tell(&format!("writing to stdout: {e}"));
            Err(ExitCode::from(EXIT_NOTHING))
        }
    }
}

fn exit_code(outcome: Result<u8>) -> ExitCode {
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            tell(&format!("{err:#}"));
            ExitCode::from(EXIT_NOTHING)
        }
    }
}

/// The command line over the config file; usage errors end restop here.
fn settings(args: &Cli) -> Result<Settings, ExitCode> {
    let file = locate::load(args.config.as_deref()).map_err(|message| {
        tell(&message);
        ExitCode::from(EXIT_USAGE)
    })?;
    cli::resolve(args, file.as_ref()).map_err(|message| {
        cli::command()
            .error(clap::error::ErrorKind::ValueValidation, message)
            .exit()
    })
}

/// `restop completions SHELL` and `restop man [PAGE]`: generated from the command definition,
/// with no settings to resolve. `None` for every other command.
fn run_manual(args: &Cli) -> Option<Result<u8>> {
    match args.command.as_ref()? {
        Command::Completions { shell } => {
            let mut out = Vec::new();
            restop::manual::write_completions(*shell, &mut out);
            Some(write_stdout(&String::from_utf8_lossy(&out)).map(|()| EXIT_OK))
        }
        Command::Man { page } => {
            let mut out = Vec::new();
            Some(
                match restop::manual::write_man_page(page.as_deref(), &mut out) {
                    Ok(()) => write_stdout(&String::from_utf8_lossy(&out)).map(|()| EXIT_OK),
                    Err(err) => {
                        tell(&err.to_string());
                        Ok(EXIT_USAGE)
                    }
                },
            )
        }
        Command::Fleet(fleet) => Some(restop::fleet_command::run(fleet, args.config.as_deref())),
        Command::Export(_) => None,
    }
}

/// The interactive view. Kept as the single place that starts it, so the TUI
/// plugs in here.
fn run_interactive(settings: &Settings) -> Result<u8> {
    if !restop::interactive::terminal::has_terminal() {
        tell("the interactive view needs a terminal; use --once or --json in pipes and scripts");
        return Ok(EXIT_USAGE);
    }
    let config = restop::interactive::app::AppConfig::new(settings);
    if let Origin::Replay(path) = &settings.source.origin {
        let replay = restop::record::ReplaySource::open(path)?;
        return restop::interactive::local::run_replay(replay, config).map(|()| EXIT_OK);
    }
    // Write failures show as warnings in the view: stderr is the screen.
    let source = session::with_recording(session::open_source(settings)?, settings, tell, false)?;
    restop::interactive::local::run(source, config).map(|()| EXIT_OK)
}

/// `--batch`: reports every interval until `-n`, the end of a replay, a
/// closed pipe or a termination signal.
fn run_batch(settings: &Settings) -> Result<u8> {
    let source = session::with_recording(session::open_source(settings)?, settings, tell, true)?;
    let mut session = Session::new(source, Session::pacer_for(settings));
    let _signals = restop::signals::install()?;
    let mut out = io::stdout().lock();
    let ended = batch::run(
        &mut session,
        settings,
        &mut out,
        &mut session::on_signals(),
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
fn run_once(settings: &Settings) -> Result<u8> {
    // A signal lets the one report finish, or ends a run blocked in its write.
    let _signals = restop::signals::install()?;
    let source = session::with_recording(session::open_source(settings)?, settings, tell, true)?;
    let mut session = Session::new(source, Session::pacer_for(settings));
    let request = CollectRequest {
        details: DetailScope::ErrorsOnly,
        force_objects: true,
    };
    let mut snapshot = session
        .collect(&request)
        .result
        .context("collecting RDMA resources")?;
    if let Some(interval) = settings.rates {
        // The second read's counters carry the first as their previous read.
        std::thread::sleep(interval);
        snapshot = session
            .collect(&request)
            .result
            .context("collecting RDMA resources")?;
    }
    if snapshot.devices.is_empty() && snapshot.meta.source == SourceKind::Live {
        tell(
            "no RDMA devices on this host (none is visible in this network namespace).\n\
             Run `restop --demo` to explore restop with a simulated host",
        );
        return Ok(EXIT_NOTHING);
    }

    let filter = &settings.filter;
    let text = match settings.mode {
        Mode::Json => json_text(&snapshot, settings)?,
        _ => output::render_once(&snapshot, filter, &settings.report),
    };
    write_stdout(&text)?;

    if let Some(warning) = output::unknown_device_warning(&snapshot, filter) {
        tell(&warning.message);
        return Ok(EXIT_NOTHING);
    }
    Ok(EXIT_OK)
}

/// `restop export`: the session's ticks as Prometheus metrics.
fn run_export(settings: &Settings) -> Result<u8> {
    let session = Session::new(
        session::open_source(settings)?,
        Session::pacer_for(settings),
    );
    restop::export::run(&settings.export, &settings.trends, session)
}

fn json_text(snapshot: &Snapshot, settings: &Settings) -> Result<String> {
    let document = output::render_json_report(snapshot, &settings.filter, &settings.report);
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
