//! Header: where the data comes from and how fresh it is, then warnings.

use crate::interactive::app::{App, ReplayState};
use crate::interactive::widgets::fit::{Part, cut_at_word, fit_parts};
use crate::interactive::widgets::paint::put_spans;
use crate::interactive::widgets::theme::Theme;
use crate::model::SourceKind;
use crate::output::rfc3339::readable_from_unix_ms;
use crate::units::duration;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::time::Duration;

pub(crate) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let buf = frame.buffer_mut();
    let width = usize::from(area.width);
    let line1 = Rect::new(area.x, area.y, area.width, area.height.min(1));
    put_spans(buf, line1, &fit_parts(identity(app, theme), width));
    if area.height >= 2 {
        let line2 = Rect::new(area.x, area.y + 1, area.width, 1);
        put_spans(buf, line2, &status(app, theme, width));
    }
}

fn badge_text(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Live => " LIVE ",
        SourceKind::Demo => " DEMO: simulated data ",
        SourceKind::Replay => " REPLAY: recorded data ",
    }
}

fn short_badge_text(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Live => " LIVE ",
        SourceKind::Demo => " DEMO ",
        SourceKind::Replay => " REPLAY ",
    }
}

/// Costs of the first line's steps, cheapest first: what a narrow terminal
/// loses before anything else. The program, the source badge and FROZEN are
/// never dropped; the host outlives the time, the time outlives the kernel.
mod cost {
    pub(super) const COLLECT_TIME: u8 = 10;
    pub(super) const DATE: u8 = 20;
    /// `kernel 6.8.0-demo (simulated)` → `kernel 6.8.0-demo`.
    pub(super) const KERNEL_SHORT: u8 = 25;
    /// The interval outlives the kernel: `+`/`-` change it, and the
    /// header is where it is read back.
    pub(super) const INTERVAL: u8 = 55;
    /// `● REC restop.rec 1.2 MiB` → `● REC 1.2 MiB`.
    pub(super) const RECORD_FILE: u8 = 35;
    /// `● REC 1.2 MiB` → `● REC`.
    pub(super) const RECORD_SIZE: u8 = 60;
    /// A recording's kernel says less than that it is a recording.
    pub(super) const REPLAY_KERNEL: u8 = 40;
    pub(super) const BADGE_SHORT: u8 = 45;
    pub(super) const KERNEL: u8 = 50;
    pub(super) const REPLAY_AT: u8 = 60;
    pub(super) const NEWER: u8 = 70;
    pub(super) const UPDATED: u8 = 80;
    pub(super) const HOST: u8 = 90;
    /// That every snapshot is written to disk is kept after the host.
    pub(super) const RECORD: u8 = 95;
}

fn identity<'a>(app: &'a App, theme: &Theme) -> Vec<Part<'a>> {
    let sep = || Span::styled("  ", theme.plain());
    let badge = theme.source_badge(app.source);
    let mut parts = vec![
        Part::new(vec![Span::styled("restop ", theme.title())]),
        Part::new(vec![Span::styled(badge_text(app.source), badge)]).or(
            vec![Span::styled(short_badge_text(app.source), badge)],
            cost::BADGE_SHORT,
        ),
    ];
    if app.frozen {
        let frozen = |text: String| vec![sep(), Span::styled(text, theme.frozen_badge())];
        let mut part = Part::new(frozen(" FROZEN ".to_string()));
        if app.newer_while_frozen > 0 {
            part = Part::new(frozen(format!(
                " FROZEN ({} newer) ",
                app.newer_while_frozen
            )))
            .or(frozen(" FROZEN ".to_string()), cost::NEWER);
        }
        parts.push(part);
    }
    if let Some(replay) = &app.replay {
        // Where in the recording, first: it is what a replay is about.
        parts.push(Part::new(vec![
            sep(),
            Span::styled(replay_badge(replay), theme.frozen_badge()),
        ]));
        let at = replay
            .recorded_at_ms()
            .map(readable_from_unix_ms)
            .unwrap_or_default();
        let position = format!("({}/{})", replay.position() + 1, replay.len());
        parts.push(
            Part::new(vec![sep(), Span::raw(format!("{at} {position}"))])
                .or(vec![sep(), Span::raw(position)], cost::REPLAY_AT),
        );
    }
    if let Some(path) = &app.config.record {
        parts.push(recording(path, app.record_bytes, theme, sep()));
    }
    let meta = app.snapshot().map(|s| &s.meta);
    if let Some(m) = meta {
        parts.push(
            Part::new(vec![sep(), Span::styled(m.host.clone(), theme.bold())]).drop_at(cost::HOST),
        );
    }
    if app.replay.is_none() {
        parts.push(
            Part::new(vec![
                sep(),
                Span::raw(format!("every {}", duration(app.interval))),
            ])
            .drop_at(cost::INTERVAL),
        );
    }
    if let Some(m) = meta.filter(|_| app.replay.is_none()) {
        parts.push(updated(app, m, sep()));
    }
    if let Some(m) = meta {
        let kernel = if app.replay.is_some() {
            cost::REPLAY_KERNEL
        } else {
            cost::KERNEL
        };
        let release = m.kernel.split_whitespace().next().unwrap_or_default();
        let mut part = Part::new(vec![sep(), Span::raw(format!("kernel {}", m.kernel))]);
        if release != m.kernel {
            part = part.or(
                vec![sep(), Span::raw(format!("kernel {release}"))],
                cost::KERNEL_SHORT,
            );
        }
        parts.push(part.drop_at(kernel));
    }
    parts
}

