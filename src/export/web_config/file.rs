//! The web configuration file's text, read as the Prometheus exporter-toolkit
//! reads it (node_exporter's `--web.config.file`): its YAML parsed into
//! [`WebConfig`], every field checked, and each refusal naming its field.
//! Pure: no file is opened here (`load` reads the file and its certificates),
//! so the fuzz target and the unit tests feed it text.
//!
//! Accepted: `tls_server_config` (`cert_file`, `key_file`, `client_auth_type`,
//! `client_ca_file`, `min_version`, `max_version`, `cipher_suites`,
//! `curve_preferences`, `prefer_server_cipher_suites`), `http_server_config`
//! (`headers`, `http2`) and `basic_auth_users`. The toolkit's fields restop
//! cannot honour (inline `cert`/`key`/`client_ca`, `client_allowed_sans`,
//! client certificates asked for but not verified) are refused by name, and so
//! is any field the toolkit does not know, instead of being silently ignored.

use super::{ClientAuth, Curve, TlsSettings, TlsVersion, User, WebConfig, WebConfigError};
use serde::Deserialize;
use serde::de::IgnoredAny;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The costliest bcrypt hash accepted: one check at cost 14 takes about a
/// second of a core; above it a single login would stall the exporter.
pub(crate) const MAX_BCRYPT_COST: u32 = 14;

/// Users in `basic_auth_users`: a real file names a few.
pub(crate) const MAX_USERS: usize = 64;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    tls_server_config: Option<RawTls>,
    http_server_config: Option<RawHttp>,
    basic_auth_users: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTls {
    cert_file: Option<String>,
    key_file: Option<String>,
    client_auth_type: Option<String>,
    client_ca_file: Option<String>,
    min_version: Option<String>,
    max_version: Option<String>,
    cipher_suites: Option<Vec<String>>,
    curve_preferences: Option<Vec<String>>,
    prefer_server_cipher_suites: Option<bool>,
    // The toolkit's fields restop refuses by name (see the module doc).
    cert: Option<IgnoredAny>,
    key: Option<IgnoredAny>,
    client_ca: Option<IgnoredAny>,
    client_allowed_sans: Option<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    headers: Option<BTreeMap<String, String>>,
    /// Accepted for compatibility; restop serves HTTP/1.1 only.
    #[allow(dead_code)]
    http2: Option<bool>,
}

fn refuse(field: &str, message: impl Into<String>) -> WebConfigError {
    WebConfigError {
        field: field.to_string(),
        message: message.into(),
    }
}

/// Parses and checks the file's text. File names stay as written (`load`
/// resolves them against the file's directory).
pub fn parse_web_config(text: &str) -> Result<WebConfig, WebConfigError> {
    // An empty file (or one with only comments) is an empty configuration,
    // as for the toolkit.
    let raw: Raw = if text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---"
    }) {
        Raw::default()
    } else {
        serde_saphyr::from_str(text).map_err(|e| refuse("", first_lines(&e.to_string())))?
    };
    Ok(WebConfig {
        tls: raw.tls_server_config.map(tls).transpose()?.flatten(),
        users: users(raw.basic_auth_users.unwrap_or_default())?,
        headers: headers(raw.http_server_config.and_then(|h| h.headers))?,
    })
}

