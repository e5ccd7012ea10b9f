//! Draws the cluster screen: the consumers list over the ERROR QPs and the leak suspects, each
//! a titled object table; the list with the cursor has its title marked and its row selected.

use super::{ClusterList, ClusterScreen};
use crate::interactive::layout::TableArea;
use crate::interactive::widgets::paint::{style_area, title_line};
use crate::interactive::widgets::table::{ObjectTable, draw as table_draw};
use crate::interactive::widgets::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// Where the three lists go in `body`: the consumers take what the other two leave, and
/// those take a few rows each (more when they have them).
pub(crate) fn layout(body: Rect, screen: &ClusterScreen) -> [TableArea; 3] {
    let want = |t: &ObjectTable| (t.rows.len().clamp(1, 8) as u16) + 2;
    let errors = want(&screen.error_qps).min(body.height / 4).max(3);
    let leaks = want(&screen.leaks).min(body.height / 4).max(3);
    let consumers = body.height.saturating_sub(errors + leaks);
    let at = |y: u16, h: u16| Rect::new(body.x, body.y + y, body.width, h);
    [
        TableArea::new(at(0, consumers)),
        TableArea::new(at(
            consumers,
            errors.min(body.height.saturating_sub(consumers)),
        )),
        TableArea::new(at(
            consumers + errors,
            leaks.min(body.height.saturating_sub(consumers + errors)),
        )),
    ]
}

pub(crate) fn draw(
    buf: &mut Buffer,
    body: Rect,
    screen: &ClusterScreen,
    focus: Option<ClusterList>,
    has_reading: bool,
    theme: &Theme,
) {
    let [consumers, errors, leaks] = layout(body, screen);
    let lists = [
        (
            ClusterList::Consumers,
            consumers,
            format!(
                "Top {} by {} ({})",
                screen.kind.plural(),
                screen.metric.name(),
                screen.consumers.rows.len()
            ),
            "no consumer of this type",
        ),
        (
            ClusterList::ErrorQps,
            errors,
            format!(
                "ERROR QPs across the cluster ({})",
                screen.error_qps.rows.len()
            ),
            "no QP in ERR on any host",
        ),
        (
            ClusterList::Leaks,
            leaks,
            format!("Leak suspects ({})", screen.leaks.rows.len()),
            "no leak suspect",
        ),
    ];
    for (list, pane, title, empty) in lists {
        let table = screen.table(list);
        let focused = focus == Some(list);
        let style = match list {
            ClusterList::ErrorQps | ClusterList::Leaks if !table.rows.is_empty() => theme.alert(),
            _ => theme.title(),
        };
        let mark = if focused { "▶ " } else { "" };
        let hint = if focused {
            match list {
                ClusterList::Consumers => "  o kind  s type  ⏎ host",
                _ => "  ⏎ host",
            }
        } else {
            ""
        };
        title_line(
            buf,
            pane.title,
            Span::styled(format!("{mark}{title}"), style),
            &[Span::styled(hint, theme.dim())],
            theme.dim(),
        );
        let empty = if has_reading {
            empty
        } else {
            "reading the fleet…"
        };
        table_draw::draw(buf, &pane, table, empty, theme);
        if !focused {
            // Only the list with the cursor shows a selected row.
            style_area(
                buf,
                pane.rows,
                Style::new().remove_modifier(Modifier::REVERSED),
            );
        }
    }
}
