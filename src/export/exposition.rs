//! Writing metric families in the Prometheus text format (0.0.4) or in
//! OpenMetrics 1.0: metadata lines, samples, label escaping, numbers.
//!
//! The two formats differ only in details this writer owns: OpenMetrics names
//! a counter family without `_total` and ends the document with `# EOF`.

use super::catalog::{Family, MetricType};
use super::device_labels::DeviceLabels;
use std::fmt::Write as _;

/// Which exposition format to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Prometheus text format 0.0.4: what `promtool check metrics` and
    /// node_exporter's textfile collector read.
    Text,
    /// OpenMetrics 1.0.0, when the scraper asks for it.
    OpenMetrics,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// A sample value. Counts are written as exact integers (an `f64` loses
/// precision above 2^53, and MR bytes get there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int(u64),
    Float(f64),
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Int(n)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}

/// Builds one exposition document. Each family's HELP and TYPE are written
/// before its first sample, so a family without samples leaves no trace and
/// families are never interleaved as long as callers finish one before the next.
pub(crate) struct Writer {
    format: Format,
    out: String,
    open_family: Option<&'static str>,
}

impl Writer {
    pub(crate) fn new(format: Format) -> Writer {
        Writer {
            format,
            out: String::with_capacity(16 * 1024),
            open_family: None,
        }
    }

    /// Writes one sample of `family`; `values` are its label values, in the
    /// order of the family's label names.
    pub(crate) fn sample(
        &mut self,
        family: &'static Family,
        values: &[&str],
        value: impl Into<Value>,
    ) {
        debug_assert_eq!(family.labels.len(), values.len(), "{}", family.name);
        debug_assert!(!is_device_scoped(family), "{}: device_sample", family.name);
        let labels = family.labels.iter().copied().zip(values.iter().copied());
        self.write_sample(family, labels, value.into());
    }

    /// Writes one sample of `family` with the labels named in `labels`, a subset of the
    /// family's label names in their order (labels a deployment turned off, such as
    /// `pid`, are left out rather than written empty).
    pub(crate) fn sample_labeled(
        &mut self,
        family: &'static Family,
        labels: &[(&str, &str)],
        value: impl Into<Value>,
    ) {
        debug_assert!(
            labels.iter().all(|(name, _)| family.labels.contains(name)),
            "{}",
            family.name
        );
        debug_assert!(!is_device_scoped(family), "{}: device_sample", family.name);
        self.write_sample(family, labels.iter().copied(), value.into());
    }

    /// Writes one sample of a device-scoped family: `device` and `netns` from
    /// `device` (`netns` left out on a device of restop's own namespace), the
    /// other labels from `labels` by name, all in the family's order (a label
    /// missing from `labels` is left out, as in [`Writer::sample_labeled`]).
    pub(crate) fn device_sample(
        &mut self,
        family: &'static Family,
        device: &DeviceLabels<'_>,
        labels: &[(&str, &str)],
        value: impl Into<Value>,
    ) {
        debug_assert!(is_device_scoped(family), "{}", family.name);
        debug_assert!(
            labels.iter().all(|(name, _)| family.labels.contains(name)
                && *name != "device"
                && *name != "netns"),
            "{}",
            family.name
        );
        let netns = device.netns();
        let ordered = family.labels.iter().filter_map(|&name| match name {
            "device" => Some((name, device.device)),
            "netns" => netns.map(|ns| (name, ns)),
            _ => labels.iter().find(|(n, _)| *n == name).copied(),
        });
        self.write_sample(family, ordered, value.into());
    }

