//! The HTTP side of `restop fleet`: one synchronous client (ureq with rustls and gzip) with the
//! settings real Prometheus servers need (a CA file, a bearer token, basic auth, extra headers
//! for proxies), a timeout over the whole exchange and a bound on the bytes read. Every failure
//! is a [`FetchError`] that says what happened in words an operator can act on.

use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;
use ureq::Agent;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

/// How to reach an HTTP server, as the command line and the config file give it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpOptions {
    /// Extra CA certificates (PEM) to trust instead of the built-in web roots.
    pub ca_file: Option<PathBuf>,
    /// A file holding a bearer token (as Kubernetes mounts service-account tokens).
    pub bearer_token_file: Option<PathBuf>,
    /// Basic auth: the user and the password read from a file or an environment variable.
    pub basic: Option<(String, String)>,
    /// `Name: value` headers added to every request.
    pub headers: Vec<(String, String)>,
    /// The longest one request may take, answer included.
    pub timeout: Duration,
    /// The most bytes of one answer read (after gzip); past it the answer is refused.
    pub max_bytes: u64,
}

/// What went wrong reaching a server or reading its answer.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FetchError {
    #[error("{url}: not reachable ({why})")]
    Down { url: String, why: String },
    #[error("{url}: no answer within {}s", .after.as_secs_f64())]
    Timeout { url: String, after: Duration },
    #[error("{url}: 401 Unauthorized (check --bearer-token-file or --user)")]
    Unauthorized { url: String },
    #[error("{url}: 403 Forbidden (the credentials are not allowed to query)")]
    Forbidden { url: String },
    #[error("{url}: server error {status}{}", excerpt_suffix(.excerpt))]
    ServerError {
        url: String,
        status: u16,
        excerpt: String,
    },
    #[error("{url}: HTTP {status}{}", excerpt_suffix(.excerpt))]
    Status {
        url: String,
        status: u16,
        excerpt: String,
    },
    #[error("{url}: answer larger than {limit} bytes, not read (raise --max-bytes)")]
    TooBig { url: String, limit: u64 },
    #[error("{url}: TLS: {why}")]
    Tls { url: String, why: String },
    #[error("{0}")]
    Setup(String),
}

fn excerpt_suffix(excerpt: &str) -> String {
    if excerpt.is_empty() {
        String::new()
    } else {
        format!(": {excerpt}")
    }
}

/// The first line of a body, cut short, for an error message.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let line = text.lines().next().unwrap_or("").trim();
    line.chars().take(120).collect()
}

/// A configured client. Cheap to share between threads (the agent's pool is behind an `Arc`).
#[derive(Clone, Debug)]
pub struct Client {
    agent: Agent,
    auth: Option<String>,
    headers: Vec<(String, String)>,
    timeout: Duration,
    max_bytes: u64,
}

