//! The command line parsed in process: defaults, groups, the export
//! refusals, and the merge with the config file.

use super::*;
use crate::interactive::app::AppConfig;
use crate::model::consumers::{SortDirection, SortKey};
use crate::model::filter::Filter;
use crate::model::history::HistoryConfig;
use crate::model::owner_group::OwnerGroup;
use crate::model::{QpState, ResourceType, Thresholds};
use crate::settings::locate::Loaded;
use crate::settings::{Origin, parse_config};
use clap::FromArgMatches;
use std::time::Duration;

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    let matches =
        command().try_get_matches_from(std::iter::once("restop").chain(args.iter().copied()))?;
    check_export_options(&matches)?;
    Cli::from_arg_matches(&matches)
}

fn settings(args: &[&str]) -> Settings {
    resolve(&parse(args).unwrap(), None).unwrap()
}

fn with_file(args: &[&str], text: &str) -> Result<Settings, String> {
    let loaded = Loaded {
        path: "/etc/restop.toml".into(),
        defaults: parse_config(text).map_err(|e| e.to_string())?,
    };
    resolve(&parse(args).unwrap(), Some(&loaded))
}

#[test]
fn default_mode_is_interactive_and_json_implies_once() {
    assert_eq!(parse(&[]).unwrap().mode(), Mode::Interactive);
    assert_eq!(parse(&["--once"]).unwrap().mode(), Mode::Once);
    assert_eq!(parse(&["--json"]).unwrap().mode(), Mode::Json);
    assert_eq!(parse(&["--once", "--json"]).unwrap().mode(), Mode::Json);
}

#[test]
fn batch_mode_and_its_iterations() {
    assert_eq!(parse(&["--batch"]).unwrap().mode(), Mode::Batch);
    assert_eq!(
        parse(&["--batch", "--json"]).unwrap().mode(),
        Mode::BatchJson
    );
    assert_eq!(settings(&["--batch", "-n", "3"]).iterations, Some(3));
    assert_eq!(settings(&["--batch"]).iterations, None);
    assert!(parse(&["-n", "3"]).is_err(), "-n needs --batch");
    assert!(parse(&["--batch", "-n", "0"]).is_err());
}

#[test]
fn record_and_replay_exclude_each_other_and_the_demo() {
    assert!(parse(&["--record", "a", "--replay", "b"]).is_err());
    assert!(parse(&["--replay", "b", "--demo"]).is_err());
    let s = settings(&["--demo", "--record", "a.rec"]);
    assert_eq!(s.record.as_deref(), Some(std::path::Path::new("a.rec")));
    assert_eq!(s.source.origin, Origin::Demo { seed: 1 });
    assert!(s.source.paced());
    let s = settings(&["--replay", "b.rec"]);
    assert_eq!(s.source.origin, Origin::Replay("b.rec".into()));
    assert!(!s.source.paced());
}

#[test]
fn defaults() {
    let s = settings(&[]);
    assert_eq!(s.source.interval, Duration::from_secs(2));
    assert_eq!(s.source.timeout, Duration::from_secs(5));
    assert_eq!(s.source.objects_every, Duration::ZERO);
    assert!(s.source.verbs);
    assert_eq!(s.report.top, 20);
    assert_eq!(s.report.sort, SortKey::Count(ResourceType::Qp));
    assert_eq!(s.report.direction, SortDirection::Descending);
    assert_eq!(s.source.origin, Origin::Live);
    assert_eq!(s.filter, Filter::default());
    assert_eq!(s.trends, HistoryConfig::default());
    assert_eq!(s.report.thresholds, Thresholds::default());
    assert!(s.interactive.mouse);
    assert_eq!(s.interactive.color, !crate::settings::no_color_env());
    assert_eq!(s.config_file, None);
}

#[test]
fn types_are_repeatable_and_comma_separated() {
    let s = settings(&["--type", "qp,MR", "--type", "cm-id", "--type", "qp"]);
    assert_eq!(
        s.filter.types,
        [ResourceType::Qp, ResourceType::Mr, ResourceType::CmId]
    );
    assert!(parse(&["--type", "qp,counter"]).is_err());
}

#[test]
fn filters_map_onto_the_model() {
    let f = settings(&["--dev", "mlx5_0", "--pid", "42", "--state", "err"]).filter;
    assert_eq!(f.device.as_deref(), Some("mlx5_0"));
    assert_eq!(f.pid, Some(42));
    assert_eq!(f.state, Some(QpState::Err));
    assert!(parse(&["--state", "broken"]).is_err());
}

