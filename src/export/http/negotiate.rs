//! Picking the exposition format from the scraper's `Accept` header, and the
//! compression from its `Accept-Encoding`.
//!
//! Prometheus 2.x asks for `application/openmetrics-text;version=1.0.0`
//! first and the text format at a lower q; curl and browsers send `*/*` or
//! nothing and get the text format. Prometheus sends `Accept-Encoding: gzip`
//! and gets the body gzip-compressed (about a tenth of the size on the wire).

use crate::export::exposition::Format;

/// The format to answer with. OpenMetrics only when named explicitly (a
/// wildcard never selects it) at a version restop writes, and preferred by q
/// (ties: whichever is listed first). Anything else gets the text format:
/// refusing a scrape over its Accept header helps nobody.
pub fn choose(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::Text;
    };
    let mut best_text: Option<(f32, usize)> = None;
    let mut best_om: Option<(f32, usize)> = None;
    for (position, range) in accept.split(',').enumerate() {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let mut q = 1.0f32;
        let mut version: Option<String> = None;
        for param in parts {
            let Some((name, value)) = param.split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                // A q that is not a number (or NaN) excludes the range.
                "q" => {
                    q = value
                        .parse::<f32>()
                        .ok()
                        .filter(|q| q.is_finite())
                        .unwrap_or(0.0)
                }
                "version" => version = Some(value.to_string()),
                _ => {}
            }
        }
        if q <= 0.0 {
            continue;
        }
        let slot = match media.as_str() {
            "application/openmetrics-text" if version.as_deref().is_none_or(|v| v == "1.0.0") => {
                &mut best_om
            }
            "text/plain" if version.as_deref().is_none_or(|v| v == "0.0.4") => &mut best_text,
            "text/*" | "*/*" => &mut best_text,
            _ => continue,
        };
        if slot.is_none_or(|(best_q, _)| q > best_q) {
            *slot = Some((q, position));
        }
    }
    match (best_om, best_text) {
        (Some(_), None) => Format::OpenMetrics,
        (Some((om_q, om_pos)), Some((text_q, text_pos)))
            if om_q > text_q || (om_q == text_q && om_pos < text_pos) =>
        {
            Format::OpenMetrics
        }
        _ => Format::Text,
    }
}

/// Whether `Accept-Encoding` accepts gzip: `gzip` (or `x-gzip`, or `*`) with a q above 0.
/// `identity` is always acceptable, so anything else means an uncompressed body.
pub(crate) fn wants_gzip(accept_encoding: Option<&str>) -> bool {
    let Some(accept_encoding) = accept_encoding else {
        return false;
    };
    let mut gzip: Option<f32> = None;
    let mut any: Option<f32> = None;
    for coding in accept_encoding.split(',') {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or("").to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .map(|(_, v)| {
                v.trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| q.is_finite())
                    .unwrap_or(0.0)
            })
            .unwrap_or(1.0);
        match name.as_str() {
            "gzip" | "x-gzip" => gzip = Some(gzip.map_or(q, |g: f32| g.max(q))),
            "*" => any = Some(q),
            _ => {}
        }
    }
    gzip.or(any).is_some_and(|q| q > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_when_asked_with_a_positive_q() {
        assert!(wants_gzip(Some("gzip")));
        assert!(wants_gzip(Some("gzip, deflate, br")));
        assert!(wants_gzip(Some("identity;q=0.5, GZIP;q=0.8")));
        assert!(wants_gzip(Some("*")));
        assert!(wants_gzip(Some("x-gzip")));
        assert!(!wants_gzip(None));
        assert!(!wants_gzip(Some("")));
        assert!(!wants_gzip(Some("identity")));
        assert!(!wants_gzip(Some("br, deflate")));
        assert!(!wants_gzip(Some("gzip;q=0")));
        assert!(!wants_gzip(Some("gzip;q=0, *")));
        assert!(!wants_gzip(Some("*;q=0")));
        assert!(!wants_gzip(Some("gzip;q=nonsense")));
    }

    #[test]
    fn prometheus_2_gets_openmetrics() {
        let accept = "application/openmetrics-text;version=1.0.0,\
                      application/openmetrics-text;version=0.0.1;q=0.75,\
                      text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(choose(Some(accept)), Format::OpenMetrics);
    }

    #[test]
    fn prometheus_3_gets_openmetrics_over_the_protobuf_it_prefers() {
        let accept = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;\
                      encoding=delimited;q=0.5,\
                      application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.4,\
                      application/openmetrics-text;version=0.0.1;q=0.3,\
                      text/plain;version=0.0.4;escaping=allow-utf-8;q=0.2,*/*;q=0.1";
        assert_eq!(choose(Some(accept)), Format::OpenMetrics);
    }

    #[test]
    fn curl_browsers_and_old_scrapers_get_text() {
        assert_eq!(choose(None), Format::Text);
        assert_eq!(choose(Some("*/*")), Format::Text);
        assert_eq!(
            choose(Some("text/html,application/xhtml+xml,*/*;q=0.8")),
            Format::Text
        );
        assert_eq!(choose(Some("text/plain;version=0.0.4")), Format::Text);
        assert_eq!(choose(Some("application/json")), Format::Text);
    }

    #[test]
    fn q_values_decide() {
        assert_eq!(
            choose(Some(
                "text/plain;q=0.9, application/openmetrics-text; q=0.3"
            )),
            Format::Text
        );
        assert_eq!(
            choose(Some("text/plain;q=0.2, application/openmetrics-text")),
            Format::OpenMetrics
        );
        assert_eq!(
            choose(Some("application/openmetrics-text;q=0, text/plain")),
            Format::Text
        );
    }

    #[test]
    fn unknown_openmetrics_versions_are_not_chosen() {
        assert_eq!(
            choose(Some("application/openmetrics-text;version=2.0.0")),
            Format::Text
        );
    }

    #[test]
    fn equal_q_goes_to_the_first_listed() {
        assert_eq!(
            choose(Some("application/openmetrics-text, text/plain")),
            Format::OpenMetrics
        );
        assert_eq!(
            choose(Some("text/plain, application/openmetrics-text")),
            Format::Text
        );
    }
}