/// `updated 3 s ago in 35 ms`, or for simulated and recorded snapshots
/// (they carry their own clock, not ours) `updated at <date> <time> UTC in
/// 35 ms`; shortened to the age or the time of day, never cut mid-date.
fn updated<'a>(app: &App, m: &crate::model::Meta, sep: Span<'a>) -> Part<'a> {
    let took = duration(Duration::from_micros(m.collect_us));
    let with = |text: String| vec![sep.clone(), Span::raw(text)];
    if m.source != SourceKind::Live {
        let at = readable_from_unix_ms(m.collected_at_ms);
        let time = at.split(' ').skip(1).collect::<Vec<_>>().join(" ");
        return Part::new(with(format!("updated at {at} in {took}")))
            .or(with(format!("at {at}")), cost::COLLECT_TIME)
            .or(with(format!("at {time}")), cost::DATE)
            .drop_at(cost::UPDATED);
    }
    // Whole seconds: a sub-second age would change on every redraw.
    let age_s = app.now_ms.since(m.collected_at_ms).as_secs();
    let age = if age_s == 0 {
        "just now".to_string()
    } else {
        format!("{} ago", duration(Duration::from_secs(age_s)))
    };
    Part::new(with(format!("updated {age} in {took}")))
        .or(with(format!("updated {age}")), cost::COLLECT_TIME)
        .drop_at(cost::UPDATED)
}

/// `● REC restop.rec 1.2 MiB`: `--record` writes every snapshot to that
/// file, which is this big now; the file's name goes first on a narrow line.
fn recording<'a>(
    path: &std::path::Path,
    bytes: Option<u64>,
    theme: &Theme,
    sep: Span<'a>,
) -> Part<'a> {
    let size = bytes
        .map(|b| format!(" {}", crate::units::bytes(b)))
        .unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let with = |text: String| vec![sep.clone(), Span::styled(text, theme.alert())];
    Part::new(with(format!("● REC {name}{size}")))
        .or(with(format!("● REC{size}")), cost::RECORD_FILE)
        .or(with("● REC".to_string()), cost::RECORD_SIZE)
        .drop_at(cost::RECORD)
}

/// ` PLAY 4× `, ` PAUSED 1× `, ` END `.
fn replay_badge(replay: &ReplayState) -> String {
    if replay.playing() {
        format!(" PLAY {} ", replay.speed_label())
    } else if replay.at_end() {
        " END ".to_string()
    } else {
        format!(" PAUSED {} ", replay.speed_label())
    }
}

/// `N ERROR QP` / `N ERROR QPs`.
pub(crate) fn error_qps_text(n: usize) -> String {
    if n == 1 {
        "1 ERROR QP".to_string()
    } else {
        format!("{n} ERROR QPs")
    }
}

/// The second line: counts, alerts, then the snapshot's warnings in what is
/// left, cut between words and pointing at `w` for the whole text.
fn status<'a>(app: &'a App, theme: &Theme, width: usize) -> Vec<Span<'a>> {
    if let Some(err) = &app.collect_error {
        let first_line = err.lines().next().unwrap_or_default();
        let kept = if app.snapshot().is_some() {
            " (showing the last good snapshot)"
        } else {
            ""
        };
        let text = format!("collection failed: {first_line}{kept}");
        return vec![Span::styled(cut_at_word(&text, width), theme.alert())];
    }
    let Some(s) = app.snapshot() else {
        return vec![Span::styled("collecting…", theme.dim())];
    };
    // The warnings are problems now: the strip under the header lists
    // them with the rest, and the header counts them all.
    fit_parts(counts(app, s, theme), width)
}

