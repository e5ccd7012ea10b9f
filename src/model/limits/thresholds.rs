//! Usage ratios at which a resource counts as filling up (warning) or about
//! to run out (critical).

use serde::{Deserialize, Serialize};

/// Usage ratios (0..=1) at which a resource turns to warning and critical.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    pub warn: f64,
    pub critical: f64,
}

impl Default for Thresholds {
    /// 80 % and 95 %: early enough to act, late enough not to cry wolf.
    fn default() -> Self {
        Thresholds {
            warn: 0.80,
            critical: 0.95,
        }
    }
}

/// How full a resource is, relative to the thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Normal,
    Warn,
    Critical,
}

impl Level {
    /// The word used in messages and JSON: `normal`, `warning`, `critical`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Normal => "normal",
            Level::Warn => "warning",
            Level::Critical => "critical",
        }
    }
}

impl Thresholds {
    /// Thresholds from percentages (`--warn 80 --crit 95`). Both must lie in
    /// (0, 100] and warning must come strictly before critical, or a
    /// resource could be critical without ever having warned.
    pub fn from_percent(warn: f64, critical: f64) -> Result<Thresholds, String> {
        for (name, value) in [("--warn", warn), ("--crit", critical)] {
            if !value.is_finite() || value <= 0.0 || value > 100.0 {
                return Err(format!(
                    "{name} {value}: a percentage greater than 0 and at most 100"
                ));
            }
        }
        if warn >= critical {
            return Err(format!(
                "--warn {warn} must be below --crit {critical} (defaults: 80 and 95)"
            ));
        }
        Ok(Thresholds {
            warn: warn / 100.0,
            critical: critical / 100.0,
        })
    }

    /// The level of a usage ratio; each threshold is inclusive.
    pub fn level(&self, ratio: f64) -> Level {
        if ratio >= self.critical {
            Level::Critical
        } else if ratio >= self.warn {
            Level::Warn
        } else {
            Level::Normal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_inclusive() {
        let t = Thresholds::default();
        assert_eq!(t.level(0.0), Level::Normal);
        assert_eq!(t.level(0.79), Level::Normal);
        assert_eq!(t.level(0.80), Level::Warn);
        assert_eq!(t.level(0.9499), Level::Warn);
        assert_eq!(t.level(0.95), Level::Critical);
        assert_eq!(t.level(1.2), Level::Critical);
    }

    #[test]
    fn percentages_become_ratios() {
        let t = Thresholds::from_percent(70.0, 90.0).unwrap();
        assert_eq!(t.warn, 0.70);
        assert_eq!(t.critical, 0.90);
        assert_eq!(t.level(0.75), Level::Warn);
        assert!(Thresholds::from_percent(99.0, 100.0).is_ok());
    }

    #[test]
    fn bad_percentages_are_refused() {
        for (w, c) in [
            (0.0, 95.0),
            (-5.0, 95.0),
            (80.0, 101.0),
            (95.0, 80.0),
            (90.0, 90.0),
            (f64::NAN, 95.0),
        ] {
            assert!(Thresholds::from_percent(w, c).is_err(), "{w} {c}");
        }
    }
}
