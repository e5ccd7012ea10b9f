//! `restop fleet`'s settings: the command line over the config file's `[fleet]` section over
//! the defaults, checked once into [`FleetSettings`]. The section is read here, from the same
//! file the rest of restop reads (`settings/locate.rs`), so the fleet's keys live with the
//! fleet; the main parser only lets the section through.

use super::http::HttpOptions;
use super::scrape::parse_targets;
use crate::cli::FleetArgs;
use crate::settings::parse_duration;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(15);
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
pub(crate) const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;
pub(crate) const DEFAULT_CONCURRENCY: usize = 16;
pub(crate) const DEFAULT_TOP: usize = 10;
/// Where the basic-auth password is read from when no file is named.
pub(crate) const PASSWORD_ENV: &str = "RESTOP_FLEET_PASSWORD";

/// The `[fleet]` section as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct FleetSection {
    pub prometheus: Option<String>,
    pub hosts_file: Option<PathBuf>,
    pub host_label: Option<String>,
    pub interval: Option<String>,
    pub timeout: Option<String>,
    pub max_bytes: Option<u64>,
    pub concurrency: Option<usize>,
    pub top: Option<usize>,
    pub ca_file: Option<PathBuf>,
    pub bearer_token_file: Option<PathBuf>,
    pub user: Option<String>,
    pub password_file: Option<PathBuf>,
    pub password_env: Option<String>,
    #[serde(default)]
    pub headers: Vec<String>,
}

#[derive(Deserialize)]
struct FileWithFleet {
    #[serde(default)]
    fleet: FleetSection,
}

/// The `[fleet]` section of a config file's text (other sections are the main parser's).
pub(crate) fn parse_section(text: &str) -> Result<FleetSection, String> {
    toml::from_str::<FileWithFleet>(text)
        .map(|f| f.fleet)
        .map_err(|e| format!("[fleet]: {}", e.message().trim_end()))
}

/// Where the fleet is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetOrigin {
    Prometheus(String),
    Direct(Vec<String>),
}

/// What `--once` or `--json` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FleetOutput {
    Interactive,
    Once,
    Json,
}

/// Everything `restop fleet` needs, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetSettings {
    pub origin: FleetOrigin,
    pub output: FleetOutput,
    pub host_label: String,
    pub interval: Duration,
    pub http: HttpOptions,
    pub concurrency: usize,
    pub top: usize,
}

/// The command line over the file's section over the defaults. `env` reads environment
/// variables (a parameter so tests need not touch the process' environment).
pub(crate) fn resolve(
    args: &FleetArgs,
    file: &FleetSection,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<FleetSettings, String> {
    let origin = origin(args, file)?;
    let duration = |key: &str, text: &Option<String>| -> Result<Option<Duration>, String> {
        text.as_deref()
            .map(|t| parse_duration(t).map_err(|e| format!("[fleet] {key}: {e}")))
            .transpose()
    };
    let interval = match args.delay {
        Some(d) => d,
        None => duration("interval", &file.interval)?.unwrap_or(DEFAULT_INTERVAL),
    };
    let timeout = match args.http_timeout {
        Some(d) => d,
        None => duration("timeout", &file.timeout)?.unwrap_or(DEFAULT_TIMEOUT),
    };
    if interval.is_zero() || timeout.is_zero() {
        return Err("the fleet's interval and timeout must be greater than zero".into());
    }
    let host_label = args
        .host_label
        .clone()
        .or_else(|| file.host_label.clone())
        .unwrap_or_else(|| "instance".into());
    if !valid_label(&host_label) {
        return Err(format!(
            "--host-label {host_label:?}: not a Prometheus label name"
        ));
    }
    let headers = args
        .headers
        .iter()
        .chain(&file.headers)
        .map(|h| parse_header(h))
        .collect::<Result<Vec<_>, _>>()?;
    let user = args.user.clone().or_else(|| file.user.clone());
    let basic = match user {
        None => None,
        Some(user) => Some((user, password(args, file, env)?)),
    };
    let bearer_token_file = args
        .bearer_token_file
        .clone()
        .or_else(|| file.bearer_token_file.clone());
    if bearer_token_file.is_some() && basic.is_some() {
        return Err("a bearer token and basic auth cannot both be used".into());
    }
    Ok(FleetSettings {
        origin,
        output: if args.json {
            FleetOutput::Json
        } else if args.once {
            FleetOutput::Once
        } else {
            FleetOutput::Interactive
        },
        host_label,
        interval,
        http: HttpOptions {
            ca_file: args.ca_file.clone().or_else(|| file.ca_file.clone()),
            bearer_token_file,
            basic,
            headers,
            timeout,
            max_bytes: args
                .max_bytes
                .or(file.max_bytes)
                .unwrap_or(DEFAULT_MAX_BYTES),
        },
        concurrency: args
            .concurrency
            .or(file.concurrency)
            .unwrap_or(DEFAULT_CONCURRENCY)
            .clamp(1, 256),
        top: args.top.or(file.top).unwrap_or(DEFAULT_TOP).clamp(1, 1000),
    })
}

fn origin(args: &FleetArgs, file: &FleetSection) -> Result<FleetOrigin, String> {
    let mut targets = Vec::new();
    if let Some(list) = &args.hosts {
        targets.extend(parse_targets(list));
    }
    let hosts_file =
        args.hosts_file
            .as_ref()
            .or(if args.prometheus.is_none() && args.hosts.is_none() {
                file.hosts_file.as_ref()
            } else {
                None
            });
    if let Some(path) = hosts_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--hosts-file {}: {e}", path.display()))?;
        targets.extend(parse_targets(&text));
    }
    if !targets.is_empty() {
        targets.dedup();
        return Ok(FleetOrigin::Direct(targets));
    }
    if args.hosts.is_some() || hosts_file.is_some() {
        return Err("--hosts/--hosts-file named no exporter".into());
    }
    match args.prometheus.clone().or_else(|| file.prometheus.clone()) {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            Ok(FleetOrigin::Prometheus(url))
        }
        Some(url) => Err(format!(
            "--prometheus {url:?}: expected an http:// or https:// URL"
        )),
        None => Err(
            "restop fleet needs --prometheus URL, or --hosts / --hosts-file (docs/fleet.md)".into(),
        ),
    }
}