#[test]
fn sort_keys_and_their_direction() {
    let s = settings(&["--sort", "mr_bytes"]);
    assert_eq!(s.report.sort, SortKey::MrBytes);
    assert_eq!(s.report.direction, SortDirection::Descending);
    let s = settings(&["--sort", "name"]);
    assert_eq!(s.report.direction, SortDirection::Ascending);
    assert_eq!(AppConfig::new(&s).direction, SortDirection::Ascending);
    assert!(parse(&["--sort", "colour"]).is_err());
}

#[test]
fn seed_needs_demo() {
    assert!(parse(&["--seed", "3"]).is_err());
    assert_eq!(
        settings(&["--demo", "--seed", "3"]).source.origin,
        Origin::Demo { seed: 3 }
    );
}

#[test]
fn negative_delay_is_reported_as_negative_not_as_an_unknown_flag() {
    let err = parse(&["--delay", "-1s"]).unwrap_err();
    assert!(err.to_string().contains("greater than zero"), "{err}");
}

#[test]
fn bad_delay_is_a_usage_error() {
    let err = parse(&["--delay", "0"]).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("greater than zero"));
}

#[test]
fn prometheus_durations_on_the_command_line() {
    assert_eq!(
        settings(&["-d", "1m30s"]).source.interval,
        Duration::from_secs(90)
    );
    assert_eq!(
        settings(&["--err-linger", "1h"])
            .trends
            .alerts
            .error_qp_linger,
        Duration::from_secs(3600)
    );
}

#[test]
fn thresholds_default_and_validate() {
    let t = settings(&["--warn", "70", "--crit", "90.5"])
        .report
        .thresholds;
    assert_eq!((t.warn, t.critical), (0.70, 0.905));
    for bad in [
        &["--warn", "96"][..],
        &["--crit", "101"],
        &["--warn", "0"],
        &["--warn", "90", "--crit", "90"],
    ] {
        assert!(resolve(&parse(bad).unwrap(), None).is_err(), "{bad:?}");
    }
    assert!(parse(&["--warn", "lots"]).is_err());
    assert!(!settings(&["--no-verbs"]).source.verbs);
}

#[test]
fn command_definition_is_consistent() {
    Cli::command().debug_assert();
    command().debug_assert();
}

#[test]
fn trend_options_make_the_history_config() {
    let c = settings(&[
        "--retention",
        "30m",
        "--trend-window",
        "15m",
        "--err-linger",
        "5s",
    ])
    .trends;
    assert_eq!(c.retention, Duration::from_secs(1800));
    assert_eq!(c.window, Duration::from_secs(900));
    assert_eq!(c.alerts.error_qp_linger, Duration::from_secs(5));
    assert!(parse(&["--retention", "0"]).is_err());
}

#[test]
fn export_refuses_every_option_of_the_groups_it_has_no_use_for() {
    let refused: Vec<String> = export_refusal::refused_flags()
        .into_iter()
        .map(|(_, flag)| flag)
        .collect();
    for flag in [
        "--once",
        "--json",
        "--batch",
        "--iterations",
        "--record",
        "--replay",
        "--dev",
        "--pid",
        "--type",
        "--state",
        "--sort",
        "--top",
        "--warn",
        "--crit",
        "--no-mouse",
        "--no-color",
    ] {
        assert!(refused.contains(&flag.to_string()), "{flag}: {refused:?}");
    }
    for flag in ["--demo", "--delay", "--retention", "--config"] {
        assert!(!refused.contains(&flag.to_string()), "{flag}");
    }
    let err = parse(&["--warn", "70", "export"]).unwrap_err();
    assert!(
        err.to_string()
            .contains("--warn cannot be used with export")
    );
}

#[test]
fn export_has_its_own_default_interval_and_takes_trend_options() {
    let s = settings(&["export"]);
    assert_eq!(s.mode, Mode::Export);
    assert_eq!(s.source.interval, Duration::from_secs(15));
    assert_eq!(s.mode, Mode::Export);
    assert_eq!(s.export, crate::settings::ExportSettings::default());
    assert_eq!(
        settings(&["export", "-d", "1s"]).source.interval,
        Duration::from_secs(1)
    );
    assert_eq!(
        settings(&["-d", "1s", "export"]).source.interval,
        Duration::from_secs(1)
    );
    assert_eq!(
        settings(&["export", "--trend-window", "1m"]).trends.window,
        Duration::from_secs(60)
    );
}

