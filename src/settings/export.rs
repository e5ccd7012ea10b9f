//! The export group: what `restop export` serves or writes, and how its
//! per-owner series are cut. The exporter reads this group, the trends group
//! (ERROR-QP ages, leak suspects) and, through its session, the source group.
//! `restop export`'s own defaults are written here once; the command line's
//! help and the clap definitions name these constants.

pub(crate) use super::listen::DEFAULT_LISTEN;
use crate::model::owner_group::OwnerGroup;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Collection interval when `-d` is not given: Prometheus' usual scrape
/// interval. Collecting faster than the scrapes only costs the kernel work.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(15);

/// Owners per resource type that get a series of their own (`--top`).
pub(crate) const DEFAULT_TOP: u16 = 20;

/// Where the metrics go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportTarget {
    /// Serve `/metrics` on this address (`--listen`).
    Http(SocketAddr),
    /// Write this file for node_exporter's textfile collector (`--textfile`);
    /// `once`: collect once, write, exit (`--once`); `force`: the first write
    /// may replace a regular file restop did not write (`--force`).
    Textfile {
        path: PathBuf,
        once: bool,
        force: bool,
    },
}

/// The export group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportSettings {
    pub target: ExportTarget,
    /// Owners per type with their own series in per-owner metrics; the rest are summed.
    pub top: u16,
    /// What one per-owner series stands for (`--owners-by`).
    pub owners_by: OwnerGroup,
    /// Per-owner series carry `pid` (`--no-pid-label` turns it off).
    pub pid_label: bool,
    /// TLS and authentication for `/metrics` (`--web.config.file`, or the
    /// config file's `[export] web_config_file`): the exporter-toolkit's file.
    pub web_config: Option<PathBuf>,
}

impl Default for ExportSettings {
    fn default() -> Self {
        ExportSettings {
            target: ExportTarget::Http(DEFAULT_LISTEN),
            top: DEFAULT_TOP,
            owners_by: OwnerGroup::default(),
            pid_label: true,
            web_config: None,
        }
    }
}
