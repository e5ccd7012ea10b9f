//! Fitting text into fixed-width cells: every table cell of every screen
//! goes through [`pad`], so a cell is cut the one way `fit::cut_at_word`
//! cuts (after the last whole word, then `…`). Numbers are written by
//! `crate::units`, the same way as in every other output.

use crate::interactive::widgets::fit::cut_at_word;
use unicode_width::UnicodeWidthStr;

/// `text` in at most `width` columns, cut between words with a mark.
pub(crate) fn fit(text: &str, width: usize) -> String {
    cut_at_word(text, width)
}

/// Pads (or cuts) to exactly `width` columns (wide characters count two).
pub(crate) fn pad(text: &str, width: usize, right: bool) -> String {
    let t = fit(text, width);
    let blanks = " ".repeat(width.saturating_sub(t.width()));
    if right {
        format!("{blanks}{t}")
    } else {
        format!("{t}{blanks}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_marks_cuts() {
        assert_eq!(fit("train.py", 5), "trai…");
        assert_eq!(fit("train.py", 0), "");
        assert_eq!(pad("ab", 4, true), "  ab");
        assert_eq!(pad("ab", 4, false), "ab  ");
    }

    #[test]
    fn cells_are_cut_between_words_and_padded_by_columns() {
        assert_eq!(
            pad("management packets dropped", 16, false),
            "management…     "
        );
        assert_eq!(pad("link went down", 16, false), "link went down  ");
        assert_eq!(pad("漢字 テスト", 8, false), "漢字…   ");
        assert_eq!(pad("漢字", 6, true), "  漢字");
    }
}
