//! The ASCII fallback (`--ascii`, or a locale that is not UTF-8 such as
//! `LANG=C`): the finished frame's cells are rewritten to ASCII, one table
//! for every symbol the view draws (bars, borders, arrows, marks), so no
//! screen or widget needs a second spelling of its symbols and none can be
//! forgotten. Every replacement is one column wide, as the symbol it
//! replaces, so the layout is unchanged; what the table does not know (a
//! process name in another script, say) becomes `?`.

use ratatui::buffer::Buffer;
use unicode_width::UnicodeWidthStr;

/// The ASCII spelling of one cell's symbol: a one-column ASCII string.
pub(crate) fn ascii_of(symbol: &str) -> &str {
    if symbol.is_ascii() {
        return symbol;
    }
    match symbol {
        // Bars and gauges: full and partial blocks.
        "█" | "▉" | "▊" | "▋" | "▇" | "▆" => "#",
        "▌" | "▍" | "▎" | "▏" | "▅" | "▄" => "=",
        "▃" | "▂" => "-",
        "▁" => "_",
        "░" | "▒" | "▓" => ".",
        // Borders and tree lines.
        "─" | "━" | "═" | "╌" | "┄" => "-",
        "│" | "┃" | "║" | "╎" | "┆" => "|",
        "┌" | "┐" | "└" | "┘" | "├" | "┤" | "┬" | "┴" | "┼" | "╭" | "╮" | "╰" | "╯" | "┏" | "┓"
        | "┗" | "┛" | "╔" | "╗" | "╚" | "╝" => "+",
        // Arrows and sort marks.
        "↑" | "▲" | "▴" | "⇡" => "^",
        "↓" | "▼" | "▾" | "⇣" => "v",
        "→" | "▶" | "▸" | "►" => ">",
        "←" | "◀" | "◂" | "◄" => "<",
        "⏎" => "<",
        // Marks.
        "⚑" | "⚠" | "❗" => "!",
        "●" | "•" | "◆" | "■" => "*",
        "○" | "◇" | "□" => "o",
        "✓" | "✔" => "v",
        "✗" | "✘" | "×" => "x",
        "…" => "~",
        "·" | "∙" => ".",
        "—" | "–" => "-",
        "≥" => ">",
        "≤" => "<",
        "≈" | "∼" => "~",
        "␣" => "_",
        "¼" | "½" | "¾" => "/",
        "µ" | "μ" => "u",
        _ => "?",
    }
}

/// Rewrites every cell of `buf` to ASCII. A symbol two columns wide becomes
/// `?` and the cell it covered a space, so the width of the line stays.
pub(crate) fn to_ascii(buf: &mut Buffer) {
    let mut covered = false;
    for cell in buf.content.iter_mut() {
        let symbol = cell.symbol();
        if covered {
            covered = false;
            if symbol.is_empty() || symbol == " " {
                cell.set_symbol(" ");
                continue;
            }
        }
        if symbol.is_ascii() {
            continue;
        }
        covered = symbol.width() > 1;
        let ascii = ascii_of(symbol).to_string();
        cell.set_symbol(&ascii);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;

    #[test]
    fn every_replacement_is_one_ascii_column() {
        for s in [
            "█", "▁", "░", "─", "│", "┌", "╰", "↑", "▼", "⏎", "⚑", "⚠", "●", "✓", "×", "…", "·",
            "≥", "␣", "¼", "漢", "é",
        ] {
            let a = ascii_of(s);
            assert!(a.is_ascii() && a.width() == 1, "{s} -> {a:?}");
        }
        assert_eq!(ascii_of("abc"), "abc");
    }

    #[test]
    fn a_frame_keeps_its_width_and_holds_only_ascii() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 2));
        buf.set_string(0, 0, "█▁ ⚑ 3 ↑ 漢x", ratatui::style::Style::default());
        buf.set_string(0, 1, "└─ mlx5_0 …", ratatui::style::Style::default());
        to_ascii(&mut buf);
        let line = |y: u16| -> String {
            (0..12)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        };
        assert_eq!(line(0), "#_ ! 3 ^ ? x");
        assert_eq!(line(1), "+- mlx5_0 ~ ");
        assert!(buf.content.iter().all(|c| c.symbol().is_ascii()));
    }
}
