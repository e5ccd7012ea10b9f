//! The top-consumers table on screen: how wide each column is and which are
//! dropped first on narrow terminals. What the columns are and what their
//! cells say is `model::consumer_table`, shared with the `--once` report.

use crate::model::ResourceType;
pub use crate::model::consumer_table::ConsumerColumn;
use crate::model::consumer_table::columns;
use crate::model::filter::Filter;

/// Width wanted (NAME grows into whatever is left).
pub(crate) fn column_width(column: ConsumerColumn) -> u16 {
    match column {
        ConsumerColumn::Pid => 7,
        ConsumerColumn::User => 8,
        ConsumerColumn::Name => 14,
        ConsumerColumn::Container => 12,
        ConsumerColumn::Pod => 24,
        // A PD, CTX or SRQ count is small: a 6-cell column would spend
        // most of its cells on blanks NAME could use.
        ConsumerColumn::Count(ResourceType::Pd | ResourceType::Ctx | ResourceType::Srq) => 5,
        ConsumerColumn::Count(_) => 6,
        ConsumerColumn::MrBytes => 9,
        ConsumerColumn::ErrQps => 4,
        ConsumerColumn::Trend(_) => 8,
    }
}

/// Lower goes first when the terminal is too narrow; PID, NAME and QP
/// stay. Sparklines, when asked for, go after the minor counts.
fn keep_priority(column: ConsumerColumn) -> u8 {
    match column {
        ConsumerColumn::Container | ConsumerColumn::Pod => 0,
        ConsumerColumn::User => 1,
        ConsumerColumn::Count(ResourceType::Srq) => 2,
        ConsumerColumn::Count(ResourceType::Ctx) => 3,
        ConsumerColumn::Count(ResourceType::CmId) => 4,
        ConsumerColumn::Count(ResourceType::Pd) => 5,
        ConsumerColumn::Count(ResourceType::Cq) => 6,
        ConsumerColumn::Trend(ResourceType::Qp) => 11,
        ConsumerColumn::Trend(_) => 7,
        ConsumerColumn::Count(ResourceType::Mr) => 8,
        ConsumerColumn::ErrQps => 9,
        ConsumerColumn::MrBytes => 10,
        ConsumerColumn::Pid | ConsumerColumn::Name | ConsumerColumn::Count(ResourceType::Qp) => {
            u8::MAX
        }
    }
}

/// Every column in display order (and the order `s`/`>` cycles through),
/// leaving out resource types the filter hides.
pub fn consumer_columns(filter: &Filter) -> Vec<ConsumerColumn> {
    columns(filter)
}

/// A column placed on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacedColumn {
    pub column: ConsumerColumn,
    pub x: u16,
    pub width: u16,
}

/// Gap between columns.
pub(crate) const GAP: u16 = 1;

/// The columns with, when `sparklines`, the QP and MR sparklines at the end.
pub(crate) fn consumer_columns_with(filter: &Filter, sparklines: bool) -> Vec<ConsumerColumn> {
    let mut cols = consumer_columns(filter);
    if sparklines {
        for t in [ResourceType::Qp, ResourceType::Mr] {
            if filter.shows_type(t) {
                cols.push(ConsumerColumn::Trend(t));
            }
        }
    }
    cols
}

/// Places the columns that fit in `width`, dropping the least telling ones
/// first; NAME takes the space left over.
pub fn fit_consumer_columns(filter: &Filter, width: u16) -> Vec<PlacedColumn> {
    fit_consumer_columns_with(filter, width, false)
}

/// The same, with the sparkline columns when `sparklines`.
pub(crate) fn fit_consumer_columns_with(
    filter: &Filter,
    width: u16,
    sparklines: bool,
) -> Vec<PlacedColumn> {
    fit_consumer_columns_named(
        filter,
        width,
        sparklines,
        column_width(ConsumerColumn::Name),
    )
}

/// Narrowest NAME column, however narrow the terminal.
pub(crate) const NAME_MIN_WIDTH: u16 = 8;
/// NAME never asks for more than this before the minor columns are kept.
pub(crate) const NAME_MAX_WANTED: u16 = 28;

/// Places the columns that fit in `width` when the longest name needs
/// `name_wanted` cells: minor columns are dropped before a name is cut,
/// the least telling first; NAME takes the space left over.
pub(crate) fn fit_consumer_columns_named(
    filter: &Filter,
    width: u16,
    sparklines: bool,
    name_wanted: u16,
) -> Vec<PlacedColumn> {
    fit_consumer_columns_keeping(filter, width, sparklines, name_wanted, None)
}