#[test]
fn export_help_shows_the_exporters_default_interval() {
    let mut cmd = command();
    let export = cmd.find_subcommand_mut("export").unwrap();
    let help = export.render_help().to_string();
    let delay = help.lines().find(|l| l.contains("--delay")).unwrap();
    assert!(delay.contains("[default: 15s]"), "{delay}");
    let top = Cli::command().render_help().to_string();
    let delay = top.lines().find(|l| l.contains("--delay")).unwrap();
    assert!(delay.contains("[default: 2s]"), "{delay}");
}

#[test]
fn the_config_file_sets_defaults_and_the_command_line_wins() {
    let file = r#"
[source]
interval = "1m30s"
verbs = false
[report]
sort = "mr_bytes"
top = 5
columns = ["qp", "mr"]
warn = 70
crit = 90
[interactive]
mouse = false
[trends]
window = "10m"
[export]
interval = "30s"
"#;
    let s = with_file(&[], file).unwrap();
    assert_eq!(s.source.interval, Duration::from_secs(90));
    assert!(!s.source.verbs);
    assert_eq!(s.report.sort, SortKey::MrBytes);
    assert_eq!(s.report.top, 5);
    assert_eq!(s.filter.types, [ResourceType::Qp, ResourceType::Mr]);
    assert_eq!(s.report.thresholds.warn, 0.70);
    assert!(!s.interactive.mouse);
    assert!(s.interactive.color);
    assert_eq!(s.trends.window, Duration::from_secs(600));
    assert_eq!(s.config_file.as_deref(), Some("/etc/restop.toml".as_ref()));

    let s = with_file(
        &["-d", "5s", "--sort", "name", "--top", "0", "--type", "cq"],
        file,
    )
    .unwrap();
    assert_eq!(s.source.interval, Duration::from_secs(5));
    assert_eq!(s.report.sort, SortKey::Name);
    assert_eq!(s.report.direction, SortDirection::Ascending);
    assert_eq!(s.report.top, 0);
    assert_eq!(s.filter.types, [ResourceType::Cq]);

    let s = with_file(&["export"], file).unwrap();
    assert_eq!(s.source.interval, Duration::from_secs(30));
}

#[test]
fn thresholds_from_the_file_are_checked_with_the_command_line_and_name_their_line() {
    let err = with_file(&["--crit", "60"], "[report]\nwarn = 70\n").unwrap_err();
    assert!(err.contains("--warn 70 must be below --crit 60"), "{err}");
    assert!(
        err.contains("warn from line 2 of config file /etc/restop.toml"),
        "{err}"
    );
    assert!(with_file(&["--warn", "50", "--crit", "60"], "[report]\nwarn = 70\n").is_ok());
}

#[test]
fn group_comes_from_the_command_line_over_the_config_file() {
    assert_eq!(settings(&[]).report.group, OwnerGroup::Process);
    assert_eq!(settings(&["--group", "pod"]).report.group, OwnerGroup::Pod);
    assert_eq!(
        AppConfig::new(&settings(&["--group", "container"])).group,
        OwnerGroup::Container
    );
    assert!(parse(&["--group", "node"]).is_err());
    let file = "[interactive]\ngroup = \"pod\"\n";
    assert_eq!(with_file(&[], file).unwrap().report.group, OwnerGroup::Pod);
    assert_eq!(
        with_file(&["--group", "process"], file)
            .unwrap()
            .report
            .group,
        OwnerGroup::Process
    );
}

#[test]
fn the_theme_comes_from_the_flag_over_the_file() {
    use crate::settings::ThemeKind;
    assert_eq!(settings(&[]).interactive.theme, ThemeKind::Default);
    assert_eq!(
        settings(&["--theme", "light"]).interactive.theme,
        ThemeKind::Light
    );
    let file = "[interactive]\ntheme = \"light\"\n";
    assert_eq!(
        with_file(&[], file).unwrap().interactive.theme,
        ThemeKind::Light
    );
    assert_eq!(
        with_file(&["--theme", "high-contrast"], file)
            .unwrap()
            .interactive
            .theme,
        ThemeKind::HighContrast
    );
    assert!(parse(&["--theme", "neon"]).is_err());
}

