//! Header: where the data comes from and how fresh it is, then warnings.

use super::paint::put_spans;
use super::theme::Theme;
use crate::app::{App, ReplayState};
use crate::model::SourceKind;
use crate::output::rfc3339::readable_from_unix_ms;
use crate::units::duration;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::time::Duration;

pub fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let buf = frame.buffer_mut();
    let line1 = Rect::new(area.x, area.y, area.width, area.height.min(1));
    put_spans(buf, line1, &identity(app, theme));
    if area.height >= 2 {
        let line2 = Rect::new(area.x, area.y + 1, area.width, 1);
        put_spans(buf, line2, &status(app, theme));
    }
}

fn badge_text(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Live => " LIVE ",
        SourceKind::Demo => " DEMO: simulated data ",
        SourceKind::Replay => " REPLAY: recorded data ",
    }
}

fn identity<'a>(app: &'a App, theme: &Theme) -> Vec<Span<'a>> {
    let sep = || Span::styled("  ", theme.plain());
    let mut spans = vec![
        Span::styled("restop ", theme.title()),
        Span::styled(badge_text(app.source), theme.source_badge(app.source)),
    ];
    if app.frozen {
        spans.push(sep());
        let waiting = if app.newer_while_frozen > 0 {
            format!(" FROZEN ({} newer) ", app.newer_while_frozen)
        } else {
            " FROZEN ".to_string()
        };
        spans.push(Span::styled(waiting, theme.frozen_badge()));
    }
    if let Some(replay) = &app.replay {
        // Where in the recording, first: it is what a replay is about.
        spans.push(sep());
        spans.push(Span::styled(replay_badge(replay), theme.frozen_badge()));
        spans.push(sep());
        let at = replay
            .recorded_at_ms()
            .map(readable_from_unix_ms)
            .unwrap_or_default();
        spans.push(Span::raw(format!(
            "{at} ({}/{})",
            replay.position() + 1,
            replay.len()
        )));
    }
    let meta = app.snapshot().map(|s| &s.meta);
    if let Some(m) = meta {
        spans.push(sep());
        spans.push(Span::styled(m.host.clone(), theme.bold()));
    }
    if app.replay.is_none() {
        spans.push(sep());
        spans.push(Span::raw(format!("every {}", duration(app.interval))));
    }
    if let Some(m) = meta.filter(|_| app.replay.is_none()) {
        // Simulated and recorded snapshots carry their own clock, not ours:
        // say when they were taken rather than how long ago.
        let age = if m.source != SourceKind::Live {
            format!("at {}", readable_from_unix_ms(m.collected_at_ms))
        } else {
            // Whole seconds: a sub-second age would change on every redraw.
            let age_s = app.now_ms.since(m.collected_at_ms).as_secs();
            if age_s == 0 {
                "just now".to_string()
            } else {
                format!("{} ago", duration(Duration::from_secs(age_s)))
            }
        };
        spans.push(sep());
        spans.push(Span::raw(format!(
            "updated {age} in {}",
            duration(Duration::from_micros(m.collect_us))
        )));
        // Least urgent last: it is the first thing cut on narrow terminals.
        spans.push(sep());
        spans.push(Span::raw(format!("kernel {}", m.kernel)));
    }
    if let (Some(m), Some(_)) = (meta, &app.replay) {
        spans.push(sep());
        spans.push(Span::raw(format!("kernel {}", m.kernel)));
    }
    spans
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

fn status<'a>(app: &'a App, theme: &Theme) -> Vec<Span<'a>> {
    if let Some(err) = &app.collect_error {
        let first_line = err.lines().next().unwrap_or_default();
        let kept = if app.snapshot().is_some() {
            " (showing the last good snapshot)"
        } else {
            ""
        };
        return vec![Span::styled(
            format!("collection failed: {first_line}{kept}"),
            theme.alert(),
        )];
    }
    let Some(s) = app.snapshot() else {
        return vec![Span::styled("collecting…", theme.dim())];
    };
    let mut spans = vec![Span::raw(format!(
        "{} devices  {} owners  ",
        s.devices.len(),
        app.main.consumers.len()
    ))];
    let errors = app.insights.error_qps.len();
    let error_style = if errors > 0 {
        theme.alert()
    } else {
        theme.plain()
    };
    spans.push(Span::styled(format!("{errors} ERROR QPs"), error_style));
    if let Some(stale) = stale_dumps(s) {
        spans.push(Span::styled(format!("  {stale}"), theme.dim()));
    }
    let alerts = app.insights.alerts.len();
    if alerts > 0 {
        let plural = if alerts == 1 { "" } else { "s" };
        spans.push(Span::styled(
            format!("  ⚑ {alerts} alert{plural} (a)"),
            theme.warning(),
        ));
    }
    let warnings = &s.meta.warnings;
    if !warnings.is_empty() {
        spans.push(Span::raw("  "));
        let joined = warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect::<Vec<_>>()
            .join(" · ");
        let text = if warnings.len() == 1 {
            format!("⚠ {joined}")
        } else {
            format!("⚠ {} warnings: {joined}", warnings.len())
        };
        spans.push(Span::styled(text, theme.warning()));
    }
    spans
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
