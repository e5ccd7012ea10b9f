//! `restop export`'s own options (the export group), turned into the
//! settings' `ExportSettings` by `resolve`. The source and trend options
//! (`--demo`, `--seed`, `-d`, `--timeout`, `--objects-every`, `--retention`,
//! ...) are restop's global ones; the rest is refused next to `export` (see
//! `cli::export_refusal`).

use crate::model::owner_group::OwnerGroup;
use crate::settings::export::{DEFAULT_LISTEN, DEFAULT_TOP, ExportSettings, ExportTarget};
use crate::settings::listen::parse_listen;
use crate::settings::parse_duration;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub const EXPORT_EXAMPLES: &str = "\
Examples:
  restop export                              serve http://127.0.0.1:9879/metrics
  restop export --listen 0.0.0.0:9879        serve every interface (see docs/exporter.md)
  restop export -d 30s --objects-every 2m    collect every 30 s, dump objects every 2 min
  restop export --textfile /var/lib/prometheus/node-exporter/restop.prom
  restop export --textfile restop.prom --once
  restop export --demo                       metrics of the simulated host
  restop export --web.config.file web.yml    TLS and basic auth as node_exporter's

Collection runs on its own every -d (default 15s here); a scrape returns the
last collection and never starts one. Metrics: docs/exporter.md.";

#[derive(Clone, Debug, PartialEq, Eq, Args)]
#[command(after_long_help = EXPORT_EXAMPLES)]
pub struct ExportArgs {
    /// Time between collections (500ms, 15s, 1m30s) [default: 15s].
    ///
    /// restop's global `-d`, shown here with the exporter's own default; the
    /// value, given before or after `export`, is read through the source group.
    #[arg(
        short = 'd',
        long = "delay",
        id = "delay",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        long_help = "Time between collections of the exporter; a scrape returns the last \
                     collection and never starts one. Same format as restop's -d: a number \
                     with a unit (ms, s, m, h, d) or several, largest first (1m30s); a bare \
                     number is seconds. [default: 15s, Prometheus' usual scrape interval; \
                     or `interval` in the config file's [export] section]\n\n\
                     Example: restop export -d 30s"
    )]
    pub delay: Option<Duration>,

    /// Serve /metrics on this address [default: 127.0.0.1:9879].
    #[arg(
        long,
        value_name = "ADDR",
        value_parser = parse_listen,
        conflicts_with = "textfile",
        env = "RESTOP_LISTEN",
        long_help = "Serve /metrics (Prometheus text format, or OpenMetrics when the \
                     scraper asks for it) and an index page on this HOST:PORT. The default, \
                     127.0.0.1:9879, is reachable from this host only; any other address \
                     has to be named here (e.g. 0.0.0.0:9879 for every interface) because \
                     the metrics name processes, users and containers. RESTOP_LISTEN names \
                     it too (restop's image sets 0.0.0.0:9879: inside a container every \
                     interface is the pod's own). [default: 127.0.0.1:9879]"
    )]
    pub listen: Option<SocketAddr>,

    /// Write the metrics to this file (node_exporter textfile collector).
    #[arg(
        long,
        value_name = "PATH",
        long_help = "Instead of serving HTTP, write the metrics to PATH every -d, for \
                     node_exporter's textfile collector (PATH must end in .prom and be in \
                     its --collector.textfile.directory). Each write goes to a temporary \
                     file in the same directory, renamed over PATH: readers never see a \
                     partial file."
    )]
    pub textfile: Option<PathBuf>,

    /// With --textfile: write once and exit.
    #[arg(
        long,
        requires = "textfile",
        long_help = "With --textfile: collect once, write the file, and exit (for cron or \
                     a systemd timer). Exit status 1 when the collection failed (the file \
                     is still written, with restop_up 0)."
    )]
    pub once: bool,

    /// With --textfile: replace a regular file restop did not write.
    #[arg(
        long,
        requires = "textfile",
        long_help = "With --textfile: replace PATH even when it is a regular file restop did \
                     not write (one left by another exporter). Without it such a file is \
                     refused and left alone. A symbolic link, a device, a FIFO, a socket or a \
                     directory is refused even with --force, as is a name not ending in .prom \
                     or a directory others can swap files in."
    )]
    pub force: bool,

    /// Owners per resource type in per-owner metrics (the rest are summed).
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_TOP,
        value_parser = clap::value_parser!(u16).range(0..=1000),
        long_help = "How many owners (processes, kernel modules) get their own series in \
                     restop_process_resources (per type) and restop_process_mr_bytes; all \
                     others are summed into one name=\"other\" series. Bounds the series to \
                     (N + 1) × 8 whatever the number of processes. 0 keeps only the sums."
    )]
    pub top: u16,

    /// What a per-owner series stands for: a process, a container or a pod.
    #[arg(
        long,
        value_enum,
        value_name = "WHAT",
        default_value_t = OwnerGroup::default(),
        long_help = "What one series of restop_process_resources and restop_process_mr_bytes \
                     stands for: `process` (one per process and kernel module), `container` \
                     (the processes of one container summed) or `pod` (the processes of one \
                     Kubernetes pod summed). Processes outside containers or pods stay one \
                     series each. Grouped series have no pid; --top then counts containers \
                     or pods."
    )]
    pub owners_by: OwnerGroup,

    /// Leave `pid` out of per-owner labels (restarts then keep their series).
    #[arg(
        long,
        long_help = "Leave the pid label out of restop_process_resources, \
                     restop_process_mr_bytes, restop_qp_bound_stat_total and \
                     restop_process_leak_suspect. A restarted process (a new pid) then \
                     continues its series instead of starting new ones; processes with the \
                     same name, user and container are summed into one series (bound \
                     counters: with the same counter id and name; leak suspects: one series \
                     per name and type)."
    )]
    pub no_pid_label: bool,

    /// TLS and basic authentication, from a Prometheus web config file.
    #[arg(
        long = "web.config.file",
        id = "web_config_file",
        value_name = "FILE",
        conflicts_with = "textfile",
        long_help = "Serve /metrics over TLS and/or behind basic authentication, as FILE \
                     says: the Prometheus exporter-toolkit's web configuration file, as \
                     node_exporter reads it (tls_server_config with cert_file, key_file, \
                     client_auth_type, client_ca_file, min_version, max_version, \
                     cipher_suites, curve_preferences; basic_auth_users with bcrypt hashes; \
                     http_server_config headers). Relative file names in it are relative to \
                     its directory. A field restop does not know or cannot honour is \
                     refused, and so is any bad value: exit status 2, naming the file and \
                     the field. The files are read at start. [or `web_config_file` in the \
                     config file's [export] section]\n\n\
                     Example: restop export --listen 0.0.0.0:9879 --web.config.file \
                     /etc/restop/web.yml"
    )]
    pub web_config: Option<PathBuf>,
}

impl ExportArgs {
    /// The export group these options ask for.
    pub fn settings(&self) -> ExportSettings {
        let target = match &self.textfile {
            Some(path) => ExportTarget::Textfile {
                path: path.clone(),
                once: self.once,
                force: self.force,
            },
            None => ExportTarget::Http(self.listen.unwrap_or(DEFAULT_LISTEN)),
        };
        ExportSettings {
            target,
            top: self.top,
            owners_by: self.owners_by,
            pid_label: !self.no_pid_label,
            web_config: self.web_config.clone(),
        }
    }
}
