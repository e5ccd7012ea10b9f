//! The command line over the config file over restop's defaults: one
//! [`Settings`], validated here and only here.

use super::{Cli, Command};
use crate::model::Thresholds;
use crate::model::history::{AlertThresholds, HistoryConfig};
use crate::settings::export::DEFAULT_INTERVAL as EXPORT_INTERVAL;
use crate::settings::locate::Loaded;
use crate::settings::{
    DEFAULT_INTERVAL, Defaults, InteractiveSettings, Mode, Origin, ReportSettings, Settings,
    SourceSettings, locale_env_is_not_utf8, no_color_env,
};
use crate::settings::{ExportSettings, ExportTarget};

/// Builds the settings of this run; `Err` is a usage error's message.
pub fn resolve(cli: &Cli, file: Option<&Loaded>) -> Result<Settings, String> {
    let empty = Defaults::default();
    let d = file.map_or(&empty, |l| &l.defaults);
    let mode = cli.mode();
    let report = report_settings(cli, d, file)?;
    let mut trends = history_config(cli, d);
    // The problems list's `limit` rule uses the report's thresholds.
    trends.problems.limits = report.thresholds;
    Ok(Settings {
        mode,
        source: source_settings(cli, d, mode),
        record: cli.recording.record.clone(),
        iterations: cli.mode.iterations,
        rates: cli.report.rates,
        filter: cli.filters.filter(d.columns.as_deref()),
        report,
        interactive: interactive_settings(cli, d),
        trends,
        export: export_settings(cli, file),
        config_file: file.map(|l| l.path.clone()),
    })
}

/// `restop export`'s group; the web config from the command line, or else
/// from the config file (relative to its directory). A textfile has no use for one.
fn export_settings(cli: &Cli, file: Option<&Loaded>) -> ExportSettings {
    let mut export = cli
        .command
        .as_ref()
        .and_then(Command::export_args)
        .map(|args| args.settings())
        .unwrap_or_default();
    if export.web_config.is_none() && matches!(export.target, ExportTarget::Http(_)) {
        export.web_config = file.and_then(|l| {
            let written = l.defaults.export_web_config.as_ref()?;
            Some(
                l.path
                    .parent()
                    .map_or(written.clone(), |dir| dir.join(written)),
            )
        });
    }
    export
}

impl Cli {
    pub fn mode(&self) -> Mode {
        let m = &self.mode;
        if self
            .command
            .as_ref()
            .and_then(Command::export_args)
            .is_some()
        {
            Mode::Export
        } else if m.batch {
            if m.json { Mode::BatchJson } else { Mode::Batch }
        } else if m.json {
            Mode::Json
        } else if m.once {
            Mode::Once
        } else {
            Mode::Interactive
        }
    }
}

fn source_settings(cli: &Cli, d: &Defaults, mode: Mode) -> SourceSettings {
    let s = &cli.source;
    let origin = match (&cli.recording.replay, s.demo) {
        (Some(path), _) => Origin::Replay(path.clone()),
        (None, true) => Origin::Demo { seed: s.seed },
        (None, false) => Origin::Live,
    };
    let interval = match mode {
        Mode::Export => s.delay.or(d.export_interval).unwrap_or(EXPORT_INTERVAL),
        _ => s.delay.or(d.interval).unwrap_or(DEFAULT_INTERVAL),
    };
    let defaults = SourceSettings::default();
    SourceSettings {
        origin,
        demo_at: s.demo_at.unwrap_or(defaults.demo_at),
        demo_host: s.demo_host.clone(),
        demo_devices: s.demo_devices,
        interval,
        timeout: s.timeout.or(d.timeout).unwrap_or(defaults.timeout),
        objects_every: s
            .objects_every
            .or(d.objects_every)
            .unwrap_or(defaults.objects_every),
        verbs: !s.no_verbs && d.verbs.unwrap_or(defaults.verbs),
    }
}

fn report_settings(
    cli: &Cli,
    d: &Defaults,
    file: Option<&Loaded>,
) -> Result<ReportSettings, String> {
    let defaults = ReportSettings::default();
    let sort = cli.report.sort.or(d.sort).unwrap_or(defaults.sort);
    Ok(ReportSettings {
        top: cli.report.top.or(d.top).unwrap_or(defaults.top),
        sort,
        direction: sort.natural_direction(),
        thresholds: thresholds(cli, d, file)?,
        group: cli.interactive.group.or(d.group).unwrap_or(defaults.group),
        all_counters: cli.report.counters.as_deref() == Some("all"),
    })
}

/// The flags turn things off; so does the file; `NO_COLOR` (non-empty) too.
fn interactive_settings(cli: &Cli, d: &Defaults) -> InteractiveSettings {
    let i = &cli.interactive;
    let defaults = InteractiveSettings::default();
    InteractiveSettings {
        mouse: !i.no_mouse && d.mouse.unwrap_or(defaults.mouse),
        color: !i.no_color && d.color.unwrap_or(defaults.color) && !no_color_env(),
        theme: i.theme.or(d.theme).unwrap_or(defaults.theme),
        read_only: i.read_only || d.read_only.unwrap_or(defaults.read_only),
        ascii: i.ascii || d.ascii.unwrap_or_else(locale_env_is_not_utf8),
    }
}

/// `--warn`/`--crit` over the file's `warn`/`crit`: checked together, and
/// a value from the file is named with its line.
fn thresholds(cli: &Cli, d: &Defaults, file: Option<&Loaded>) -> Result<Thresholds, String> {
    let defaults = Thresholds::default();
    let warn = cli
        .report
        .warn
        .or(d.warn.map(|p| p.value))
        .unwrap_or(defaults.warn * 100.0);
    let crit = cli
        .report
        .crit
        .or(d.crit.map(|p| p.value))
        .unwrap_or(defaults.critical * 100.0);
    Thresholds::from_percent(warn, crit).map_err(|message| {
        let from_file = [
            (cli.report.warn.is_none(), d.warn, "warn"),
            (cli.report.crit.is_none(), d.crit, "crit"),
        ]
        .into_iter()
        .filter_map(|(unset, p, key)| p.filter(|_| unset).map(|p| (key, p.line)))
        .map(|(key, line)| format!("{key} from line {line}"))
        .collect::<Vec<_>>();
        match (file, from_file.is_empty()) {
            (Some(l), false) => format!(
                "{message} ({} of config file {})",
                from_file.join(", "),
                l.path.display()
            ),
            _ => message,
        }
    })
}

fn history_config(cli: &Cli, d: &Defaults) -> HistoryConfig {
    let t = &cli.trends;
    let defaults = HistoryConfig::default();
    HistoryConfig {
        retention: t.retention.or(d.retention).unwrap_or(defaults.retention),
        window: t.trend_window.or(d.trend_window).unwrap_or(defaults.window),
        alerts: AlertThresholds {
            error_qp_linger: t
                .err_linger
                .or(d.err_linger)
                .unwrap_or(defaults.alerts.error_qp_linger),
        },
        ..defaults
    }
}
