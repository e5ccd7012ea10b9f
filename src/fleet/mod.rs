//! `restop fleet`: the whole cluster in one terminal, read from Prometheus or from the
//! exporters themselves.
//!
//! - `http.rs`: the one HTTP client (ureq, rustls, gzip) with TLS, auth, headers, timeouts and
//!   a byte bound; every failure typed.
//! - `prom/`: the Prometheus source: the PromQL (`queries.rs`, a few server-side aggregated
//!   instant queries per refresh, recorded by `assets/prometheus/restop-fleet-rules.yml`), the
//!   API's JSON (`api.rs`) and the facts decoded (`decode.rs`).
//! - `scrape/`: the direct source (`--hosts`): bounded concurrent scrapes, the exposition
//!   parser (`exposition.rs`) and a host's facts from it (`facts.rs`).
//! - `source.rs`: the [`FleetSource`](source::FleetSource) trait both implement.
//! - `model/`: pure: the reading, the hosts table worst first, cluster lists, the filter and
//!   the fleet across refreshes (last good data kept, marked stale).
//! - `config.rs` (`[fleet]` in the config file and the command line), `report.rs` (`--once`,
//!   `--json`), `feed.rs` (the full-screen view's feed thread). The subcommand that starts the
//!   view or prints the report is `crate::fleet_command`, above both this folder and the view.

pub(crate) mod config;
pub mod feed;
pub(crate) mod http;
pub mod model;
pub mod prom;
pub(crate) mod report;
pub(crate) mod sample;
pub mod scrape;
pub(crate) mod source;
