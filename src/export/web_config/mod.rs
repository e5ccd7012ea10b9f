//! `restop export --web.config.file`: TLS and basic authentication for
//! `/metrics`, configured with the Prometheus exporter-toolkit's web
//! configuration file, so one file serves node_exporter and restop alike
//! (docs/exporter.md, "TLS and authentication").
//!
//! `file` reads the YAML (pure); `tls` turns its `tls_server_config` into a
//! rustls server configuration, reading the certificate and key files; `load`
//! here does both for a path and names the path and the field in every
//! refusal. The server side (the TLS stream, the credential check) is in
//! `export::http`. The files are read once at start: restart the exporter to
//! take in renewed certificates.

pub(crate) mod file;
pub mod tls;

pub use file::parse_web_config;

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest web configuration file read: a real one is a few hundred bytes.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The file's content, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebConfig {
    /// `None`: plain HTTP.
    pub tls: Option<TlsSettings>,
    /// Empty: no authentication.
    pub users: Vec<User>,
    /// Extra response headers (canonical name, value).
    pub headers: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
    pub client_auth: ClientAuth,
    pub min_version: TlsVersion,
    pub max_version: TlsVersion,
    /// The TLS 1.2 suites, in the order given; `None` for rustls' defaults.
    /// TLS 1.3's suites are always offered (as Go's TLS does).
    pub cipher_suites: Option<Vec<String>>,
    pub curves: Option<Vec<Curve>>,
    /// `prefer_server_cipher_suites`: the server's order wins.
    pub prefer_server_order: bool,
}

/// Which client certificates are asked for, and checked against which CA file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    VerifyIfGiven(PathBuf),
    Require(PathBuf),
}

/// TLS 1.0 and 1.1 parse (the toolkit accepts them) but rustls never speaks
/// them: a minimum below 1.2 is 1.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    Tls10,
    Tls11,
    Tls12,
    Tls13,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    X25519,
    P256,
    P384,
}

/// A `basic_auth_users` entry: the name and its bcrypt hash.
#[derive(Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub hash: String,
    pub cost: u32,
}

impl fmt::Debug for User {
    // The hash stays out of logs and panics.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "User({:?}, cost {})", self.name, self.cost)
    }
}

/// What is wrong with the file: the field (dotted, "" for the YAML itself)
/// and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebConfigError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for WebConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

/// A refusal of the file at `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub path: PathBuf,
    pub error: WebConfigError,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "web config {}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for LoadError {}

/// The file, read and checked, with its TLS configuration built.
pub struct Loaded {
    pub config: WebConfig,
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

/// Reads the file at `path` (a regular file of at most [`MAX_FILE_BYTES`]),
/// resolves the file names in it against its directory (as the toolkit
/// does), and reads the certificates and key.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let fail = |error: WebConfigError| LoadError {
        path: path.to_path_buf(),
        error,
    };
    let text = read_text(path).map_err(|message| {
        fail(WebConfigError {
            field: String::new(),
            message,
        })
    })?;
    let mut config = parse_web_config(&text).map_err(fail)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Some(t) = config.tls.as_mut() {
        t.cert_file = dir.join(&t.cert_file);
        t.key_file = dir.join(&t.key_file);
        t.client_auth = match &t.client_auth {
            ClientAuth::None => ClientAuth::None,
            ClientAuth::VerifyIfGiven(ca) => ClientAuth::VerifyIfGiven(dir.join(ca)),
            ClientAuth::Require(ca) => ClientAuth::Require(dir.join(ca)),
        };
    }
    let tls = config
        .tls
        .as_ref()
        .map(tls::server_config)
        .transpose()
        .map_err(fail)?;
    Ok(Loaded { config, tls })
}

/// The largest certificate, key or CA file read: a long chain is a few tens of KiB.
pub(crate) const MAX_PEM_BYTES: u64 = 1024 * 1024;

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, MAX_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// The file's bytes; what it is when it is no regular file, and a bound on its size
/// (`/dev/zero` or a FIFO must neither fill memory nor block).
pub(crate) fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK, then what it is: a FIFO put there between a look at the
    // name and the open must not block the open (the config file's way).
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| e.to_string())?;
    let kind = file.metadata().map_err(|e| e.to_string())?.file_type();
    if let Some(what) = crate::file_kind::not_regular(kind) {
        return Err(format!("{what}, not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        return Err(format!("larger than {} KiB", max / 1024));
    }
    Ok(bytes)
}
