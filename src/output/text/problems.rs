//! The PROBLEMS section that opens the `--once` report: every problem, most
//! severe first (`model/problems/`), one per entry, cut between words when
//! it does not fit a line.

use super::layout::{clean, words, wrap_units};
use crate::model::UnixMs;
use crate::model::history::span_text;
use crate::model::problems::{Problem, counts};

/// Width of the severity column (`critical`).
const SEVERITY_WIDTH: usize = 8;

pub(super) fn problems(problems: &[Problem], at_ms: UnixMs, width: usize) -> Vec<String> {
    if problems.is_empty() {
        return vec![
            "PROBLEMS".to_string(),
            "  none: nothing is wrong".to_string(),
        ];
    }
    let tally: Vec<String> = counts(problems)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect();
    let mut lines = vec![format!("PROBLEMS ({})", tally.join(", "))];
    for p in problems {
        // A report of one snapshot has no ages to tell: the column stays blank.
        let age = if p.since_ms < at_ms {
            span_text(at_ms.since(p.since_ms))
        } else {
            String::new()
        };
        let head = format!("  {:<SEVERITY_WIDTH$} {age:>8}  ", p.severity.name());
        let rest = " ".repeat(head.chars().count());
        lines.extend(wrap_units(&head, &rest, &words(&clean(&p.why)), " ", width));
    }
    lines
}
