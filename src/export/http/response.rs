//! One HTTP/1.1 response: its status, head and body (`connections.rs` writes
//! it and closes the connection gracefully).
//! Every response says `Connection: close`: one request per connection keeps
//! the server simple and bounded, and scrapers reconnect at no real cost.

use crate::export::collector::Exposition;
use crate::export::exposition::Format;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) enum Body {
    Static(&'static [u8]),
    Owned(String),
    /// A body already encoded (gzip): sent as it is.
    Bytes(Vec<u8>),
    /// The latest exposition, shared with other scrapes: never copied.
    Metrics(Arc<Exposition>, Format),
}

impl Body {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Body::Static(b) => b,
            Body::Owned(s) => s.as_bytes(),
            Body::Bytes(b) => b,
            Body::Metrics(e, format) => e.body(*format),
        }
    }
}

pub(crate) struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub headers: Vec<(&'static str, &'static str)>,
    pub body: Body,
}

impl Response {
    /// A short plain-text error.
    pub(crate) fn error(status: u16, message: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            headers: Vec::new(),
            body: Body::Owned(format!("{status} {}: {message}\n", reason(status))),
        }
    }
}

/// The answer to `GET /metrics`: the latest exposition in `format`, gzip-compressed
/// when the scraper accepts it (`Vary: Accept-Encoding` either way, so a cache in
/// between keeps the two apart). Should compression fail, the plain body is sent.
pub(crate) fn metrics(exposition: Arc<Exposition>, format: Format, gzip: bool) -> Response {
    let mut headers = vec![("Vary", "Accept-Encoding")];
    let body = match gzip.then(|| gzip_bytes(exposition.body(format))) {
        Some(Ok(compressed)) => {
            headers.push(("Content-Encoding", "gzip"));
            Body::Bytes(compressed)
        }
        _ => Body::Metrics(exposition, format),
    };
    Response {
        status: 200,
        content_type: format.content_type(),
        headers,
        body,
    }
}

/// gzip at the default level: the exposition is repetitive text and shrinks about
/// tenfold.
pub(crate) fn gzip_bytes(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 8),
        flate2::Compression::default(),
    );
    encoder.write_all(bytes)?;
    encoder.finish()
}

pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// The status line and header fields.
pub(crate) fn head(response: &Response, now: SystemTime) -> String {
    let mut text = format!(
        "HTTP/1.1 {} {}\r\nDate: {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Connection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n",
        response.status,
        reason(response.status),
        http_date(now),
        response.content_type,
        response.body.bytes().len(),
    );
    for (name, value) in &response.headers {
        text.push_str(name);
        text.push_str(": ");
        text.push_str(value);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), for the Date header.
pub(crate) fn http_date(now: SystemTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = now
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    // "YYYY-MM-DDTHH:MM:SSZ"
    let iso = crate::output::rfc3339::from_unix_secs(secs);
    let field = |range: std::ops::Range<usize>| iso.get(range).unwrap_or("00");
    let month: usize = field(5..7).parse().unwrap_or(1);
    let day_of_week = (secs / 86_400 % 7) as usize;
    format!(
        "{}, {} {} {} {} GMT",
        DAYS.get(day_of_week).unwrap_or(&"Thu"),
        field(8..10),
        MONTHS.get(month.saturating_sub(1)).unwrap_or(&"Jan"),
        field(0..4),
        field(11..19),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn http_dates() {
        assert_eq!(http_date(UNIX_EPOCH), "Thu, 01 Jan 1970 00:00:00 GMT");
        let t = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(http_date(t), "Sun, 06 Nov 1994 08:49:37 GMT");
    }

    #[test]
    fn metrics_are_gzipped_only_when_asked() {
        use std::io::Read as _;
        let text = "restop_up{source=\"demo\"} 1\n".repeat(200);
        let exposition = Arc::new(Exposition {
            text: text.clone().into_bytes(),
            openmetrics: Vec::new(),
            collections: 1,
        });
        let plain = metrics(Arc::clone(&exposition), Format::Text, false);
        assert_eq!(plain.body.bytes(), text.as_bytes());
        assert!(!plain.headers.contains(&("Content-Encoding", "gzip")));
        let gz = metrics(exposition, Format::Text, true);
        assert!(gz.headers.contains(&("Content-Encoding", "gzip")));
        assert!(gz.headers.contains(&("Vary", "Accept-Encoding")));
        assert!(gz.body.bytes().len() < text.len() / 10);
        let mut back = String::new();
        flate2::read::GzDecoder::new(gz.body.bytes())
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, text);
        assert!(head(&gz, UNIX_EPOCH).contains(&format!(
            "\r\nContent-Length: {}\r\n",
            gz.body.bytes().len()
        )));
    }

    #[test]
    fn head_has_length_type_and_close() {
        let r = Response {
            status: 405,
            content_type: "text/plain; charset=utf-8",
            headers: vec![("Allow", "GET, HEAD")],
            body: Body::Static(b"no\n"),
        };
        let text = head(&r, UNIX_EPOCH);
        assert!(text.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"));
        assert!(text.contains("\r\nContent-Length: 3\r\n"));
        assert!(text.contains("\r\nConnection: close\r\n"));
        assert!(text.contains("\r\nAllow: GET, HEAD\r\n"));
        assert!(text.ends_with("\r\n\r\n"));
    }
}
