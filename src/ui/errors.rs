//! The ERROR-QP pane.

use super::object_table;
use super::paint::title_line;
use super::theme::Theme;
use crate::app::App;
use crate::app::layout::errors_layout;
use crate::app::object_table::Cell;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

pub fn draw(frame: &mut Frame, body: Rect, app: &App, theme: &Theme) {
    let pane = errors_layout(body);
    let buf = frame.buffer_mut();
    let n = app.errors.rows.len();
    let style = if n > 0 { theme.alert() } else { theme.title() };
    let hint = Span::styled("  Enter: the owner's objects  Esc: back", theme.dim());
    let lingering = app
        .errors
        .rows
        .iter()
        .filter(|r| {
            r.cells.iter().any(|c| {
                matches!(
                    c,
                    Cell::Age {
                        lingering: true,
                        ..
                    }
                )
            })
        })
        .count();
    let count = if lingering > 0 {
        format!("QPs in ERR/SQE ({n}, {lingering} lingering)")
    } else {
        format!("QPs in ERR/SQE ({n})")
    };
    title_line(
        buf,
        pane.title,
        Span::styled(count, style),
        &[hint],
        theme.dim(),
    );
    let empty = if app.snapshot().is_some() {
        "no QP in ERR or SQE state"
    } else {
        "collecting…"
    };
    object_table::draw(buf, &pane, &app.errors, empty, theme);
}