/// The same, never dropping `kept`: grouped by container or pod, the
/// group's key is what tells two rows of the same program apart.
pub(crate) fn fit_consumer_columns_keeping(
    filter: &Filter,
    width: u16,
    sparklines: bool,
    name_wanted: u16,
    kept: Option<ConsumerColumn>,
) -> Vec<PlacedColumn> {
    let keep_priority = |c: ConsumerColumn| {
        if Some(c) == kept {
            u8::MAX
        } else {
            keep_priority(c)
        }
    };
    let name_wanted = name_wanted.clamp(NAME_MIN_WIDTH, NAME_MAX_WANTED);
    let wanted = |c: ConsumerColumn| match c {
        ConsumerColumn::Name => name_wanted,
        c => column_width(c),
    };
    let mut cols = consumer_columns_with(filter, sparklines);
    let needed = |cols: &[ConsumerColumn]| -> u32 {
        cols.iter()
            .map(|c| u32::from(wanted(*c)) + u32::from(GAP))
            .sum::<u32>()
    };
    while needed(&cols) > u32::from(width) {
        let Some((i, c)) = cols
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| keep_priority(**c))
        else {
            break;
        };
        if keep_priority(*c) == u8::MAX {
            break;
        }
        cols.remove(i);
    }
    let fixed: u32 = cols
        .iter()
        .filter(|c| **c != ConsumerColumn::Name)
        .map(|c| u32::from(column_width(*c)) + u32::from(GAP))
        .sum();
    // NAME gets what the others leave, up to its wish plus a little air.
    let name_room = u32::from(width).saturating_sub(fixed + u32::from(GAP));
    let name_width = u16::try_from(name_room.min(u32::from(name_wanted) + 24))
        .unwrap_or(name_wanted)
        .max(NAME_MIN_WIDTH);
    let mut x: u16 = 0;
    let mut out = Vec::with_capacity(cols.len());
    for c in cols {
        let w = match c {
            ConsumerColumn::Name => name_width,
            c => column_width(c),
        };
        if x >= width {
            break;
        }
        let w = w.min(width - x);
        out.push(PlacedColumn {
            column: c,
            x,
            width: w,
        });
        x = x.saturating_add(w).saturating_add(GAP);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(width: u16) -> Vec<&'static str> {
        fit_consumer_columns(&Filter::default(), width)
            .iter()
            .map(|p| p.column.header())
            .collect()
    }

    #[test]
    fn wide_terminals_show_every_column() {
        assert_eq!(
            titles(160),
            [
                "PID",
                "USER",
                "NAME",
                "CONTAINER",
                "POD",
                "QP",
                "CQ",
                "MR",
                "MR-BYTES",
                "PD",
                "CTX",
                "SRQ",
                "CM_ID",
                "ERR"
            ]
        );
    }

    #[test]
    fn narrow_terminals_drop_container_and_user_first() {
        let t = titles(80);
        assert!(!t.contains(&"CONTAINER"));
        assert!(!t.contains(&"USER"));
        assert!(t.contains(&"MR-BYTES"));
        assert!(t.contains(&"ERR"));
    }

    #[test]
    fn pid_name_and_qp_always_stay() {
        assert_eq!(titles(10)[..2], ["PID", "NAME"]);
        let placed = fit_consumer_columns(&Filter::default(), 10);
        assert!(placed.iter().all(|p| p.x + p.width <= 10));
    }

    #[test]
    fn minor_columns_go_before_a_name_is_cut() {
        let placed = fit_consumer_columns_named(&Filter::default(), 80, false, 22);
        let name = placed.iter().find(|p| p.column == ConsumerColumn::Name);
        assert!(name.is_some_and(|p| p.width >= 22), "{placed:?}");
        let t: Vec<_> = placed.iter().map(|p| p.column.header()).collect();
        assert!(!t.contains(&"CTX"), "{t:?}");
        assert!(t.contains(&"MR-BYTES") && t.contains(&"ERR"), "{t:?}");
        assert!(placed.iter().all(|p| p.x + p.width <= 80));
    }

    #[test]
    fn type_filter_hides_columns() {
        let filter = Filter {
            types: vec![ResourceType::Mr],
            ..Filter::default()
        };
        let cols: Vec<_> = consumer_columns(&filter)
            .iter()
            .map(|c| c.header())
            .collect();
        assert_eq!(
            cols,
            [
                "PID",
                "USER",
                "NAME",
                "CONTAINER",
                "POD",
                "MR",
                "MR-BYTES",
                "ERR"
            ]
        );
    }

    #[test]
    fn a_kept_column_stays_however_narrow() {
        let placed = fit_consumer_columns_keeping(
            &Filter::default(),
            60,
            false,
            14,
            Some(ConsumerColumn::Container),
        );
        let t: Vec<_> = placed.iter().map(|p| p.column.header()).collect();
        assert!(t.contains(&"CONTAINER"), "{t:?}");
        assert!(!titles(60).contains(&"CONTAINER"));
        assert!(placed.iter().all(|p| p.x + p.width <= 60));
    }

    #[test]
    fn sparklines_come_after_the_minor_counts_go() {
        let with = |width| -> Vec<&'static str> {
            fit_consumer_columns_with(&Filter::default(), width, true)
                .iter()
                .map(|p| p.column.header())
                .collect()
        };
        assert_eq!(with(160).last(), Some(&"MR TREND"));
        let narrow = with(80);
        assert!(narrow.contains(&"QP TREND"), "{narrow:?}");
        assert!(!narrow.contains(&"PD"), "{narrow:?}");
    }
}
