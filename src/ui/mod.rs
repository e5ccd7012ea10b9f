//! Rendering: functions of the application state and the frame area. No
//! I/O, no aggregation, no state changes.

pub mod consumers;
pub mod counters;
pub mod counters_bound;
pub mod counters_format;
pub mod device;
pub mod devices;
pub mod devices_grid;
pub mod drill;
pub mod fit;
pub mod footer;
pub mod format;
pub mod gauge;
pub mod header;
pub mod object_table;
pub mod paint;
pub mod port;
pub mod sparkline;
pub mod theme;

use crate::app::App;
use crate::app::layout::{MIN_HEIGHT, MIN_WIDTH, frame_layout, too_small};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};
use theme::Theme;

/// Draws the whole screen for `app`.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let theme = Theme::of(app.config.color, app.config.theme);
    if too_small(area) {
        let text = format!(
            "terminal too small: {}x{} (restop needs {MIN_WIDTH}x{MIN_HEIGHT}; q quits)",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let l = frame_layout(area);
    header::draw(frame, l.header, app, &theme);
    let ctx = app.ctx();
    app.page().render(frame, area, &ctx, &theme);
    footer::draw(frame, l.footer, app, &theme);
    let top = app.top();
    if top.overlay() {
        // A modal box never covers the footer: the footer names its keys.
        let above_footer = Rect {
            height: l.footer.y.saturating_sub(area.y),
            ..area
        };
        top.render(frame, above_footer, &ctx, &theme);
    }
}
