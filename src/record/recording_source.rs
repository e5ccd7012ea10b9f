//! A source that records what it collects: wraps the live or demo source
//! while the interactive view runs with `--record`.

use super::writer::RecordWriter;
use crate::model::{Snapshot, SourceKind};
use crate::source::{CollectError, CollectRequest, Source};

pub struct RecordingSource {
    inner: Box<dyn Source>,
    writer: RecordWriter,
}

impl RecordingSource {
    pub fn new(inner: Box<dyn Source>, writer: RecordWriter) -> RecordingSource {
        RecordingSource { inner, writer }
    }
}

impl Source for RecordingSource {
    fn kind(&self) -> SourceKind {
        self.inner.kind()
    }

    /// The inner source's snapshot, recorded. A failed write is a warning in
    /// the snapshot, never a failed collection: the session goes on.
    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let mut snapshot = self.inner.collect(request)?;
        self.writer.record_into(&mut snapshot, &request.details);
        Ok(snapshot)
    }
}
