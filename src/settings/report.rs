//! The report group: how the consumers table is ordered, grouped and cut,
//! and where usage turns into a warning. The `--once` report and `--batch`
//! read it whole; `--json` and the interactive view read the parts they show.

use crate::model::Thresholds;
use crate::model::consumers::{SortDirection, SortKey};
use crate::model::owner_group::OwnerGroup;

/// Rows of the consumers table and of the ERROR-QP list in `--once` when
/// nothing sets `--top`.
pub(crate) const DEFAULT_TOP: usize = 20;

/// How the report's tables are cut and ordered.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportSettings {
    /// Rows of the consumers table and of the ERROR QP list (0 = all).
    pub top: usize,
    pub sort: SortKey,
    /// The sort key's natural direction unless something turned it.
    pub direction: SortDirection,
    /// Where `limit` warnings start.
    pub thresholds: Thresholds,
    /// What a row of the consumers table stands for (`--group`): a process, or the
    /// processes of one container or pod summed. `--json` lists the groups too.
    pub group: OwnerGroup,
    /// The COUNTERS section lists every counter (`--counters all`), not one
    /// line per port.
    pub all_counters: bool,
}

impl Default for ReportSettings {
    fn default() -> Self {
        let sort = SortKey::default();
        ReportSettings {
            top: DEFAULT_TOP,
            sort,
            direction: sort.natural_direction(),
            thresholds: Thresholds::default(),
            group: OwnerGroup::default(),
            all_counters: false,
        }
    }
}
