//! Rendering: functions of the application state and the frame area. No
//! I/O, no aggregation, no state changes.

pub(crate) mod footer;
pub(crate) mod header;

use crate::interactive::app::App;
use crate::interactive::layout::{MIN_HEIGHT, MIN_WIDTH, frame_layout, too_small};
use crate::interactive::widgets::charset;
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};

/// Draws the whole screen for `app`, in ASCII only when asked (`--ascii`).
pub fn draw(frame: &mut Frame, app: &App) {
    draw_screen(frame, app);
    if app.config.ascii {
        charset::to_ascii(frame.buffer_mut());
    }
}

fn draw_screen(frame: &mut Frame, app: &App) {
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
