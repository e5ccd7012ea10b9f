//! The config file's parser on good and bad text: every error names its
//! line, nothing bad becomes a default.

use super::*;

fn error(text: &str) -> ConfigError {
    parse_config(text).unwrap_err()
}

#[test]
fn an_empty_file_sets_nothing() {
    assert_eq!(parse_config("").unwrap(), Defaults::default());
    assert_eq!(
        parse_config("# only a comment\n").unwrap(),
        Defaults::default()
    );
}

#[test]
fn every_key_is_read() {
    let d = parse_config(include_str!("../../../assets/config.example.toml")).unwrap();
    assert_eq!(d.interval, Some(Duration::from_secs(2)));
    assert_eq!(d.sort, Some(SortKey::Count(ResourceType::Qp)));
    assert_eq!(d.top, Some(20));
    assert_eq!(d.warn.map(|p| p.value), Some(80.0));
    assert_eq!(d.crit.map(|p| p.value), Some(95.0));
    assert_eq!(d.retention, Some(Duration::from_secs(600)));
    assert_eq!(d.export_interval, Some(Duration::from_secs(15)));
    assert_eq!(d.read_only, Some(false));
    assert_eq!(d.group, Some(OwnerGroup::Process));
    let text = "[source]\ninterval = \"1m30s\"\ntimeout = \"500ms\"\nobjects_every = \"1h\"\n\
                verbs = false\n[report]\ncolumns = [\"qp\", \"MR\", \"qp\"]\n\
                [interactive]\nmouse = false\ncolor = false\n\
                [trends]\nwindow = \"15m\"\nerr_linger = \"5m\"\n";
    let d = parse_config(text).unwrap();
    assert_eq!(d.interval, Some(Duration::from_secs(90)));
    assert_eq!(d.timeout, Some(Duration::from_millis(500)));
    assert_eq!(d.objects_every, Some(Duration::from_secs(3600)));
    assert_eq!(d.verbs, Some(false));
    assert_eq!(d.columns, Some(vec![ResourceType::Qp, ResourceType::Mr]));
    assert_eq!((d.mouse, d.color), (Some(false), Some(false)));
    assert_eq!(d.trend_window, Some(Duration::from_secs(900)));
    assert_eq!(d.err_linger, Some(Duration::from_secs(300)));
}

#[test]
fn a_bad_duration_names_its_key_and_line() {
    let e = error("# defaults\n[source]\ninterval = \"soon\"\n");
    assert_eq!((e.line, e.column), (3, 12));
    assert!(e.message.contains("source.interval"), "{e}");
    assert!(e.message.contains("1m30s"), "{e}");
    assert_eq!(e.source_line, "interval = \"soon\"");
    let shown = e.to_string();
    assert!(shown.starts_with("line 3, column 12: "), "{shown}");
    assert!(shown.ends_with("3 | interval = \"soon\""), "{shown}");
    assert_eq!(error("[trends]\nwindow = \"0s\"\n").line, 2);
}

#[test]
fn unknown_keys_and_sections_are_errors() {
    let e = error("[source]\nintervall = \"2s\"\n");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("intervall"), "{e}");
    assert!(e.message.contains("interval"), "lists the known keys: {e}");
    let e = error("[sauce]\ninterval = \"2s\"\n");
    assert_eq!(e.line, 1);
    assert!(e.message.contains("sauce"), "{e}");
    assert!(error("interval = \"2s\"\n").message.contains("interval"));
}

#[test]
fn wrong_types_and_syntax_name_their_line() {
    let e = error("[report]\ntop = \"many\"\n");
    assert_eq!(e.line, 2);
    let e = error("[report]\nsort = \"qp\"\nwarn = \n");
    assert_eq!(e.line, 3);
    let e = error("[interactive]\nmouse = \"no\"\n");
    assert_eq!(e.line, 2);
    assert_eq!(error("[report\n").line, 1);
}

#[test]
fn bad_values_are_refused_with_their_line() {
    for (text, line, says) in [
        ("[report]\nsort = \"colour\"\n", 2, "unknown sort key"),
        (
            "[interactive]\ngroup = \"node\"\n",
            2,
            "group: unknown grouping",
        ),
        ("[report]\ntop = -1\n", 2, "top"),
        ("[report]\ncolumns = [\"qp\", \"counter\"]\n", 2, "counter"),
        ("[report]\nwarn = 0\n", 2, "warn 0"),
        ("[report]\n\ncrit = 101\n", 3, "crit 101"),
        ("[report]\nwarn = 96\ncrit = 95\n", 2, "must be below crit"),
    ] {
        let e = error(text);
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(says), "{text}: {e}");
    }
}

#[test]
fn hostile_text_is_an_error_not_a_panic() {
    for text in [
        "\u{0}",
        "[",
        "a = \"\\uD800\"",
        "[report]\nwarn = nan\n",
        "[report]\nwarn = inf\n",
        "[report]\ntop = 99999999999999999999\n",
        "[[source]]\n",
        "[source]\ninterval = \"9999999999999999999999h\"\n",
        "\n\n\n[source]\ninterval = \"é\"",
    ] {
        assert!(parse_config(text).is_err(), "{text:?}");
    }
}

#[test]
fn the_theme_is_read_and_an_unknown_one_names_its_line() {
    let d = parse_config("[interactive]\ntheme = \"high-contrast\"\n").unwrap();
    assert_eq!(d.theme, Some(ThemeKind::HighContrast));
    let e = error("[interactive]\ntheme = \"solarized\"\n");
    assert_eq!(e.line, 2);
    assert!(e.to_string().contains("unknown theme `solarized`"), "{e}");
}