fn password(
    args: &FleetArgs,
    file: &FleetSection,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    if let Some(path) = args.password_file.as_ref().or(file.password_file.as_ref()) {
        return read_password(path);
    }
    let var = file.password_env.as_deref().unwrap_or(PASSWORD_ENV);
    env(var).ok_or_else(|| {
        format!("--user needs a password: --password-file FILE or the {var} environment variable")
    })
}

fn read_password(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--password-file {}: {e}", path.display()))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

/// `Name: value`, with a name HTTP accepts.
fn parse_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("--header {text:?}: expected `Name: value`"))?;
    let name = name.trim();
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !ok || value.contains(['\r', '\n']) {
        return Err(format!("--header {text:?}: not a valid header"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

fn valid_label(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn prom() -> FleetArgs {
        FleetArgs {
            prometheus: Some("http://p:9090".into()),
            ..FleetArgs::default()
        }
    }

    #[test]
    fn the_command_line_wins_over_the_file_over_defaults() {
        let file = parse_section(
            "[source]\ninterval = \"2s\"\n[fleet]\ninterval = \"30s\"\nhost_label = \"node\"\ntop = 5\n",
        )
        .unwrap();
        let s = resolve(&prom(), &file, &no_env).unwrap();
        assert_eq!(s.interval, Duration::from_secs(30));
        assert_eq!(s.host_label, "node");
        assert_eq!(s.top, 5);
        assert_eq!(s.http.timeout, DEFAULT_TIMEOUT);
        let args = FleetArgs {
            delay: Some(Duration::from_secs(5)),
            host_label: Some("host".into()),
            ..prom()
        };
        let s = resolve(&args, &file, &no_env).unwrap();
        assert_eq!(
            (s.interval, s.host_label.as_str()),
            (Duration::from_secs(5), "host")
        );
    }

    #[test]
    fn bad_values_are_usage_errors() {
        assert!(parse_section("[fleet]\ncolour = 1\n").is_err());
        let file = parse_section("[fleet]\ninterval = \"soon\"\n").unwrap();
        assert!(
            resolve(&prom(), &file, &no_env)
                .unwrap_err()
                .contains("interval")
        );
        let none = FleetSection::default();
        assert!(resolve(&FleetArgs::default(), &none, &no_env).is_err());
        let args = FleetArgs {
            prometheus: Some("prometheus:9090".into()),
            ..FleetArgs::default()
        };
        assert!(resolve(&args, &none, &no_env).is_err());
        let args = FleetArgs {
            headers: vec!["X-Bad\r\nInjected: 1".into()],
            ..prom()
        };
        assert!(resolve(&args, &none, &no_env).is_err());
        let args = FleetArgs {
            host_label: Some("no-dash".into()),
            ..prom()
        };
        assert!(resolve(&args, &none, &no_env).is_err());
    }

    #[test]
    fn basic_auth_reads_its_password_from_the_environment_or_a_file() {
        let args = FleetArgs {
            user: Some("ops".into()),
            ..prom()
        };
        let none = FleetSection::default();
        assert!(
            resolve(&args, &none, &no_env)
                .unwrap_err()
                .contains(PASSWORD_ENV)
        );
        let env = |k: &str| (k == PASSWORD_ENV).then(|| "s3cret".to_string());
        let s = resolve(&args, &none, &env).unwrap();
        assert_eq!(s.http.basic, Some(("ops".into(), "s3cret".into())));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pw");
        std::fs::write(&path, "from-file\n").unwrap();
        let args = FleetArgs {
            password_file: Some(path),
            ..args
        };
        let s = resolve(&args, &none, &no_env).unwrap();
        assert_eq!(s.http.basic, Some(("ops".into(), "from-file".into())));
    }

    #[test]
    fn direct_targets_come_from_the_list_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hosts");
        std::fs::write(&path, "c:1\n# x\nd:2\n").unwrap();
        let args = FleetArgs {
            hosts: Some("a:1,b:1".into()),
            hosts_file: Some(path),
            ..FleetArgs::default()
        };
        let s = resolve(&args, &FleetSection::default(), &no_env).unwrap();
        assert_eq!(
            s.origin,
            FleetOrigin::Direct(vec!["a:1".into(), "b:1".into(), "c:1".into(), "d:2".into()])
        );
    }
}
