//! A live source that is opened on first use and again after failing to
//! open: each failed open is that tick's collection error, so a session
//! started before the RDMA modules are loaded (or on a kernel without RDMA)
//! goes on, and its ticks bring snapshots once the kernel can answer. The
//! exporter's session opens the live host this way (it then says
//! `restop_up 0` until it works).

use crate::model::{Snapshot, SourceKind};
use crate::source::{CollectError, CollectRequest, Source};

/// Opens the source; called again at each collection until it works.
type Opener = Box<dyn FnMut() -> Result<Box<dyn Source>, CollectError> + Send>;

/// A source opened at each collection until it opens, then kept.
pub struct Reopening {
    kind: SourceKind,
    open: Opener,
    source: Option<Box<dyn Source>>,
}

impl Reopening {
    /// A source of `kind` that calls `open` at each collection until it succeeds.
    pub fn new(
        kind: SourceKind,
        open: impl FnMut() -> Result<Box<dyn Source>, CollectError> + Send + 'static,
    ) -> Reopening {
        Reopening {
            kind,
            open: Box::new(open),
            source: None,
        }
    }
}

impl Source for Reopening {
    fn kind(&self) -> SourceKind {
        self.kind
    }

    fn collect(&mut self, request: &CollectRequest) -> Result<Snapshot, CollectError> {
        let source = match &mut self.source {
            Some(source) => source,
            None => self.source.insert((self.open)()?),
        };
        source.collect(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::DemoSource;
    use std::time::Duration;

    #[test]
    fn failing_opens_are_collection_errors_then_the_source_is_kept() {
        let mut attempts = 0;
        let mut source = Reopening::new(SourceKind::Live, move || {
            attempts += 1;
            if attempts < 3 {
                Err(CollectError::NoRdmaSupport("EPROTONOSUPPORT".into()))
            } else {
                Ok(Box::new(DemoSource::new(1, Duration::from_secs(1))) as Box<dyn Source>)
            }
        });
        let request = CollectRequest::default();
        assert!(matches!(
            source.collect(&request),
            Err(CollectError::NoRdmaSupport(_))
        ));
        assert!(source.collect(&request).is_err());
        assert!(source.collect(&request).is_ok());
        assert!(source.collect(&request).is_ok());
        assert_eq!(source.kind(), SourceKind::Live);
    }
}