/// A successful answer: the body and the headers restop reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl Client {
    /// Reads the CA file and the token file once; a missing or unreadable one is an error here,
    /// at start, not at every refresh.
    pub fn new(options: &HttpOptions) -> Result<Client, FetchError> {
        let mut tls = TlsConfig::builder();
        if let Some(path) = &options.ca_file {
            tls = tls.root_certs(read_ca_file(path)?);
        }
        let config = Agent::config_builder()
            .timeout_global(Some(options.timeout))
            .http_status_as_error(false)
            .user_agent(concat!("restop/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls.build())
            .build();
        let auth = match (&options.bearer_token_file, &options.basic) {
            (Some(path), _) => Some(format!("Bearer {}", read_token(path)?)),
            (None, Some((user, password))) => Some(format!(
                "Basic {}",
                base64(format!("{user}:{password}").as_bytes())
            )),
            (None, None) => None,
        };
        Ok(Client {
            agent: config.into(),
            auth,
            headers: options.headers.clone(),
            timeout: options.timeout,
            max_bytes: options.max_bytes,
        })
    }

    /// The same client, reading at most `max_bytes` of an answer (never more than its own
    /// bound): for answers whose size is known in advance, like the sparklines'.
    pub fn bounded(&self, max_bytes: u64) -> Client {
        Client {
            max_bytes: self.max_bytes.min(max_bytes),
            ..self.clone()
        }
    }

    /// GET `url` with `query` pairs; any 2xx answer is returned, with at most `max_bytes` read.
    /// Prometheus answers its own errors (400 bad query, 422, 503) with a JSON body, so those
    /// are returned too when `api_errors` is set, for the caller to read the message.
    pub fn get(
        &self,
        url: &str,
        query: &[(&str, &str)],
        accept: &str,
        api_errors: bool,
    ) -> Result<Answer, FetchError> {
        self.get_within(url, query, accept, api_errors, self.timeout)
    }

    /// [`Client::get`] with a shorter timeout (what is left of a refresh's deadline).
    pub fn get_within(
        &self,
        url: &str,
        query: &[(&str, &str)],
        accept: &str,
        api_errors: bool,
        timeout: Duration,
    ) -> Result<Answer, FetchError> {
        let timeout = timeout.min(self.timeout);
        let mut request = self
            .agent
            .get(url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Accept", accept);
        for (k, v) in query {
            request = request.query(*k, *v);
        }
        if let Some(auth) = &self.auth {
            request = request.header("Authorization", auth);
        }
        for (k, v) in &self.headers {
            request = request.header(k, v);
        }
        let mut response = request.call().map_err(|e| failure(url, e, timeout))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = response
            .body_mut()
            .with_config()
            .limit(self.max_bytes)
            .read_to_vec()
            .map_err(|e| failure(url, e, timeout))?;
        match status {
            200..=299 => Ok(Answer {
                status,
                content_type,
                body,
            }),
            401 => Err(FetchError::Unauthorized { url: url.into() }),
            403 => Err(FetchError::Forbidden { url: url.into() }),
            400 | 422 | 503 if api_errors && content_type.contains("json") => Ok(Answer {
                status,
                content_type,
                body,
            }),
            500..=599 => Err(FetchError::ServerError {
                url: url.into(),
                status,
                excerpt: excerpt(&body),
            }),
            _ => Err(FetchError::Status {
                url: url.into(),
                status,
                excerpt: excerpt(&body),
            }),
        }
    }
}

fn failure(url: &str, e: ureq::Error, after: Duration) -> FetchError {
    {
        let url = url.to_string();
        match e {
            ureq::Error::Timeout(_) => FetchError::Timeout { url, after },
            ureq::Error::BodyExceedsLimit(limit) => FetchError::TooBig { url, limit },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                FetchError::Timeout { url, after }
            }
            ureq::Error::Io(io) => match ureq::Error::from(io) {
                ureq::Error::BodyExceedsLimit(limit) => FetchError::TooBig { url, limit },
                ureq::Error::Timeout(_) => FetchError::Timeout { url, after },
                other => FetchError::Down {
                    url,
                    why: other.to_string(),
                },
            },
            ureq::Error::Tls(why) => FetchError::Tls {
                url,
                why: why.to_string(),
            },
            ureq::Error::Rustls(why) => FetchError::Tls {
                url,
                why: why.to_string(),
            },
            ureq::Error::HostNotFound => FetchError::Down {
                url,
                why: "host not found".into(),
            },
            other => FetchError::Down {
                url,
                why: other.to_string(),
            },
        }
    }
}

fn read_ca_file(path: &std::path::Path) -> Result<RootCerts, FetchError> {
    let pem = std::fs::read(path)
        .map_err(|e| FetchError::Setup(format!("--ca-file {}: {e}", path.display())))?;
    let mut certs: Vec<Certificate<'static>> = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => certs.push(cert),
            Ok(_) => {}
            Err(e) => {
                return Err(FetchError::Setup(format!(
                    "--ca-file {}: {e}",
                    path.display()
                )));
            }
        }
    }
    if certs.is_empty() {
        return Err(FetchError::Setup(format!(
            "--ca-file {}: no PEM certificate in it",
            path.display()
        )));
    }
    Ok(RootCerts::new_with_certs(&certs))
}

fn read_token(path: &std::path::Path) -> Result<String, FetchError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| FetchError::Setup(format!("--bearer-token-file {}: {e}", path.display())))?;
    let token = text.trim();
    if token.is_empty() || token.contains(['\n', '\r']) {
        return Err(FetchError::Setup(format!(
            "--bearer-token-file {}: expected one token on one line",
            path.display()
        )));
    }
    Ok(token.to_string())
}

/// Standard base64 with padding, for the basic-auth header (a dozen lines do not justify a
/// dependency).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_examples() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
            ("Aladdin:open sesame", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn a_token_file_must_hold_one_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "abc\n").unwrap();
        assert_eq!(read_token(&path).unwrap(), "abc");
        std::fs::write(&path, "a\nb\n").unwrap();
        assert!(read_token(&path).is_err());
        assert!(read_token(&dir.path().join("none")).is_err());
    }

    #[test]
    fn a_ca_file_without_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not pem").unwrap();
        let err = read_ca_file(&path).unwrap_err();
        assert!(err.to_string().contains("no PEM certificate"), "{err}");
    }

    #[test]
    fn excerpts_are_one_short_line() {
        assert_eq!(excerpt(b"bad gateway\nmore"), "bad gateway");
        assert_eq!(excerpt(&[b'x'; 500]).len(), 120);
    }
}
