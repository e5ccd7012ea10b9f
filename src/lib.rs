//! restop: a `top` for RDMA resources.
//!
//! Layers, each depending only on those before it:
//! `nldev` + `collect` (read the kernel and procfs) → `model` (plain data, pure
//! aggregation) → `interactive` (the full-screen view: state and updates,
//! screens, widgets) / `output` / `export` (render only).
//! Every producer of snapshots implements [`source::Source`]; `record` writes
//! them to a file and replays them, `batch` prints them at an interval.

pub mod batch;
pub mod cli;
pub mod collect;
pub mod demo;
pub mod export;
pub(crate) mod file_kind;
pub mod fleet;
pub mod interactive;
pub mod manual;
pub mod model;
pub mod nldev;
pub mod output;
pub mod record;
pub mod session;
pub mod settings;
pub(crate) mod shared_dir;
pub mod signals;
pub mod source;
pub(crate) mod units;
