//! `restop export`: the host's RDMA resources as Prometheus metrics, served
//! over HTTP (`/metrics`) or written for node_exporter's textfile collector.
//!
//! ```text
//! Source ──collect every -d──▶ Collector ──render once──▶ Latest (Arc) ──▶ each scrape
//!                               (health)                         └──────▶ textfile (atomic)
//! ```
//!
//! `catalog` names every metric; `render` turns a snapshot and the health
//! into one document (`exposition` writes the formats); `http` serves it;
//! `textfile` writes it. Read-only: nothing here writes to the kernel.

pub mod args;
pub mod build_info;
pub mod catalog;
pub mod collector;
pub mod counters;
pub mod exposition;
pub mod health;
pub mod http;
pub mod listen;
pub mod render;
pub mod reopen;
pub mod run;
pub mod textfile;
pub mod top_owners;

pub use args::{DEFAULT_INTERVAL, ExportArgs};
pub use collector::{Collector, Exposition, Latest, Stop};
pub use exposition::Format;
pub use render::{ErrorQpAges, LeakSuspect, RenderInput, render, render_with};
pub use reopen::Reopening;
pub use run::run;
pub use top_owners::{OwnerGroup, OwnerOptions};
