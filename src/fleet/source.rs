//! The one trait both fleet sources implement (Prometheus queries, direct scrapes), so the
//! model, `--once`, `--json`, the tests and the full-screen view take the same readings.

use super::http::FetchError;
use super::model::FleetReading;
use super::model::trails::Trail;
use super::prom::api::ApiError;
use std::collections::BTreeMap;
use std::time::Duration;
use thiserror::Error;

/// Why a refresh read nothing.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FleetError {
    #[error(transparent)]
    Fetch(FetchError),
    #[error("{url}: {error}")]
    Api { url: String, error: ApiError },
    #[error("no host answered ({0} tried)")]
    NoHost(usize),
}

/// Where fleet readings come from.
pub trait FleetSource {
    /// One line for the header (`Prometheus http://…`, `12 exporters`).
    fn describe(&self) -> String;
    /// Every host's facts and the cluster-wide lists, now.
    fn read(&mut self) -> Result<FleetReading, FleetError>;
    /// One host's detail: every device's usage, its problems and its consumers.
    fn detail(&mut self, host: &str) -> Result<FleetReading, FleetError>;
    /// The worst usage of each of `hosts` over the last `window`, a point every `step`, from a
    /// server that keeps a history; `None` from a source that keeps none (the direct scrapes:
    /// the view keeps its own from past refreshes).
    fn usage_history(
        &mut self,
        _hosts: &[String],
        _window: Duration,
        _step: Duration,
    ) -> Result<Option<BTreeMap<String, Trail>>, FleetError> {
        Ok(None)
    }
}