/// The counts of the second line, the least telling dropped first: ERROR
/// QPs and alerts stay longest.
fn counts<'a>(app: &'a App, s: &crate::model::Snapshot, theme: &Theme) -> Vec<Part<'a>> {
    // Every count is of the filter's scope, said first.
    let scope = match &app.scoped_filter.device {
        Some(name) => format!("on {name}: "),
        None => format!("all {} devices: ", s.devices.len()),
    };
    let mut parts = vec![
        Part::new(vec![Span::styled(scope, theme.bold())]),
        Part::new(vec![Span::raw(format!(
            "{} owners  ",
            app.main.consumers.len()
        ))])
        .drop_at(40),
    ];
    let errors = app.insights.error_qps.len();
    let error_style = if errors > 0 {
        theme.alert()
    } else {
        theme.plain()
    };
    parts.push(Part::new(vec![Span::styled(
        error_qps_text(errors),
        error_style,
    )]));
    if let Some(stale) = stale_dumps(s) {
        parts.push(Part::new(vec![Span::styled(format!("  {stale}"), theme.dim())]).drop_at(20));
    }
    parts.push(problem_counts(&app.insights.problems, theme));
    parts
}

/// `⚑ 2 critical · 3 warning · 2 notice (a)`: the problems list's length
/// by severity, never more or fewer than the strip and `a` list; shortened
/// to `⚑ 2c 3w 2n` and then `⚑ 7`; `✓ no problems` when there are none.
fn problem_counts<'a>(problems: &[crate::model::problems::Problem], theme: &Theme) -> Part<'a> {
    if problems.is_empty() {
        return Part::new(vec![Span::styled("  ✓ no problems", theme.dim())])
            .or(vec![Span::styled("  ✓", theme.dim())], 50);
    }
    let counts: Vec<(crate::model::problems::Severity, usize)> =
        crate::model::problems::counts(problems)
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .collect();
    let long = counts
        .iter()
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect::<Vec<_>>()
        .join(" · ");
    let short = counts
        .iter()
        .map(|(s, n)| format!("{n}{}", &s.name()[..1]))
        .collect::<Vec<_>>()
        .join(" ");
    let style = match counts.first().map(|(s, _)| *s) {
        Some(crate::model::problems::Severity::Critical) => theme.alert(),
        _ => theme.warning(),
    };
    let with = |text: String| vec![Span::styled(text, style)];
    Part::new(with(format!("  ⚑ {long} (a)")))
        .or(with(format!("  ⚑ {short} (a)")), 45)
        .or(with(format!("  ⚑ {short}")), 48)
        .or(with(format!("  ⚑ {}", problems.len())), 50)
}

/// Object types whose latest dump is 2 s or more older than the snapshot
/// (each type has its own cadence on big hosts), e.g. `dumps: qp 3 s, mr
/// 95 s old`; `None` when every type is fresh.
fn stale_dumps(s: &crate::model::Snapshot) -> Option<String> {
    let now = s.meta.collected_at_ms;
    let stale: Vec<String> = crate::model::ResourceType::ALL
        .into_iter()
        .filter_map(|t| {
            let oldest = s
                .devices
                .iter()
                .filter_map(|d| d.objects.types.get(&t))
                .min()?;
            let age = now.since(*oldest).as_secs();
            (age >= 2).then(|| format!("{} {age} s", t.name()))
        })
        .collect();
    (!stale.is_empty()).then(|| format!("dumps: {} old", stale.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Device, Meta, ResourceType, Snapshot, SourceKind, UnixMs};

    #[test]
    fn stale_dumps_name_the_types_held_back() {
        let mut d = Device::new(0, "mlx5_0");
        d.objects.types.insert(ResourceType::Qp, UnixMs(99_000));
        d.objects.types.insert(ResourceType::Mr, UnixMs(5_000));
        let mut s = Snapshot {
            meta: Meta::new(SourceKind::Live, UnixMs(100_000)),
            devices: vec![d],
            processes: Vec::new(),
            tallies: Vec::new(),
            objects: Vec::new(),
        };
        assert_eq!(stale_dumps(&s).as_deref(), Some("dumps: mr 95 s old"));
        s.devices[0]
            .objects
            .types
            .insert(ResourceType::Mr, UnixMs(99_500));
        assert_eq!(stale_dumps(&s), None);
    }
}
