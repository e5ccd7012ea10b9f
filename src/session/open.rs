//! Opening what a session reads: the live host, the simulated one or a
//! recording, as asked (never a silent fallback), wrapped for `--record`.

use super::record::{Notice, RecordingSource};
use super::reopen::Reopening;
use crate::collect::{LiveOptions, LiveSource};
use crate::demo::{DemoSource, DeviceLayout};
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
        Origin::Demo { seed } => {
            let demo = match &source.demo_host {
                Some(name) => DemoSource::for_host(name, *seed, source.interval, source.demo_at),
                None => DemoSource::starting_at(*seed, source.interval, source.demo_at),
            };
            Box::new(match source.demo_devices {
                Some(d) => demo.with_devices(
                    DeviceLayout::new(d.pfs, d.vfs)
                        .map_err(|e| anyhow::anyhow!("--demo-devices {e}"))?,
                ),
                None => demo,
            })
        }
        Origin::Live if crate::collect::stalled::asked() => {
            Box::new(crate::collect::stalled::source(live_options(settings)))
        }
        Origin::Live if settings.mode == Mode::Export => {
            let options = live_options(settings);
            Box::new(Reopening::new(SourceKind::Live, move || {
                LiveSource::open(options.clone()).map(|s| Box::new(s) as Box<dyn Source>)
            }))
        }
        Origin::Live => Box::new(LiveSource::open(live_options(settings))?),
    })
}

/// How the live host is read: the source group, under `RESTOP_HOST_ROOT`
/// when one is set.
pub(crate) fn live_options(settings: &Settings) -> LiveOptions {
    // In a container the node's /proc, /sys and /var/log are mounted under one
    // directory (docs/kubernetes.md): `RESTOP_HOST_ROOT=/host`.
    let host = std::env::var_os("RESTOP_HOST_ROOT")
        .filter(|root| !root.is_empty())
        .map(std::path::PathBuf::from);
    let defaults = LiveOptions::default();
    let under_host = |path: &std::path::Path| match &host {
        Some(root) => root.join(path.strip_prefix("/").unwrap_or(path)),
        None => path.to_path_buf(),
    };
    let source = &settings.source;
    LiveOptions {
        proc_root: under_host(&defaults.proc_root),
        sys_root: under_host(&defaults.sys_root),
        kubelet_logs: under_host(&defaults.kubelet_logs),
        run_netns: defaults
            .run_netns
            .iter()
            .map(|d| under_host(d.as_path()))
            .collect(),
        timeout: source.timeout,
        object_interval: source.objects_every,
        verbs: source.verbs,
        // Diagnostics on stderr only where stderr is not the drawn screen.
        print_notes: settings.mode != Mode::Interactive
            && std::env::var_os("RESTOP_DEBUG").is_some(),
        ..defaults
    }
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
