//! `restop fleet`'s own options: where the fleet is read from (a Prometheus server, or the
//! exporters themselves), how to reach it (TLS, auth, headers, timeouts, the byte bound) and
//! what to show (the full-screen view, or `--once`/`--json`). `-d` is restop's global one, read here with the fleet's own default (15 s).
//! Every option but the sources and the output mode can also be set in the config file's
//! `[fleet]` section (`fleet/config.rs`); the command line wins.

use crate::settings::parse_duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

pub(super) const FLEET_EXAMPLES: &str = "\
Examples:
  restop fleet --prometheus http://prometheus:9090          the full-screen view
  restop fleet --prometheus http://prometheus:9090 --once
  restop fleet --prometheus https://prom.example --bearer-token-file /var/run/secrets/token --json
  restop fleet --prometheus http://prometheus:9090 --host-label node --once
  restop fleet --hosts node-1:9879,node-2:9879 --once     scrape the exporters directly
  restop fleet --hosts-file hosts.txt --json | jq '.hosts[] | select(.status != \"ok\")'

Hosts are listed worst first: down, missing and stale hosts, then hosts with
ports down, ERROR QPs or a device at its limit, leak suspects, error counters
rising.

The full-screen view (without --once or --json) refreshes every -d on a thread
of its own and keeps the last good data, marked stale, when a refresh fails.
Keys: 1 hosts, 2 cluster lists (Tab cycles hosts, consumers, ERROR QPs, leak
suspects), Enter a host's detail (from Prometheus, and live from its exporter),
/ filter by host, pod, namespace or device, s sort (consumers: type), o
processes/pods/namespaces, e ERROR QPs, a leak suspects, +/- refresh interval,
w full text, ? help, q quit. Every key: restop man fleet.

Set-up (scrape config, recording rules), the queries sent and the JSON schema:
docs/fleet.md.";

#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
#[command(after_long_help = FLEET_EXAMPLES)]
pub struct FleetArgs {
    /// Read the fleet from this Prometheus server (its base URL).
    #[arg(
        long,
        value_name = "URL",
        conflicts_with_all = ["hosts", "hosts_file"],
        long_help = "Read every host that this Prometheus server scrapes restop from, with a \
                     few aggregated instant queries per refresh (docs/fleet.md). The base URL, \
                     with a path prefix if the server has one. [or `prometheus` in the config \
                     file's [fleet] section]\n\nExample: --prometheus http://prometheus:9090"
    )]
    pub prometheus: Option<String>,

    /// Scrape these exporters directly (host:port, comma-separated).
    #[arg(
        long,
        value_name = "LIST",
        long_help = "Scrape these restop exporters directly instead of asking Prometheus: \
                     HOST:PORT (or full URLs), separated by commas. For small fleets; the \
                     exporters are scraped a few at a time (--concurrency), each within \
                     --http-timeout.\n\nExample: --hosts node-1:9879,node-2:9879"
    )]
    pub hosts: Option<String>,

    /// Scrape the exporters listed in this file (one host:port per line).
    #[arg(
        long = "hosts-file",
        value_name = "FILE",
        long_help = "As --hosts, with the exporters read from FILE: one HOST:PORT or URL per \
                     line (or several, separated by commas or spaces); `#` starts a comment."
    )]
    pub hosts_file: Option<PathBuf>,

    /// The label that names a host [default: instance].
    #[arg(
        long = "host-label",
        value_name = "LABEL",
        long_help = "The Prometheus label that names a host: `instance` (the default: the \
                     scraped address), or `node` where the scrape config or the \
                     ServiceMonitor's relabelling adds the node name. Series without it are \
                     named by their instance. [or `host_label` in [fleet]]"
    )]
    pub host_label: Option<String>,

    /// Print the fleet once (the hosts table and the cluster lists) and exit.
    ///
    /// Without --once or --json, restop fleet opens the full-screen view.
    #[arg(long, conflicts_with = "json")]
    pub once: bool,

    /// Print the fleet once as one JSON document (docs/fleet.md) and exit.
    #[arg(long)]
    pub json: bool,

    /// Time between refreshes [default: 15s].
    ///
    /// restop's global `-d`, shown here with the fleet's default.
    #[arg(
        short = 'd',
        long = "delay",
        id = "delay",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        long_help = "Time between refreshes; follow the scrape interval. Scrape ages older \
                     than twice this mark a host stale. [default: 15s; or `interval` in \
                     [fleet]]"
    )]
    pub delay: Option<Duration>,

    /// Longest wait for one HTTP request [default: 5s].
    #[arg(
        long = "http-timeout",
        value_name = "DURATION",
        value_parser = parse_duration,
        long_help = "Longest wait for one request to Prometheus, answer included; in direct \
                     mode, the longest a whole refresh waits for the exporters. \
                     [default: 5s; or `timeout` in [fleet]]"
    )]
    pub http_timeout: Option<Duration>,

    /// Most bytes of one answer read [default: 32MiB].
    #[arg(
        long = "max-bytes",
        value_name = "BYTES",
        long_help = "The most bytes of one answer restop reads (after gzip). A larger \
                     answer is refused with a message naming this option. [default: 33554432; \
                     or `max_bytes` in [fleet]]"
    )]
    pub max_bytes: Option<u64>,

    /// Exporters scraped at once in direct mode [default: 16].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,

    /// Consumers per list (processes, pods, namespaces) [default: 10].
    #[arg(long = "top", value_name = "N")]
    pub top: Option<usize>,

    /// Trust the CA certificates (PEM) in this file.
    #[arg(long = "ca-file", value_name = "FILE")]
    pub ca_file: Option<PathBuf>,

    /// Send the bearer token in this file.
    #[arg(
        long = "bearer-token-file",
        value_name = "FILE",
        conflicts_with = "user"
    )]
    pub bearer_token_file: Option<PathBuf>,

    /// Basic auth user (password from --password-file or RESTOP_FLEET_PASSWORD).
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,

    /// The basic auth password, read from this file.
    #[arg(long = "password-file", value_name = "FILE", requires = "user")]
    pub password_file: Option<PathBuf>,

    /// Add this header to every request (`Name: value`; repeatable).
    #[arg(long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
}