#[test]
fn read_only_from_the_command_line_or_the_file() {
    assert!(!AppConfig::new(&settings(&[])).read_only);
    assert!(AppConfig::new(&settings(&["--read-only"])).read_only);
    let file = "[interactive]\nread_only = true\n";
    assert!(AppConfig::new(&with_file(&[], file).unwrap()).read_only);
    let off = "[interactive]\nread_only = false\n";
    assert!(AppConfig::new(&with_file(&["--read-only"], off).unwrap()).read_only);
}

/// Each default is written once, in its group's `Default`: with nothing on
/// the command line and no config file, every group resolves to it, and the
/// interactive view starts from the same values.
#[test]
fn with_no_options_every_group_is_its_default() {
    use crate::settings::{ExportSettings, InteractiveSettings, ReportSettings, SourceSettings};
    let s = settings(&[]);
    let defaults = Settings::default();
    assert_eq!(s.source, SourceSettings::default());
    assert_eq!(s.filter, defaults.filter);
    assert_eq!(s.report, ReportSettings::default());
    assert_eq!(s.trends, HistoryConfig::default());
    assert_eq!(s.export, ExportSettings::default());
    let color = !crate::settings::no_color_env();
    assert_eq!(
        s.interactive,
        InteractiveSettings {
            color,
            ..InteractiveSettings::default()
        }
    );
    assert_eq!(
        Settings {
            interactive: InteractiveSettings::default(),
            ..s.clone()
        },
        defaults
    );
    // The interactive interval at start is the source group's default.
    assert_eq!(
        AppConfig::new(&s).interval,
        SourceSettings::default().interval
    );
    assert_eq!(AppConfig::default().interval, s.source.interval);
    assert_eq!(
        AppConfig {
            color: true,
            ..AppConfig::new(&s)
        },
        AppConfig::default()
    );
    // The exporter's defaults are the export group's.
    let e = settings(&["export"]);
    assert_eq!(e.source.interval, crate::settings::export::DEFAULT_INTERVAL);
    assert_eq!(e.export, ExportSettings::default());
}

/// The `[default: …]` an option's long help states.
fn stated_default(cmd: &clap::Command, id: &str) -> String {
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_id() == id)
        .unwrap_or_else(|| panic!("no option {id}"));
    let help = arg
        .get_long_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    let start = help
        .find("[default: ")
        .unwrap_or_else(|| panic!("{id}'s help states no default: {help}"))
        + "[default: ".len();
    let rest = &help[start..];
    let end = rest.find([']', ';', ',']).unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

/// The help is prose, so it repeats each default; this holds every one of
/// them to the settings' own, the one place a default is written.
#[test]
fn the_help_states_the_settings_defaults() {
    use crate::settings::export::{DEFAULT_INTERVAL as EXPORT_INTERVAL, DEFAULT_LISTEN};
    use crate::settings::{ReportSettings, SourceSettings, ThemeKind};
    let cmd = command();
    let duration = |id: &str| parse_duration(&stated_default(&cmd, id)).unwrap();
    let source = SourceSettings::default();
    assert_eq!(duration("delay"), source.interval);
    assert_eq!(duration("timeout"), source.timeout);
    assert_eq!(
        stated_default(&cmd, "demo_at"),
        crate::settings::format_duration(source.demo_at)
    );
    // "Default: every refresh": no minimum between object dumps.
    assert_eq!(source.objects_every, Duration::ZERO);
    let trends = HistoryConfig::default();
    assert_eq!(duration("retention"), trends.retention);
    assert_eq!(duration("trend_window"), trends.window);
    assert_eq!(duration("err_linger"), trends.alerts.error_qp_linger);
    let report = ReportSettings::default();
    assert_eq!(stated_default(&cmd, "top"), report.top.to_string());
    assert_eq!(
        parse_sort_key(&stated_default(&cmd, "sort")),
        Ok(report.sort)
    );
    let percent = |id: &str| stated_default(&cmd, id).parse::<f64>().unwrap() / 100.0;
    assert!((percent("warn") - report.thresholds.warn).abs() < 1e-9);
    assert!((percent("crit") - report.thresholds.critical).abs() < 1e-9);
    assert_eq!(
        OwnerGroup::from_name(&stated_default(&cmd, "group")),
        Some(report.group)
    );
    assert_eq!(
        ThemeKind::parse(&stated_default(&cmd, "theme")),
        Some(ThemeKind::default())
    );
    let export = cmd.find_subcommand("export").unwrap();
    assert_eq!(
        parse_duration(&stated_default(export, "delay")),
        Ok(EXPORT_INTERVAL)
    );
    assert_eq!(stated_default(export, "listen").parse(), Ok(DEFAULT_LISTEN));
}
