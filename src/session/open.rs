//! Opening what a session reads: the live host, the simulated one or a
//! recording, as asked (never a silent fallback), wrapped for `--record`.

use super::record::{Notice, RecordingSource};
use crate::collect::LiveSource;
use crate::demo::DemoSource;
use crate::export::Reopening;
use crate::model::SourceKind;
use crate::record::{Opening, RecordWriter, ReplaySource};
use crate::settings::{Mode, Origin, Settings};
use crate::source::Source;
use anyhow::{Context, Result};

/// The source the settings name. The exporter's live source is opened at
/// each collection until it works, so a host without RDMA (yet) is
/// `restop_up 0` rather than the end of the exporter.
pub fn open_source(settings: &Settings) -> Result<Box<dyn Source>> {
    let source = &settings.source;
    Ok(match &source.origin {
        Origin::Replay(path) => Box::new(ReplaySource::open(path)?),
        Origin::Demo { seed } => Box::new(match &source.demo_host {
            Some(name) => DemoSource::for_host(name, *seed, source.interval, source.demo_at),
            None => DemoSource::starting_at(*seed, source.interval, source.demo_at),
        }),
        Origin::Live if settings.mode == Mode::Export => {
            let options = settings.live_options();
            Box::new(Reopening::new(SourceKind::Live, move || {
                LiveSource::open(options.clone()).map(|s| Box::new(s) as Box<dyn Source>)
            }))
        }
        Origin::Live => Box::new(LiveSource::open(settings.live_options())?),
    })
}

/// `source`, recording to `--record FILE` when asked. Opening errors end
/// restop before anything runs: recording was asked for. `tell` gets what
/// the user must know (a damaged tail that is skipped; failed writes when
/// `notice_failures`).
pub fn with_recording(
    source: Box<dyn Source>,
    settings: &Settings,
    tell: fn(&str),
    notice_failures: bool,
) -> Result<Box<dyn Source>> {
    let Some(path) = &settings.record else {
        return Ok(source);
    };
    let writer = RecordWriter::open(path, source.kind(), settings.source.interval)
        .context("cannot record")?;
    if let Opening::Appended {
        dropped: Some(note),
        ..
    } = writer.opening()
    {
        tell(&format!(
            "{}: {note}; recording continues after it",
            writer.path()
        ));
    }
    let recording = RecordingSource::new(source, writer);
    Ok(Box::new(if notice_failures {
        let notice: Notice = Box::new(move |m: &str| tell(m));
        recording.with_notice(notice)
    } else {
        recording
    }))
}
