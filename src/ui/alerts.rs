//! The alerts panel: the snapshot's warnings, then leak suspects, QPs
//! lingering in ERR/SQE and objects left behind by exited processes.

use super::object_table;
use super::paint::title_line;
use super::theme::Theme;
use crate::app::App;
use crate::app::layout::errors_layout;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub fn draw(frame: &mut Frame, body: Rect, app: &App, theme: &Theme) {
    let pane = errors_layout(body);
    let buf = frame.buffer_mut();
    let n = app.alerts.rows.len();
    let style = if app.trend_views.alerts.is_empty() {
        theme.title()
    } else {
        theme.warning()
    };
    let hint = Span::styled("  Enter: the objects it is about  Esc: back", theme.dim());
    title_line(
        buf,
        pane.title,
        Span::styled(format!("Alerts ({n})"), style),
        &[hint],
        theme.dim(),
    );
    let empty = if app.snapshot().is_none() {
        "collecting…"
    } else if app.history.covered_ms() < app.history.config().rules().min_span_ms {
        "nothing to report yet (trends need a minute of history)"
    } else {
        "nothing to report"
    };
    object_table::draw(buf, &pane, &app.alerts, empty, theme);
}
