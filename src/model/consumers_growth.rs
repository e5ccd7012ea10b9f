//! Which consumers are growing, from the first seconds of history: an
//! owner whose counts keep rising is marked `↑` with its fastest-growing
//! count (`+6 QP` over the seconds seen, `+30 QP/min` once the history is
//! long enough for a rate), and a leak suspect `⚠`, before anyone opens its
//! drill-down. The TUI's consumers table shows it; the verdict itself is
//! `model::history`'s.

use super::history::OwnerTrend;
use super::time::Millis;

/// How sure the growth is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GrowthMark {
    /// Counts went up and (almost) never down, over less than a verdict needs
    /// or without the spread a leak has.
    Rising,
    /// The history's leak verdict.
    LeakSuspect,
}

impl GrowthMark {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            GrowthMark::Rising => "↑",
            GrowthMark::LeakSuspect => "⚠",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Growth {
    pub mark: GrowthMark,
    /// `+30 QP/min`, or `+6 QP` while the history is shorter than `min_span`.
    pub text: String,
}

/// Rises against falls (`TypeTrend::monotonicity`) above which a count
/// "keeps rising".
const RISING: f64 = 0.8;

/// The growth of one owner's counts, `None` when nothing keeps rising.
pub(crate) fn growth(trend: &OwnerTrend, min_span: Millis) -> Option<Growth> {
    let (t, tt) = trend
        .types
        .iter()
        .filter(|(_, tt)| tt.growth > 0 && (tt.leak_suspect || tt.monotonicity >= RISING))
        // The fastest-growing count; suspects first.
        .max_by(|a, b| {
            (a.1.leak_suspect, a.1.growth)
                .cmp(&(b.1.leak_suspect, b.1.growth))
                .then(b.0.cmp(a.0))
        })?;
    let mark = if trend.leak_suspect() {
        GrowthMark::LeakSuspect
    } else {
        GrowthMark::Rising
    };
    let text = if tt.span_ms < min_span || tt.rate_per_min <= 0.0 {
        format!("+{} {}", tt.growth, t.label())
    } else if tt.rate_per_min >= 10.0 {
        format!("+{:.0} {}/min", tt.rate_per_min, t.label())
    } else {
        format!("+{:.1} {}/min", tt.rate_per_min, t.label())
    };
    Some(Growth { mark, text })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::TypeTrend;
    use crate::model::{OwnerKey, ResourceType};

    fn trend(t: ResourceType, growth: i64, rate: f64, span: u64, suspect: bool) -> OwnerTrend {
        let mut o = OwnerTrend {
            owner: OwnerKey::Unattributed,
            name: "leaky_svc".into(),
            types: Default::default(),
        };
        o.types.insert(
            t,
            TypeTrend {
                rate_per_min: rate,
                leak_suspect: suspect,
                explanation: None,
                series: vec![],
                growth,
                monotonicity: 1.0,
                span_ms: Millis(span),
                current: 10,
            },
        );
        o
    }

    #[test]
    fn a_few_seconds_of_rising_counts_show_the_net_change() {
        let g = growth(
            &trend(ResourceType::Qp, 6, 30.0, 12_000, false),
            Millis(60_000),
        );
        assert_eq!(
            g,
            Some(Growth {
                mark: GrowthMark::Rising,
                text: "+6 QP".into()
            })
        );
    }

    #[test]
    fn a_leak_suspect_shows_its_rate() {
        let g = growth(
            &trend(ResourceType::Mr, 90, 90.0, 70_000, true),
            Millis(60_000),
        )
        .unwrap();
        assert_eq!(g.mark, GrowthMark::LeakSuspect);
        assert_eq!(g.text, "+90 MR/min");
    }

    #[test]
    fn steady_or_falling_counts_are_not_marked() {
        assert_eq!(
            growth(
                &trend(ResourceType::Qp, 0, 0.0, 70_000, false),
                Millis(60_000)
            ),
            None
        );
        assert_eq!(
            growth(
                &trend(ResourceType::Qp, -3, -2.0, 70_000, false),
                Millis(60_000)
            ),
            None
        );
    }
}
