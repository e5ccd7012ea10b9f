//! The config file (`config.toml`): defaults for the options people set once
//! (interval, sort, columns, thresholds, trend settings). Parsed with serde +
//! toml; every value keeps its place in the file, so a bad one is reported with
//! its line and column, never replaced by a silent default. Unknown keys are
//! errors too: a misspelt key that did nothing would be a silent default.
//!
//! [`parse_config`] is pure (text in, defaults or an error out): the fuzz
//! target and the tests call it directly.

use super::duration::parse_duration;
use super::interactive::ThemeKind;
use super::values::{parse_resource_type, parse_sort_key};
use crate::model::ResourceType;
use crate::model::consumers::SortKey;
use crate::model::owner_group::OwnerGroup;
use serde::Deserialize;
use std::fmt;
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

/// The file's sections, as written. Values are checked in [`Defaults::from_raw`].
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    source: RawSource,
    #[serde(default)]
    report: RawReport,
    #[serde(default)]
    interactive: RawInteractive,
    #[serde(default)]
    trends: RawTrends,
    #[serde(default)]
    export: RawExport,
    /// `restop fleet`'s section, read and checked by `fleet/config.rs`.
    #[serde(default)]
    #[allow(dead_code)]
    fleet: Option<toml::Table>,
}

type Text = Option<Spanned<String>>;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    interval: Text,
    timeout: Text,
    objects_every: Text,
    verbs: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReport {
    sort: Text,
    top: Option<Spanned<i64>>,
    columns: Option<Vec<Spanned<String>>>,
    warn: Option<Spanned<f64>>,
    crit: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInteractive {
    mouse: Option<bool>,
    color: Option<bool>,
    group: Text,
    theme: Text,
    read_only: Option<bool>,
    ascii: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrends {
    retention: Text,
    window: Text,
    err_linger: Text,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExport {
    interval: Text,
    web_config_file: Text,
}

/// A percentage from the file, with the line it is on (the merged
/// thresholds are checked against each other later, and name that line).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percent {
    pub value: f64,
    pub line: usize,
}

/// Defaults from the config file; `None` where the file says nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defaults {
    pub interval: Option<Duration>,
    pub timeout: Option<Duration>,
    pub objects_every: Option<Duration>,
    pub verbs: Option<bool>,
    pub sort: Option<SortKey>,
    pub top: Option<usize>,
    /// Resource types shown as columns (as `--type`).
    pub columns: Option<Vec<ResourceType>>,
    pub warn: Option<Percent>,
    pub crit: Option<Percent>,
    pub mouse: Option<bool>,
    pub color: Option<bool>,
    /// The consumers table's rows at start (as `--group`).
    pub group: Option<OwnerGroup>,
    pub theme: Option<ThemeKind>,
    /// No signals to processes (`--read-only`).
    pub read_only: Option<bool>,
    /// ASCII only (`--ascii`); `false` keeps Unicode under a non-UTF-8 locale.
    pub ascii: Option<bool>,
    pub retention: Option<Duration>,
    pub trend_window: Option<Duration>,
    pub err_linger: Option<Duration>,
    pub export_interval: Option<Duration>,
    /// `[export] web_config_file`, as written (`resolve` takes it relative
    /// to the config file's directory).
    pub export_web_config: Option<std::path::PathBuf>,
}

/// A config file that cannot be used: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// 1-based; 0 when the error has no place (an empty span).
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The text of that line, shown under the message.
    pub source_line: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}", self.message);
        }
        write!(
            f,
            "line {}, column {}: {}\n  {} | {}",
            self.line, self.column, self.message, self.line, self.source_line
        )
    }
}

impl std::error::Error for ConfigError {}

/// Parses and checks a config file's text.
pub fn parse_config(text: &str) -> Result<Defaults, ConfigError> {
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let message = e.message().trim_end().to_string();
        match e.span() {
            Some(span) => at(text, span, message),
            None => ConfigError {
                line: 0,
                column: 0,
                message,
                source_line: String::new(),
            },
        }
    })?;
    Defaults::from_raw(text, raw)
}

/// An error at `span` of `text`.
fn at(text: &str, span: Range<usize>, message: String) -> ConfigError {
    let start = span.start.min(text.len());
    let before = text.get(..start).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text
        .get(line_start..start)
        .map_or(1, |s| s.chars().count() + 1);
    let source_line = text
        .get(line_start..)
        .and_then(|rest| rest.lines().next())
        .unwrap_or("")
        .to_string();
    ConfigError {
        line,
        column,
        message,
        source_line,
    }
}

