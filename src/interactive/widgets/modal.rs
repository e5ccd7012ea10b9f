//! What the modal overlays (help, the sort menu) draw the same way: a
//! bordered, titled box in the middle of the screen over what is below.

use crate::interactive::layout::centered;
use crate::interactive::widgets::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Clear};

/// Clears a box of about `width` × `height` centred in `area`, draws its
/// border and `title`, and returns the inside to draw the lines in.
pub(crate) fn draw_box(
    frame: &mut Frame,
    area: Rect,
    (width, height): (u16, u16),
    title: &str,
    theme: &Theme,
) -> Rect {
    let boxed = centered(area, width, height);
    frame.render_widget(Clear, boxed);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.title());
    let inner = block.inner(boxed);
    frame.render_widget(block, boxed);
    inner
}
