//! The Prometheus HTTP API's JSON answers (`/api/v1/query`, `/api/v1/query_range`), read with
//! bounds: the bytes are bounded by the client, the series here; every way a body can be wrong
//! (not JSON, cut short, an API error, an unexpected result type, a value that is not a number)
//! is an [`ApiError`], and Prometheus' warnings and infos come back with the data.

use crate::fleet::sample::Sample;
use crate::model::UnixMs;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use thiserror::Error;

/// The most series one answer may carry before restop refuses it.
pub(crate) const MAX_SERIES: usize = 200_000;

#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ApiError {
    #[error("answer is not JSON (is the URL a Prometheus server?): {excerpt}")]
    NotJson { excerpt: String },
    #[error("answer cut short (truncated JSON)")]
    Truncated,
    #[error("answer is not the Prometheus API's: {0}")]
    Malformed(String),
    #[error("query failed: {error_type}: {message}")]
    Failed { error_type: String, message: String },
    #[error("answer has more than {limit} series")]
    TooManySeries { limit: usize },
    #[error("expected a {expected} result, got {got}")]
    UnexpectedType { expected: &'static str, got: String },
}

/// The result of an instant query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instant {
    /// Prometheus' evaluation time (its clock), from the first sample.
    pub eval_time: Option<UnixMs>,
    pub samples: Vec<Sample>,
    /// Warnings and infos: the answer may be partial.
    pub warnings: Vec<String>,
}

/// One series of a range query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    pub labels: Vec<(String, String)>,
    pub points: Vec<(UnixMs, f64)>,
}

/// The result of a range query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Range {
    pub series: Vec<Series>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Envelope {
    status: String,
    data: Option<Data>,
    #[serde(rename = "errorType")]
    error_type: Option<String>,
    error: Option<String>,
    #[serde(default)]
    warnings: Vec<String>,
    #[serde(default)]
    infos: Vec<String>,
}

#[derive(Deserialize)]
struct Data {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<Value>,
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    value: Option<(f64, String)>,
    values: Option<Vec<(f64, String)>>,
}

/// Reads the envelope: the data of a success, or the API's own error.
fn envelope(body: &[u8]) -> Result<(Data, Vec<String>), ApiError> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Err(ApiError::NotJson {
            excerpt: crate::fleet::http::excerpt(body),
        });
    }
    let env: Envelope = serde_json::from_slice(body).map_err(|e| {
        if e.is_eof() {
            ApiError::Truncated
        } else {
            ApiError::Malformed(e.to_string())
        }
    })?;
    let mut warnings = env.warnings;
    warnings.extend(env.infos);
    if env.status != "success" {
        return Err(ApiError::Failed {
            error_type: env.error_type.unwrap_or_else(|| "error".into()),
            message: env.error.unwrap_or_default(),
        });
    }
    let data = env
        .data
        .ok_or_else(|| ApiError::Malformed("success without data".into()))?;
    if data.result.len() > MAX_SERIES {
        return Err(ApiError::TooManySeries { limit: MAX_SERIES });
    }
    Ok((data, warnings))
}

fn number(text: &str) -> Result<f64, ApiError> {
    match text {
        "+Inf" | "Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ => text
            .parse()
            .map_err(|_| ApiError::Malformed(format!("value {text:?} is not a number"))),
    }
}

fn unix_ms(seconds: f64) -> UnixMs {
    if seconds.is_finite() && seconds > 0.0 {
        UnixMs((seconds * 1000.0) as u64)
    } else {
        UnixMs(0)
    }
}

fn series(value: Value) -> Result<RawSeries, ApiError> {
    serde_json::from_value(value).map_err(|e| ApiError::Malformed(e.to_string()))
}

fn split_name(metric: BTreeMap<String, String>) -> (String, Vec<(String, String)>) {
    let mut name = String::new();
    let labels = metric
        .into_iter()
        .filter_map(|(k, v)| {
            if k == "__name__" {
                name = v;
                None
            } else {
                Some((k, v))
            }
        })
        .collect();
    (name, labels)
}

