//! restop: a `top` for RDMA resources.
//!
//! Layers, each depending only on those before it:
//! `nldev` + `collect` (read the kernel and procfs) → `model` (plain data, pure
//! aggregation) → `interactive` (the full-screen view: state and updates,
//! screens, widgets) / `output` / `export` (render only).
//! Every producer of snapshots implements [`source::Source`]; `record` writes
//! them to a file and replays them, `batch` prints them at an interval.
//!
//! The interface: what is `pub` here is what the `restop` binary (`src/main.rs`)
//! runs, and what the benchmarks (`benches/`), the fuzz targets
//! (`fuzz/fuzz_targets/`) and the integration tests (`tests/it/`) reach: the
//! parsers and fixtures of `nldev`, the live source and its procfs and verbs
//! readers, the model and its history, the report renderers, recordings, the
//! exporter's parts and the interactive view's application and screens, driven
//! headless. Everything else is `pub(crate)`, and `unreachable_pub` keeps it so.

pub mod batch;
pub mod cli;
pub mod collect;
pub mod demo;
pub mod export;
pub(crate) mod file_kind;
pub mod fleet;
pub mod fleet_command;
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