/// The parser's message without its source snippet: the place it names is
/// enough, and the snippet could echo a password hash.
fn first_lines(message: &str) -> String {
    let first = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let first = first.split("-->").next().unwrap_or(first).trim();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// `None` when the section names no certificate at all (the toolkit then
/// serves plain HTTP).
fn tls(raw: RawTls) -> Result<Option<TlsSettings>, WebConfigError> {
    const S: &str = "tls_server_config";
    for (name, given) in [
        ("cert", raw.cert.is_some()),
        ("key", raw.key.is_some()),
        ("client_ca", raw.client_ca.is_some()),
    ] {
        if given {
            return Err(refuse(
                &format!("{S}.{name}"),
                format!("inline PEM is not supported by restop; name a file with {name}_file"),
            ));
        }
    }
    if raw.client_allowed_sans.is_some() {
        return Err(refuse(
            &format!("{S}.client_allowed_sans"),
            "not supported by restop; verify clients by their CA (client_ca_file)",
        ));
    }
    let nothing = raw.cert_file.is_none()
        && raw.key_file.is_none()
        && raw.client_auth_type.is_none()
        && raw.client_ca_file.is_none();
    if nothing {
        return Ok(None);
    }
    let file = |name: &str, value: Option<String>| match value.filter(|v| !v.trim().is_empty()) {
        Some(v) => Ok(PathBuf::from(v)),
        None => Err(refuse(&format!("{S}.{name}"), "missing: name a PEM file")),
    };
    let cert_file = file("cert_file", raw.cert_file)?;
    let key_file = file("key_file", raw.key_file)?;
    let client_auth = client_auth(raw.client_auth_type.as_deref(), raw.client_ca_file)?;
    let min_version = match raw.min_version.as_deref() {
        Some(v) => version(&format!("{S}.min_version"), v)?,
        None => TlsVersion::Tls12,
    };
    let max_version = match raw.max_version.as_deref() {
        Some(v) => version(&format!("{S}.max_version"), v)?,
        None => TlsVersion::Tls13,
    };
    if max_version < TlsVersion::Tls12 {
        return Err(refuse(
            &format!("{S}.max_version"),
            "restop speaks TLS 1.2 and 1.3 only: a maximum below TLS12 leaves nothing",
        ));
    }
    if max_version < min_version {
        return Err(refuse(
            &format!("{S}.max_version"),
            "lower than min_version",
        ));
    }
    Ok(Some(TlsSettings {
        cert_file,
        key_file,
        client_auth,
        min_version,
        max_version,
        cipher_suites: raw
            .cipher_suites
            .map(|names| cipher_suites(&format!("{S}.cipher_suites"), names))
            .transpose()?,
        curves: raw
            .curve_preferences
            .map(|names| curves(&format!("{S}.curve_preferences"), &names))
            .transpose()?,
        prefer_server_order: raw.prefer_server_cipher_suites.unwrap_or(false),
    }))
}

fn client_auth(kind: Option<&str>, ca: Option<String>) -> Result<ClientAuth, WebConfigError> {
    const F: &str = "tls_server_config.client_auth_type";
    let ca = ca.filter(|c| !c.trim().is_empty()).map(PathBuf::from);
    let needs_ca = |ca: Option<PathBuf>, kind: &str| {
        ca.ok_or_else(|| {
            refuse(
                "tls_server_config.client_ca_file",
                format!("missing: {kind} verifies client certificates against this CA file"),
            )
        })
    };
    match kind.unwrap_or("NoClientCert") {
        "NoClientCert" | "" => match ca {
            None => Ok(ClientAuth::None),
            Some(_) => Err(refuse(
                F,
                "client_ca_file is set but client_auth_type does not verify clients: \
                 use RequireAndVerifyClientCert or VerifyClientCertIfGiven",
            )),
        },
        "VerifyClientCertIfGiven" => Ok(ClientAuth::VerifyIfGiven(needs_ca(
            ca,
            "VerifyClientCertIfGiven",
        )?)),
        "RequireAndVerifyClientCert" => Ok(ClientAuth::Require(needs_ca(
            ca,
            "RequireAndVerifyClientCert",
        )?)),
        "RequestClientCert" | "RequireAnyClientCert" => Err(refuse(
            F,
            "restop verifies every client certificate it asks for: use \
             VerifyClientCertIfGiven or RequireAndVerifyClientCert with client_ca_file",
        )),
        other => Err(refuse(
            F,
            format!(
                "unknown value {other:?}: NoClientCert, VerifyClientCertIfGiven or \
                 RequireAndVerifyClientCert"
            ),
        )),
    }
}

fn version(field: &str, text: &str) -> Result<TlsVersion, WebConfigError> {
    Ok(match text {
        "TLS10" => TlsVersion::Tls10,
        "TLS11" => TlsVersion::Tls11,
        "TLS12" => TlsVersion::Tls12,
        "TLS13" => TlsVersion::Tls13,
        other => {
            return Err(refuse(
                field,
                format!("unknown version {other:?}: TLS10, TLS11, TLS12 or TLS13"),
            ));
        }
    })
}

/// The names, checked against the TLS 1.2 suites restop's TLS library has
/// (the toolkit's names are the IANA ones, as rustls spells them).
fn cipher_suites(field: &str, names: Vec<String>) -> Result<Vec<String>, WebConfigError> {
    if names.is_empty() {
        return Err(refuse(field, "empty: leave it out for the default suites"));
    }
    let known: Vec<&'static str> = rustls::crypto::ring::ALL_CIPHER_SUITES
        .iter()
        .filter_map(|s| s.suite().as_str())
        .collect();
    for name in &names {
        if !known.contains(&name.as_str()) {
            return Err(refuse(
                field,
                format!(
                    "{name:?} is not a suite restop offers; known: {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(names)
}

fn curves(field: &str, names: &[String]) -> Result<Vec<Curve>, WebConfigError> {
    if names.is_empty() {
        return Err(refuse(field, "empty: leave it out for the default curves"));
    }
    names
        .iter()
        .map(|name| match name.as_str() {
            "X25519" => Ok(Curve::X25519),
            "CurveP256" => Ok(Curve::P256),
            "CurveP384" => Ok(Curve::P384),
            other => Err(refuse(
                field,
                format!("{other:?} is not a curve restop offers: X25519, CurveP256 or CurveP384"),
            )),
        })
        .collect()
}

fn users(raw: BTreeMap<String, String>) -> Result<Vec<User>, WebConfigError> {
    const F: &str = "basic_auth_users";
    if raw.len() > MAX_USERS {
        return Err(refuse(
            F,
            format!("{} users; at most {MAX_USERS}", raw.len()),
        ));
    }
    raw.into_iter()
        .map(|(name, hash)| {
            let field = format!("{F}.{name}");
            if name.is_empty() || name.contains(':') || name.chars().any(char::is_control) {
                return Err(refuse(
                    &field,
                    "a user name is not empty and has no ':' or control characters",
                ));
            }
            let parts: bcrypt::HashParts = hash.parse().map_err(|_| {
                refuse(
                    &field,
                    "not a bcrypt hash ($2y$, $2b$ or $2a$; `htpasswd -nBC 10 USER` writes one)",
                )
            })?;
            let cost = parts.get_cost();
            if cost > MAX_BCRYPT_COST {
                return Err(refuse(
                    &field,
                    format!(
                        "bcrypt cost {cost} is above {MAX_BCRYPT_COST}: each login would take \
                         seconds of CPU; hash with a cost of 10 to 12"
                    ),
                ));
            }
            Ok(User { name, hash, cost })
        })
        .collect()
}

/// The response headers the toolkit allows, with the values it allows.
/// `X-Content-Type-Options: nosniff` is on every response already.
fn headers(raw: Option<BTreeMap<String, String>>) -> Result<Vec<(String, String)>, WebConfigError> {
    const F: &str = "http_server_config.headers";
    let mut out = Vec::new();
    for (name, value) in raw.unwrap_or_default() {
        let field = format!("{F}.{name}");
        if value.is_empty()
            || value.len() > 1024
            || value.bytes().any(|b| !(b' '..=b'~').contains(&b))
        {
            return Err(refuse(
                &field,
                "a value is 1 to 1024 printable ASCII characters",
            ));
        }
        let canonical = match name.to_ascii_lowercase().as_str() {
            "strict-transport-security" => "Strict-Transport-Security",
            "content-security-policy" => "Content-Security-Policy",
            "x-xss-protection" => "X-XSS-Protection",
            "x-frame-options" => {
                if !matches!(value.to_ascii_lowercase().as_str(), "deny" | "sameorigin") {
                    return Err(refuse(&field, "deny or sameorigin"));
                }
                "X-Frame-Options"
            }
            "x-content-type-options" => {
                if !value.eq_ignore_ascii_case("nosniff") {
                    return Err(refuse(&field, "nosniff (the only value)"));
                }
                continue;
            }
            _ => {
                return Err(refuse(
                    &field,
                    "not a header restop sets: Strict-Transport-Security, \
                     Content-Security-Policy, X-Frame-Options, X-Content-Type-Options or \
                     X-XSS-Protection",
                ));
            }
        };
        out.push((canonical.to_string(), value));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
