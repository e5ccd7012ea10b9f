//! The command line parsed in process: defaults, groups, the export
//! refusals, and the merge with the config file.

use super::*;
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
    assert!(s.paced());
    let s = settings(&["--replay", "b.rec"]);
    assert_eq!(s.source.origin, Origin::Replay("b.rec".into()));
    assert!(!s.paced());
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
    assert_eq!(s.history, HistoryConfig::default());
    assert_eq!(s.report.thresholds, Thresholds::default());
    assert!(s.interactive.mouse && s.interactive.color);
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
    assert_eq!(s.app_config().direction, SortDirection::Ascending);
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
            .history
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
    .history;
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
    assert!(s.export.is_some());
    assert_eq!(
        settings(&["export", "-d", "1s"]).source.interval,
        Duration::from_secs(1)
    );
    assert_eq!(
        settings(&["-d", "1s", "export"]).source.interval,
        Duration::from_secs(1)
    );
    assert_eq!(
        settings(&["export", "--trend-window", "1m"]).history.window,
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
    assert_eq!(s.history.window, Duration::from_secs(600));
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
fn the_exporters_delay_help_names_its_default() {
    assert_eq!(
        crate::settings::format_duration(crate::export::DEFAULT_INTERVAL),
        "15s",
        "ExportArgs::delay's help says 15s"
    );
}

#[test]
fn group_comes_from_the_command_line_over_the_config_file() {
    assert_eq!(settings(&[]).report.group, OwnerGroup::Process);
    assert_eq!(settings(&["--group", "pod"]).report.group, OwnerGroup::Pod);
    assert_eq!(
        settings(&["--group", "container"]).app_config().group,
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
    use crate::interactive::widgets::theme::ThemeKind;
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
    assert!(!settings(&[]).app_config().read_only);
    assert!(settings(&["--read-only"]).app_config().read_only);
    let file = "[interactive]\nread_only = true\n";
    assert!(with_file(&[], file).unwrap().app_config().read_only);
    let off = "[interactive]\nread_only = false\n";
    assert!(
        with_file(&["--read-only"], off)
            .unwrap()
            .app_config()
            .read_only
    );
}
