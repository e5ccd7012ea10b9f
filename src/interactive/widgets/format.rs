//! Fitting text into fixed-width cells. Numbers are written by
//! `crate::units`, the same way as in every other output.

pub(crate) use crate::units::truncate as fit;

/// Pads (or cuts) to exactly `width` characters.
pub(crate) fn pad(text: &str, width: usize, right: bool) -> String {
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
