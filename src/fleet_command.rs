//! `restop fleet` from the command line: settings resolved over the config file, the source
//! opened, then the full-screen view on the terminal (its feed thread refreshing at `-d`), or
//! one refresh printed as the `--once` report or the `--json` document. Beside `fleet/`, not
//! in it: it starts the full-screen view, which reads `fleet/`, so inside it the import would
//! run back up.

use crate::cli::FleetArgs;
use crate::fleet::config::{self, FleetOrigin, FleetOutput, FleetSettings};
use crate::fleet::feed::{self, LiveScraper};
use crate::fleet::http::Client;
use crate::fleet::model::{FleetState, RowRules};
use crate::fleet::prom::PromSource;
use crate::fleet::report;
use crate::fleet::scrape::DirectSource;
use crate::fleet::source::FleetSource;
use crate::interactive::app::Event;
use crate::interactive::fleet_view;
use crate::interactive::screens::fleet::{FleetConfig, FleetView};
use crate::model::Millis;
use crate::model::limits::Thresholds;
use crate::model::time::now;
use crate::settings::interactive::{InteractiveSettings, locale_env_is_not_utf8, no_color_env};
use crate::settings::locate;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Exit statuses, as the rest of restop's.
const EXIT_OK: u8 = 0;
const EXIT_NOTHING: u8 = 1;
const EXIT_USAGE: u8 = 2;

/// Runs `restop fleet`; the exit status.
pub fn run(args: &FleetArgs, config_path: Option<&Path>) -> Result<u8> {
    let settings = match settings(args, config_path) {
        Ok(s) => s,
        Err(message) => {
            tell(&message);
            return Ok(EXIT_USAGE);
        }
    };
    if settings.output == FleetOutput::Interactive {
        if !crate::interactive::terminal::has_terminal() {
            tell(
                "the fleet view needs a terminal: use `restop fleet --once` or `--json` for \
                 scripts (docs/fleet.md)",
            );
            return Ok(EXIT_USAGE);
        }
        return match open(&settings) {
            Ok(source) => run_view(&settings, source).map(|()| EXIT_OK),
            Err(message) => {
                tell(&message);
                Ok(EXIT_USAGE)
            }
        };
    }
    // Blocked on a Prometheus or an exporter that does not answer, or on a full stdout pipe,
    // the run still ends soon after a termination signal: the watchdog's 128 + N.
    let _signals = crate::signals::install()?;
    let mut source = match open(&settings) {
        Ok(source) => source,
        Err(message) => {
            tell(&message);
            return Ok(EXIT_USAGE);
        }
    };
    let mut state = FleetState::default();
    state.apply(source.read().map_err(|e| e.to_string()), now());
    let doc = report::document(&state, &source.describe(), &rules(&settings), settings.top);
    let text = match settings.output {
        FleetOutput::Json => {
            let mut text = serde_json::to_string_pretty(&doc).context("encoding JSON")?;
            text.push('\n');
            text
        }
        _ => report::render_once(&doc),
    };
    write_stdout(&text)?;
    if let Some(error) = &state.error {
        tell(error);
        return Ok(EXIT_NOTHING);
    }
    Ok(EXIT_OK)
}

/// The full-screen view over `source`, refreshed at `-d` on the feed thread; a host's detail
/// is also read live from its exporter (the direct scraper, with the same HTTP settings).
fn run_view(settings: &FleetSettings, source: Box<dyn FleetSource + Send>) -> Result<()> {
    let defaults = InteractiveSettings::default();
    let config = FleetConfig {
        source: source.describe(),
        rules: rules(settings),
        top: settings.top,
        interval: settings.interval,
        color: defaults.color && !no_color_env(),
        theme: defaults.theme,
        mouse: defaults.mouse,
        ascii: locale_env_is_not_utf8(),
    };
    let live = Client::new(&settings.http).ok().map(|client| LiveScraper {
        client,
        timeout: settings.http.timeout,
    });
    let interval = settings.interval;
    fleet_view::run(FleetView::new(config), move |events, requests| {
        // Never joined: a refresh in progress must not delay quitting.
        feed::spawn(
            source,
            live,
            interval,
            move |update| events.send(Event::Fleet(Box::new(update))).is_ok(),
            requests,
        )
        .map(drop)
    })
}

/// How rows are judged: the default thresholds, and a scrape older than two refreshes (or
/// 30 s, whichever is longer: Prometheus scrapes on its own interval) is stale.
pub fn rules(settings: &FleetSettings) -> RowRules {
    let stale = (settings.interval * 2).max(std::time::Duration::from_secs(30));
    RowRules {
        thresholds: Thresholds::default(),
        stale_after: Millis(stale.as_millis() as u64),
    }
}

fn settings(args: &FleetArgs, config_path: Option<&Path>) -> Result<FleetSettings, String> {
    let section = match config_file_text(config_path)? {
        Some((path, text)) => config::parse_section(&text)
            .map_err(|e| format!("config file {}, {e}", path.display()))?,
        None => config::FleetSection::default(),
    };
    config::resolve(args, &section, &|k| std::env::var(k).ok())
}

/// The config file's text, found as the rest of restop finds it.
fn config_file_text(
    explicit: Option<&Path>,
) -> Result<Option<(std::path::PathBuf, String)>, String> {
    // The main parser checks the whole file first, so a bad key elsewhere is reported as usual.
    locate::load(explicit)?;
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match locate::default_path() {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && explicit.is_none() => Ok(None),
        Err(e) => Err(format!("config file {}: {e}", path.display())),
    }
}

/// The source the settings name.
pub fn open(settings: &FleetSettings) -> Result<Box<dyn FleetSource + Send>, String> {
    let client = Client::new(&settings.http).map_err(|e| e.to_string())?;
    Ok(match &settings.origin {
        FleetOrigin::Prometheus(url) => Box::new(PromSource::new(
            client,
            url,
            &settings.host_label,
            settings.top,
        )),
        FleetOrigin::Direct(targets) => Box::new(DirectSource::new(
            client,
            targets.clone(),
            settings.concurrency,
            settings.http.timeout,
        )),
    })
}

fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e).context("writing to stdout"),
    }
}

fn tell(message: &str) {
    let _ = writeln!(std::io::stderr(), "restop: {message}");
}