/// An instant query's answer (a vector; a scalar becomes one sample without labels).
pub fn parse_instant(body: &[u8]) -> Result<Instant, ApiError> {
    let (data, warnings) = envelope(body)?;
    let mut out = Instant {
        warnings,
        ..Instant::default()
    };
    match data.result_type.as_str() {
        "vector" => {
            for raw in data.result {
                let raw = series(raw)?;
                let (ts, text) = raw
                    .value
                    .ok_or_else(|| ApiError::Malformed("vector sample without value".into()))?;
                out.eval_time.get_or_insert(unix_ms(ts));
                let (name, labels) = split_name(raw.metric);
                out.samples.push(Sample {
                    name,
                    labels,
                    value: number(&text)?,
                });
            }
        }
        "scalar" => {
            let pair: (f64, String) = serde_json::from_value(Value::Array(data.result))
                .map_err(|e| ApiError::Malformed(e.to_string()))?;
            out.eval_time = Some(unix_ms(pair.0));
            out.samples.push(Sample {
                value: number(&pair.1)?,
                ..Sample::default()
            });
        }
        other => {
            return Err(ApiError::UnexpectedType {
                expected: "vector",
                got: other.into(),
            });
        }
    }
    Ok(out)
}

/// A range query's answer (a matrix). The points of all series together are bounded too.
pub fn parse_range(body: &[u8]) -> Result<Range, ApiError> {
    let (data, warnings) = envelope(body)?;
    if data.result_type != "matrix" {
        return Err(ApiError::UnexpectedType {
            expected: "matrix",
            got: data.result_type,
        });
    }
    let mut out = Range {
        warnings,
        ..Range::default()
    };
    let mut points = 0usize;
    for raw in data.result {
        let raw = series(raw)?;
        let values = raw.values.unwrap_or_default();
        points += values.len();
        if points > MAX_SERIES * 10 {
            return Err(ApiError::TooManySeries { limit: MAX_SERIES });
        }
        let (_, labels) = split_name(raw.metric);
        let points = values
            .into_iter()
            .map(|(ts, v)| number(&v).map(|v| (unix_ms(ts), v)))
            .collect::<Result<_, _>>()?;
        out.series.push(Series { labels, points });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_answer_gives_samples_the_eval_time_and_warnings() {
        let body = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up","instance":"a:9879"},"value":[1767225600.5,"1"]},
            {"metric":{"instance":"b:9879"},"value":[1767225600.5,"NaN"]}]},
            "warnings":["partial: store down"],"infos":["info"]}"#;
        let answer = parse_instant(body).unwrap();
        assert_eq!(answer.eval_time, Some(UnixMs(1_767_225_600_500)));
        assert_eq!(answer.samples[0].name, "up");
        assert_eq!(answer.samples[0].label("instance"), "a:9879");
        assert!(answer.samples[1].value.is_nan());
        assert_eq!(answer.warnings, ["partial: store down", "info"]);
    }

    #[test]
    fn api_errors_and_bad_bodies_are_typed() {
        let err = parse_instant(
            br#"{"status":"error","errorType":"bad_data","error":"parse error at char 3"}"#,
        );
        assert_eq!(
            err,
            Err(ApiError::Failed {
                error_type: "bad_data".into(),
                message: "parse error at char 3".into()
            })
        );
        assert!(matches!(
            parse_instant(b"<html>502 Bad Gateway</html>"),
            Err(ApiError::NotJson { .. })
        ));
        assert_eq!(
            parse_instant(br#"{"status":"success","data":{"resultType":"vec"#),
            Err(ApiError::Truncated)
        );
        assert!(matches!(
            parse_instant(br#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#),
            Err(ApiError::UnexpectedType { .. })
        ));
        assert!(matches!(
            parse_instant(
                br#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}}"#
            ),
            Err(ApiError::Malformed(_))
        ));
        assert!(matches!(
            parse_instant(br#"{"status":"success"}"#),
            Err(ApiError::Malformed(_))
        ));
        assert!(matches!(parse_instant(b""), Err(ApiError::NotJson { .. })));
        assert!(matches!(
            parse_instant(br#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}}"#),
            Err(ApiError::Malformed(_))
        ));
    }

    #[test]
    fn a_matrix_answer_gives_points_per_series() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"node":"a"},"values":[[10,"1"],[25,"2.5"]]}]}}"#;
        let range = parse_range(body).unwrap();
        assert_eq!(range.series[0].labels, [("node".into(), "a".into())]);
        assert_eq!(
            range.series[0].points,
            [(UnixMs(10_000), 1.0), (UnixMs(25_000), 2.5)]
        );
    }

    #[test]
    fn a_scalar_answer_is_one_sample() {
        let answer = parse_instant(
            br#"{"status":"success","data":{"resultType":"scalar","result":[5,"42"]}}"#,
        )
        .unwrap();
        assert_eq!(answer.samples[0].value, 42.0);
        assert_eq!(answer.eval_time, Some(UnixMs(5_000)));
    }
}
