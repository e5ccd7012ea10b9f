//! Live source (placeholder until it lands).
use crate::model::{Snapshot, SourceKind};
use crate::source::{CollectError, CollectRequest, Source};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Longest wait for one netlink reply.
    pub timeout: Duration,
    /// Minimum time between object dumps (summaries run every collection).
    pub object_interval: Duration,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            timeout: Duration::from_secs(5),
            object_interval: Duration::ZERO,
        }
    }
}

pub struct LiveSource;

impl LiveSource {
    pub fn open(_options: LiveOptions) -> Result<LiveSource, CollectError> {
        Err(CollectError::NoRdmaSupport("not yet".into()))
    }
}

impl Source for LiveSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Live
    }
    fn collect(&mut self, _request: &CollectRequest) -> Result<Snapshot, CollectError> {
        Err(CollectError::Exhausted)
    }
}
