//! Parsing one HTTP/1.x request head, within a size budget: a client cannot
//! make the exporter buffer without end (`connections.rs` reads the socket
//! without blocking and bounds the time).

use std::io;

/// The parts of a request the exporter looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHead {
    pub method: String,
    /// The path, without query string.
    pub path: String,
    /// All `Accept` header values, comma-joined.
    pub accept: Option<String>,
    /// All `Accept-Encoding` header values, comma-joined.
    pub accept_encoding: Option<String>,
    /// The `Authorization` header's value (the last one, if repeated).
    pub authorization: Option<String>,
    /// A `Content-Length` above 0 or any `Transfer-Encoding`: the exporter
    /// takes no request bodies.
    pub has_body: bool,
}

/// Why no request could be read; each maps to a response (or to none).
#[derive(Debug)]
pub enum RequestError {
    /// The client closed before sending a whole head (nothing to answer).
    Closed,
    /// The head did not arrive within the time budget.
    Timeout,
    /// The head is larger than allowed.
    TooLarge,
    /// Not HTTP/1.0 or HTTP/1.1.
    Version,
    Malformed(&'static str),
    Io(io::Error),
}

/// Most header fields a request may have; more is not a scraper.
const MAX_HEADERS: usize = 64;

/// The largest request head accepted, its blank line included (SECURITY.md
/// and docs/exporter.md say 8 KiB). The readers may buffer one read more
/// before they see the end; a head past this is refused all the same.
pub(crate) const MAX_HEAD_BYTES: usize = 8 * 1024;

/// RFC 9110 §5.6.2: the characters of a field name.
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Index just past the head's end (`\r\n\r\n`, or a bare `\n\n` from lenient clients).
pub(crate) fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Parses a complete head (request line and header fields).
pub fn parse_head(bytes: &[u8]) -> Result<RequestHead, RequestError> {
    if bytes.len() > MAX_HEAD_BYTES {
        return Err(RequestError::TooLarge);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| RequestError::Malformed("not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines
        .next()
        .ok_or(RequestError::Malformed("no request line"))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(RequestError::Malformed("bad request line"));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(RequestError::Malformed("bad method"));
    }
    if !version.starts_with("HTTP/") {
        return Err(RequestError::Malformed("bad version"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(RequestError::Version);
    }
    let path = request_path(target).ok_or(RequestError::Malformed("bad target"))?;

    let mut accept: Option<String> = None;
    let mut accept_encoding: Option<String> = None;
    let mut authorization: Option<String> = None;
    let mut has_body = false;
    let mut headers = 0usize;
    for line in lines.take_while(|l| !l.is_empty()) {
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(RequestError::TooLarge);
        }
        if line.starts_with([' ', '\t']) {
            return Err(RequestError::Malformed("folded header line"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or(RequestError::Malformed("header without colon"))?;
        // RFC 9112 §5.1: whitespace before the colon must be rejected.
        if !is_token(name) {
            return Err(RequestError::Malformed("bad header name"));
        }
        let value = value.trim();
        if name.eq_ignore_ascii_case("accept") {
            accept = Some(match accept {
                Some(previous) => format!("{previous},{value}"),
                None => value.to_string(),
            });
        } else if name.eq_ignore_ascii_case("accept-encoding") {
            accept_encoding = Some(match accept_encoding {
                Some(previous) => format!("{previous},{value}"),
                None => value.to_string(),
            });
        } else if name.eq_ignore_ascii_case("authorization") {
            authorization = Some(value.to_string());
        } else if name.eq_ignore_ascii_case("content-length") {
            let n: u64 = value
                .parse()
                .map_err(|_| RequestError::Malformed("bad Content-Length"))?;
            has_body |= n > 0;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            has_body = true;
        }
    }
    Ok(RequestHead {
        method: method.to_string(),
        path,
        accept,
        accept_encoding,
        authorization,
        has_body,
    })
}

/// `/metrics?x=1` → `/metrics`; the absolute form `http://host:port/metrics`
/// (proxies send it) → `/metrics`.
fn request_path(target: &str) -> Option<String> {
    let without_query = target.split(['?', '#']).next().unwrap_or("");
    if without_query.starts_with('/') {
        return Some(without_query.to_string());
    }
    let rest = without_query
        .strip_prefix("http://")
        .or_else(|| without_query.strip_prefix("https://"))?;
    Some(match rest.find('/') {
        Some(i) => rest[i..].to_string(),
        None => "/".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RequestHead, RequestError> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn a_prometheus_scrape() {
        let head = parse(
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9879\r\nUser-Agent: Prometheus/2.42.0\r\n\
             Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n\
             X-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
        )
        .unwrap();
        assert_eq!(head.method, "GET");
        assert_eq!(head.path, "/metrics");
        assert!(
            head.accept
                .unwrap()
                .starts_with("application/openmetrics-text")
        );
        assert!(!head.has_body);
    }

    #[test]
    fn query_strings_and_absolute_targets_reduce_to_the_path() {
        assert_eq!(
            parse("GET /metrics?a=b HTTP/1.0\n\n").unwrap().path,
            "/metrics"
        );
        assert_eq!(
            parse("GET http://h:1/metrics HTTP/1.1\r\n\r\n")
                .unwrap()
                .path,
            "/metrics"
        );
        assert_eq!(parse("GET http://h:1 HTTP/1.1\r\n\r\n").unwrap().path, "/");
    }

    #[test]
    fn repeated_accept_headers_are_joined() {
        let head = parse("GET / HTTP/1.1\r\nAccept: a/b\r\naccept: c/d\r\n\r\n").unwrap();
        assert_eq!(head.accept.as_deref(), Some("a/b,c/d"));
    }

    #[test]
    fn bodies_are_noticed() {
        assert!(
            parse("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n")
                .unwrap()
                .has_body
        );
        assert!(
            !parse("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                .unwrap()
                .has_body
        );
        assert!(
            parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
                .unwrap()
                .has_body
        );
    }

    #[test]
    fn malformed_heads_are_rejected() {
        for bad in [
            "GET\r\n\r\n",
            "GET /metrics\r\n\r\n",
            "GET  /metrics HTTP/1.1\r\n\r\n",
            "G@T /metrics HTTP/1.1\r\n\r\n",
            "GET metrics HTTP/1.1\r\n\r\n",
            "GET / FTP/1.0\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
        ] {
            assert!(
                matches!(parse(bad), Err(RequestError::Malformed(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            parse("GET / HTTP/2.0\r\n\r\n"),
            Err(RequestError::Version)
        ));
    }

    #[test]
    fn too_many_headers() {
        let mut text = String::from("GET / HTTP/1.1\r\n");
        for i in 0..=MAX_HEADERS {
            text.push_str(&format!("X-{i}: y\r\n"));
        }
        text.push_str("\r\n");
        assert!(matches!(parse(&text), Err(RequestError::TooLarge)));
    }

    #[test]
    fn head_end_accepts_crlf_and_bare_lf() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(head_end(b"GET / HTTP/1.1\n\nbody"), Some(16));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n"), None);
    }

    /// Defect: `Host : x` was accepted (RFC 9112 §5.1 says reject).
    #[test]
    fn whitespace_before_the_colon_is_rejected() {
        for bad in [
            "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost\t: x\r\n\r\n",
            "GET / HTTP/1.1\r\n: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHo(st: x\r\n\r\n",
        ] {
            assert!(
                matches!(parse(bad), Err(RequestError::Malformed("bad header name"))),
                "{bad:?}"
            );
        }
        assert!(parse("GET / HTTP/1.1\r\nX-Scrape_Timeout.s: 1\r\n\r\n").is_ok());
    }

    /// Defect: the limit was 9,216 bytes (8 KiB plus one read), not 8 KiB.
    #[test]
    fn the_head_is_at_most_8_kib() {
        let head = |total: usize| {
            let start = "GET / HTTP/1.1\r\nX-Pad: ";
            let pad = "a".repeat(total - start.len() - 4);
            format!("{start}{pad}\r\n\r\n")
        };
        assert_eq!(head(MAX_HEAD_BYTES).len(), 8192);
        assert!(parse(&head(MAX_HEAD_BYTES)).is_ok());
        assert!(matches!(
            parse(&head(MAX_HEAD_BYTES + 1)),
            Err(RequestError::TooLarge)
        ));
        assert!(matches!(parse(&head(9000)), Err(RequestError::TooLarge)));
    }
}