impl Defaults {
    fn from_raw(text: &str, raw: Raw) -> Result<Defaults, ConfigError> {
        let duration = |key: &str, value: &Text| -> Result<Option<Duration>, ConfigError> {
            value
                .as_ref()
                .map(|v| {
                    parse_duration(v.get_ref())
                        .map_err(|e| at(text, v.span(), format!("{key}: {e}")))
                })
                .transpose()
        };
        let r = &raw.report;
        let defaults = Defaults {
            interval: duration("source.interval", &raw.source.interval)?,
            timeout: duration("source.timeout", &raw.source.timeout)?,
            objects_every: duration("source.objects_every", &raw.source.objects_every)?,
            verbs: raw.source.verbs,
            sort: r
                .sort
                .as_ref()
                .map(|v| sort_key(v.get_ref()).map_err(|e| at(text, v.span(), e)))
                .transpose()?,
            top: r.top.as_ref().map(|v| top(text, v)).transpose()?,
            columns: r.columns.as_ref().map(|v| columns(text, v)).transpose()?,
            warn: r
                .warn
                .as_ref()
                .map(|v| percent(text, "warn", v))
                .transpose()?,
            crit: r
                .crit
                .as_ref()
                .map(|v| percent(text, "crit", v))
                .transpose()?,
            mouse: raw.interactive.mouse,
            color: raw.interactive.color,
            read_only: raw.interactive.read_only,
            ascii: raw.interactive.ascii,
            group: raw
                .interactive
                .group
                .as_ref()
                .map(|v| group(v.get_ref()).map_err(|e| at(text, v.span(), e)))
                .transpose()?,
            theme: raw
                .interactive
                .theme
                .as_ref()
                .map(|v| {
                    ThemeKind::parse(v.get_ref()).ok_or_else(|| {
                        at(
                            text,
                            v.span(),
                            format!(
                                "unknown theme `{}` (default, light, high-contrast)",
                                v.get_ref()
                            ),
                        )
                    })
                })
                .transpose()?,
            retention: duration("trends.retention", &raw.trends.retention)?,
            trend_window: duration("trends.window", &raw.trends.window)?,
            err_linger: duration("trends.err_linger", &raw.trends.err_linger)?,
            export_interval: duration("export.interval", &raw.export.interval)?,
            export_web_config: raw
                .export
                .web_config_file
                .as_ref()
                .map(|v| std::path::PathBuf::from(v.get_ref())),
        };
        if let (Some(warn), Some(crit), Some(span)) = (
            defaults.warn,
            defaults.crit,
            r.warn.as_ref().map(Spanned::span),
        ) && warn.value >= crit.value
        {
            return Err(at(
                text,
                span,
                format!(
                    "warn {} must be below crit {} (defaults: 80 and 95)",
                    warn.value, crit.value
                ),
            ));
        }
        Ok(defaults)
    }
}

fn group(name: &str) -> Result<OwnerGroup, String> {
    OwnerGroup::from_name(name).ok_or_else(|| {
        format!("group: unknown grouping {name:?}: expected process, container or pod")
    })
}

fn sort_key(name: &str) -> Result<SortKey, String> {
    parse_sort_key(name).map_err(|e| format!("sort: {e}"))
}

fn top(text: &str, value: &Spanned<i64>) -> Result<usize, ConfigError> {
    usize::try_from(*value.get_ref()).map_err(|_| {
        at(
            text,
            value.span(),
            "top: must be 0 (all rows) or more".into(),
        )
    })
}

fn columns(text: &str, names: &[Spanned<String>]) -> Result<Vec<ResourceType>, ConfigError> {
    let mut types = Vec::new();
    for name in names {
        let t = parse_resource_type(name.get_ref())
            .map_err(|e| at(text, name.span(), format!("columns: {e}")))?;
        if !types.contains(&t) {
            types.push(t);
        }
    }
    Ok(types)
}

fn percent(text: &str, key: &str, value: &Spanned<f64>) -> Result<Percent, ConfigError> {
    let v = *value.get_ref();
    if !v.is_finite() || v <= 0.0 || v > 100.0 {
        return Err(at(
            text,
            value.span(),
            format!("{key} {v}: a percentage greater than 0 and at most 100"),
        ));
    }
    let line = at(text, value.span(), String::new()).line;
    Ok(Percent { value: v, line })
}

#[cfg(test)]
mod tests;
