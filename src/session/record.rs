//! Recording as a wrapper of the source: whichever mode runs, every
//! snapshot collected is also written to the `--record` file. A failed write
//! is a warning in the snapshot (and told to `notice`, when there is one),
//! never a failed collection: the session goes on.

use crate::model::{Snapshot, SourceKind};
use crate::record::RecordWriter;
use crate::source::{CollectError, CollectRequest, Source};

/// Where the failures of a write are told besides the snapshot (stderr in
/// `--once` and `--batch`; the interactive view shows the snapshot's warning).
pub(crate) type Notice = Box<dyn FnMut(&str) + Send>;

/// A source whose every snapshot is also appended to a `--record` file.
pub struct RecordingSource {
    inner: Box<dyn Source>,
    writer: RecordWriter,
    notice: Option<Notice>,
}

impl RecordingSource {
    /// Records what `inner` collects through `writer`; write failures become snapshot warnings.
    pub fn new(inner: Box<dyn Source>, writer: RecordWriter) -> RecordingSource {
        RecordingSource {
            inner,
            writer,
            notice: None,
        }
    }

    /// Also tells each failed write to `notice`.
    pub fn with_notice(mut self, notice: Notice) -> RecordingSource {
        self.notice = Some(notice);
        self
    }
}

impl Source for RecordingSource {
    fn kind(&self) -> SourceKind {
        self.inner.kind()
    }

    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let mut snapshot = self.inner.collect(request)?;
        if let Some(failure) = self.writer.record_into(&mut snapshot, &request.details)
            && let Some(notice) = self.notice.as_mut()
        {
            notice(&failure);
        }
        Ok(snapshot)
    }
}
