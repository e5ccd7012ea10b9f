//! Fitting text into fixed-width cells. Numbers are written by
//! `crate::units`, the same way as in every other output.

/// Cuts `text` to `width` characters, marking the cut with `…`.
pub fn fit(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// Pads (or cuts) to exactly `width` characters.
pub fn pad(text: &str, width: usize, right: bool) -> String {
    let t = fit(text, width);
    if right {
        format!("{t:>width$}")
    } else {
        format!("{t:<width$}")
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
}
