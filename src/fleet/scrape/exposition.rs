//! A parser for the Prometheus text exposition format (0.0.4), for direct scrapes of restop
//! exporters. Hand-written because the crates that parse it either panic or allocate without
//! bound on hostile input, or pull in a whole client library; this one keeps only the families
//! asked for (restop's own), and every bound (bytes per line, labels per sample, samples kept)
//! is a typed error or a counted skip, never a panic.
//!
//! Comments (`# HELP`, `# TYPE`, `# EOF`) are skipped; timestamps after the value are ignored.

use crate::fleet::sample::Sample;
use thiserror::Error;

/// Bounds on what one exposition may make restop hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub max_line_bytes: usize,
    pub max_labels: usize,
    pub max_samples: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_line_bytes: 64 * 1024,
            max_labels: 32,
            max_samples: 200_000,
        }
    }
}

/// Why an exposition could not be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ExpositionError {
    #[error("line {line}: {why}")]
    Malformed { line: usize, why: &'static str },
    #[error("line {line} is longer than {limit} bytes")]
    LineTooLong { line: usize, limit: usize },
    #[error("more than {limit} samples of restop's families")]
    TooManySamples { limit: usize },
    #[error("not an exposition (no metric lines)")]
    Empty,
}

/// The samples whose name starts with `prefix`, in order.
pub fn parse(text: &str, prefix: &str, bounds: &Bounds) -> Result<Vec<Sample>, ExpositionError> {
    let mut out = Vec::new();
    let mut any_metric = false;
    for (index, raw) in text.split('\n').enumerate() {
        let line = index + 1;
        if raw.len() > bounds.max_line_bytes {
            return Err(ExpositionError::LineTooLong {
                line,
                limit: bounds.max_line_bytes,
            });
        }
        let raw = raw.trim_end_matches('\r').trim_start();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        any_metric = true;
        let name_end = raw.find(['{', ' ', '\t']).unwrap_or(raw.len());
        let name = &raw[..name_end];
        if !valid_name(name) {
            return Err(ExpositionError::Malformed {
                line,
                why: "bad metric name",
            });
        }
        if !name.starts_with(prefix) {
            continue;
        }
        if out.len() >= bounds.max_samples {
            return Err(ExpositionError::TooManySamples {
                limit: bounds.max_samples,
            });
        }
        out.push(
            sample(name, &raw[name_end..], bounds)
                .map_err(|why| ExpositionError::Malformed { line, why })?,
        );
    }
    if any_metric {
        Ok(out)
    } else {
        Err(ExpositionError::Empty)
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// The labels and value after a sample's name.
fn sample(name: &str, rest: &str, bounds: &Bounds) -> Result<Sample, &'static str> {
    let (labels, rest) = match rest.strip_prefix('{') {
        Some(inner) => labels(inner, bounds)?,
        None => (Vec::new(), rest),
    };
    let mut fields = rest.split_ascii_whitespace();
    let value = fields.next().ok_or("no value")?;
    let value = parse_value(value).ok_or("bad value")?;
    if let Some(ts) = fields.next()
        && ts.parse::<i64>().is_err()
    {
        return Err("bad timestamp");
    }
    if fields.next().is_some() {
        return Err("text after the timestamp");
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

fn parse_value(text: &str) -> Option<f64> {
    match text {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => text.parse().ok(),
    }
}

type Labels<'a> = (Vec<(String, String)>, &'a str);

/// `key="value",...}` and what follows the closing brace.
fn labels<'a>(mut text: &'a str, bounds: &Bounds) -> Result<Labels<'a>, &'static str> {
    let mut out = Vec::new();
    loop {
        text = text.trim_start();
        if let Some(rest) = text.strip_prefix('}') {
            return Ok((out, rest));
        }
        if out.len() >= bounds.max_labels {
            return Err("too many labels");
        }
        let eq = text.find('=').ok_or("label without '='")?;
        let key = text[..eq].trim();
        if !valid_name(key) || key.contains(':') {
            return Err("bad label name");
        }
        let after = text[eq + 1..].trim_start();
        let quoted = after.strip_prefix('"').ok_or("label value not quoted")?;
        let (value, rest) = label_value(quoted)?;
        out.push((key.to_string(), value));
        text = rest.trim_start();
        if let Some(rest) = text.strip_prefix(',') {
            text = rest;
        } else if !text.starts_with('}') {
            return Err("expected ',' or '}' after a label");
        }
    }
}

/// An escaped label value up to its closing quote, and the text after it.
fn label_value(text: &str) -> Result<(String, &str), &'static str> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, &text[i + 1..])),
            '\\' => match chars.next() {
                Some((_, 'n')) => value.push('\n'),
                Some((_, '\\')) => value.push('\\'),
                Some((_, '"')) => value.push('"'),
                Some((_, other)) => {
                    value.push('\\');
                    value.push(other);
                }
                None => return Err("label value cut after '\\'"),
            },
            c => value.push(c),
        }
    }
    Err("label value not closed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn restop(text: &str) -> Result<Vec<Sample>, ExpositionError> {
        parse(text, "restop_", &Bounds::default())
    }

    #[test]
    fn samples_with_escaped_labels_and_timestamps_are_read() {
        let text = "# HELP restop_up x\n# TYPE restop_up gauge\nrestop_up{source=\"demo\"} 1\n\
                    restop_process_resources{pid=\"7\",name=\"a \\\"q\\\" \\\\ b\\nc\",type=\"qp\",} 12 1700000000000\n\
                    go_goroutines 8\nrestop_leak_suspects 2e0\n# EOF\n";
        let samples = restop(text).unwrap();
        assert_eq!(samples.len(), 3);
        assert_eq!(samples[0].label("source"), "demo");
        assert_eq!(samples[1].label("name"), "a \"q\" \\ b\nc");
        assert_eq!(samples[1].value, 12.0);
        assert_eq!(samples[2].value, 2.0);
        assert_eq!(samples[2].label("absent"), "");
    }

    #[test]
    fn hostile_bodies_are_errors_never_panics() {
        let cases: &[&str] = &[
            "restop_up{source=\"demo} 1\n",
            "restop_up{source=demo} 1\n",
            "restop_up{source=\"demo\" 1\n",
            "restop_up{=\"x\"} 1\n",
            "restop_up{a=\"\\",
            "restop_up\n",
            "restop_up one\n",
            "restop_up 1 notatime\n",
            "restop_up 1 2 3\n",
            "9restop 1\n",
            "{} 1\n",
            "<html><body>hello</body></html>\n",
            "",
            "# only comments\n",
            "restop_up{é=\"x\"} 1\n",
        ];
        for case in cases {
            assert!(restop(case).is_err(), "{case:?} was accepted");
        }
    }

    #[test]
    fn bounds_are_typed_errors() {
        let bounds = Bounds {
            max_line_bytes: 40,
            max_labels: 2,
            max_samples: 2,
        };
        let long = format!("restop_up{{a=\"{}\"}} 1\n", "x".repeat(100));
        assert_eq!(
            parse(&long, "restop_", &bounds),
            Err(ExpositionError::LineTooLong { line: 1, limit: 40 })
        );
        assert!(parse("restop_up{a=\"1\",b=\"2\",c=\"3\"} 1\n", "restop_", &bounds).is_err());
        assert_eq!(
            parse("restop_a 1\nrestop_b 1\nrestop_c 1\n", "restop_", &bounds),
            Err(ExpositionError::TooManySamples { limit: 2 })
        );
        assert_eq!(
            parse("other_a 1\n", "restop_", &bounds).map(|s| s.len()),
            Ok(0)
        );
    }

    #[test]
    fn special_values_parse() {
        let s = restop("restop_a +Inf\nrestop_b -Inf\nrestop_c NaN\n").unwrap();
        assert!(s[0].value.is_infinite() && s[1].value < 0.0 && s[2].value.is_nan());
    }
}
