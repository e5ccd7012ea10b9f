//! Simulated host (placeholder until the demo source lands).
use crate::model::Snapshot;
use crate::model::SourceKind;
use crate::source::{CollectError, CollectRequest, Source};

pub struct DemoSource;

impl DemoSource {
    pub fn new(_seed: u64, _step: std::time::Duration) -> DemoSource {
        DemoSource
    }
}

impl Source for DemoSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Demo
    }
    fn collect(&mut self, _request: &CollectRequest) -> Result<Snapshot, CollectError> {
        Err(CollectError::Exhausted)
    }
}
