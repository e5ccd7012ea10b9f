//! `restop export`: the host's RDMA resources as Prometheus metrics, served
//! over HTTP (`/metrics`) or written for node_exporter's textfile collector.
//!
//! ```text
//! Session ──tick every -d──▶ Collector ──render once──▶ Latest (Arc) ──▶ each scrape
//! (open, reopen,             (health,                          └──────▶ textfile (atomic)
//!  pace, stop)                history)
//! ```
//!
//! The session is the one every mode runs (`crate::session`): it opens the
//! live host again after each failed open, paces the collections and stops
//! on a termination signal. This module only renders what each tick brings
//! (`collector`) and hands it on (`run`). `catalog` names every metric; `render` turns a snapshot and the health
//! into one document (`exposition` writes the formats); `http` serves it;
//! `textfile` writes it. Read-only: nothing here writes to the kernel.

pub mod build_info;
pub mod catalog;
pub mod collector;
pub(crate) mod counter_families;
pub(crate) mod device_labels;
pub mod exposition;
pub mod health;
pub mod http;
pub(crate) mod netdev;
pub mod render;
pub mod run;
pub mod textfile;
pub mod top_owners;
pub mod web_config;

pub use collector::{Collector, Exposition, Latest};
pub use exposition::Format;
pub use render::{ErrorQpAges, LeakSuspect, RenderInput, render, render_with};
pub use run::run;
pub use top_owners::{OwnerGroup, OwnerOptions};