    /// `name{label="value",...} value`, after the family's metadata when it
    /// is the first sample of the family.
    fn write_sample<'a>(
        &mut self,
        family: &'static Family,
        labels: impl Iterator<Item = (&'a str, &'a str)>,
        value: Value,
    ) {
        if self.open_family != Some(family.name) {
            self.metadata(family);
            self.open_family = Some(family.name);
        }
        self.out.push_str(family.name);
        let mut labels = labels.peekable();
        if labels.peek().is_some() {
            self.out.push('{');
            for (i, (name, text)) in labels.enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(name);
                self.out.push_str("=\"");
                escape_label_value(text, &mut self.out);
                self.out.push('"');
            }
            self.out.push('}');
        }
        self.out.push(' ');
        write_value(value, &mut self.out);
        self.out.push('\n');
    }

    fn metadata(&mut self, family: &Family) {
        let name = match (self.format, family.kind) {
            (Format::OpenMetrics, MetricType::Counter) => {
                family.name.strip_suffix("_total").unwrap_or(family.name)
            }
            _ => family.name,
        };
        let _ = write!(self.out, "# HELP {name} ");
        escape_help(family.help, &mut self.out);
        let _ = writeln!(self.out, "\n# TYPE {name} {}", family.kind.name());
    }

    pub(crate) fn finish(mut self) -> String {
        if self.format == Format::OpenMetrics {
            self.out.push_str("# EOF\n");
        }
        self.out
    }
}

/// A family whose series are about one device: it has `device` (and so
/// `netns`, `device_labels.rs`).
pub(crate) fn is_device_scoped(family: &Family) -> bool {
    family.labels.contains(&"device")
}

/// Label values may hold anything (process names come from the processes
/// themselves): backslash, double quote and line feed are escaped, as both
/// formats require.
pub(crate) fn escape_label_value(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            other => out.push(other),
        }
    }
}

/// HELP text escapes backslash and line feed (text format); OpenMetrics also
/// accepts `\"`, which help text never needs since quotes are legal there.
fn escape_help(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            other => out.push(other),
        }
    }
}

fn write_value(value: Value, out: &mut String) {
    match value {
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(x) if x.is_nan() => out.push_str("NaN"),
        Value::Float(x) if x.is_infinite() => {
            out.push_str(if x > 0.0 { "+Inf" } else { "-Inf" });
        }
        // Rust's shortest round-trip form, never an exponent: valid in both formats.
        Value::Float(x) => {
            let _ = write!(out, "{x}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::catalog;

    #[test]
    fn label_values_escape_backslash_quote_and_newline() {
        let mut out = String::new();
        escape_label_value("a\\b\"c\nd é", &mut out);
        assert_eq!(out, r#"a\\b\"c\nd é"#);
    }

    #[test]
    fn text_format_keeps_total_in_counter_metadata() {
        let mut w = Writer::new(Format::Text);
        w.sample(&catalog::COLLECTIONS, &[], 3u64);
        assert_eq!(
            w.finish(),
            "# HELP restop_collections_total Collections attempted since the exporter started, \
             successful or not.\n# TYPE restop_collections_total counter\n\
             restop_collections_total 3\n"
        );
    }

    #[test]
    fn openmetrics_names_counter_families_without_total_and_ends_with_eof() {
        let mut w = Writer::new(Format::OpenMetrics);
        w.sample(&catalog::COLLECTION_ERRORS, &["timeout"], 0u64);
        let text = w.finish();
        assert!(
            text.contains("# TYPE restop_collection_errors counter\n"),
            "{text}"
        );
        assert!(text.contains("\nrestop_collection_errors_total{kind=\"timeout\"} 0\n"));
        assert!(text.ends_with("# EOF\n"));
    }

    #[test]
    fn metadata_once_per_family() {
        let mut w = Writer::new(Format::Text);
        for (device, n) in [("mlx5_0", 1u64), ("mlx5_1", 2)] {
            let device = DeviceLabels {
                device,
                netns: None,
            };
            w.device_sample(&catalog::RESOURCES, &device, &[("type", "qp")], n);
        }
        let text = w.finish();
        assert_eq!(text.matches("# TYPE").count(), 1);
        assert!(text.ends_with(
            "restop_resources{device=\"mlx5_0\",type=\"qp\"} 1\n\
             restop_resources{device=\"mlx5_1\",type=\"qp\"} 2\n"
        ));
    }

    #[test]
    fn numbers() {
        let mut s = String::new();
        for v in [
            Value::Int(u64::MAX),
            Value::Float(0.25),
            Value::Float(1.0),
            Value::Float(1e-7),
            Value::Float(f64::NAN),
            Value::Float(f64::INFINITY),
        ] {
            write_value(v, &mut s);
            s.push(' ');
        }
        assert_eq!(s, "18446744073709551615 0.25 1 0.0000001 NaN +Inf ");
    }
}
