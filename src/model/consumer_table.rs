//! The top-consumers table, defined once: what each column means, its
//! header, how it sorts and the text of its cells. The interactive view and
//! the `--once` report both render these columns; each picks only widths,
//! which columns fit, and styles.
//!
//! A new column is one variant here with its arm in `spec` and `cell` (and
//! its place in `ConsumerColumn::ALL`); the renderers' exhaustive matches on
//! widths and drop order then say what they still need.

use super::ResourceType;
use super::consumers::{Consumer, SortKey};
use super::filter::Filter;
use crate::units;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConsumerColumn {
    Pid,
    User,
    Name,
    Container,
    /// `namespace/pod` of the Kubernetes pod the process runs in.
    Pod,
    /// Objects of one type the owner holds.
    Count(ResourceType),
    /// Bytes registered in the owner's MRs.
    MrBytes,
    /// The owner's QPs in ERR or SQE.
    ErrQps,
    /// The count over the trend window, drawn as a sparkline by views that can.
    Trend(ResourceType),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// What a column is, apart from its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnSpec {
    pub header: &'static str,
    pub align: Align,
    /// The order its header sorts the rows in.
    pub sort: SortKey,
}

/// A cell that does not apply to the row (a kernel owner's pid or user).
pub(crate) const NOT_APPLICABLE: &str = "-";
/// A cell that applies but is not known (a process whose user could not be read).
pub(crate) const UNKNOWN: &str = "?";

impl ConsumerColumn {
    /// Every data column in display order (sparklines are added by the views
    /// that draw them).
    pub const ALL: [ConsumerColumn; 14] = [
        ConsumerColumn::Pid,
        ConsumerColumn::User,
        ConsumerColumn::Name,
        ConsumerColumn::Container,
        ConsumerColumn::Pod,
        ConsumerColumn::Count(ResourceType::Qp),
        ConsumerColumn::Count(ResourceType::Cq),
        ConsumerColumn::Count(ResourceType::Mr),
        ConsumerColumn::MrBytes,
        ConsumerColumn::Count(ResourceType::Pd),
        ConsumerColumn::Count(ResourceType::Ctx),
        ConsumerColumn::Count(ResourceType::Srq),
        ConsumerColumn::Count(ResourceType::CmId),
        ConsumerColumn::ErrQps,
    ];

    pub fn spec(self) -> ColumnSpec {
        let (header, align, sort) = match self {
            ConsumerColumn::Pid => ("PID", Align::Right, SortKey::Pid),
            ConsumerColumn::User => ("USER", Align::Left, SortKey::User),
            ConsumerColumn::Name => ("NAME", Align::Left, SortKey::Name),
            ConsumerColumn::Container => ("CONTAINER", Align::Left, SortKey::Container),
            ConsumerColumn::Pod => ("POD", Align::Left, SortKey::Pod),
            ConsumerColumn::Count(t) => (t.label(), Align::Right, SortKey::Count(t)),
            ConsumerColumn::MrBytes => ("MR-BYTES", Align::Right, SortKey::MrBytes),
            ConsumerColumn::ErrQps => ("ERR", Align::Right, SortKey::ErrQps),
            ConsumerColumn::Trend(t) => (trend_header(t), Align::Left, SortKey::Count(t)),
        };
        ColumnSpec {
            header,
            align,
            sort,
        }
    }

    pub fn header(self) -> &'static str {
        self.spec().header
    }

    pub fn right_aligned(self) -> bool {
        self.spec().align == Align::Right
    }

    pub fn sort_key(self) -> SortKey {
        self.spec().sort
    }

    /// The text of this column's cell for `c`.
    pub fn cell(self, c: &Consumer) -> String {
        match self {
            ConsumerColumn::Pid => c
                .pid()
                .map(|p| p.to_string())
                .unwrap_or_else(|| NOT_APPLICABLE.into()),
            ConsumerColumn::User => user_cell(c),
            ConsumerColumn::Name => units::clean(&c.name),
            ConsumerColumn::Container => {
                c.container().map(|n| units::clean(&n)).unwrap_or_default()
            }
            ConsumerColumn::Pod => c.pod().map(|n| units::clean(&n)).unwrap_or_default(),
            ConsumerColumn::Count(t) => units::count(c.counts.get(t)),
            ConsumerColumn::MrBytes => units::bytes(c.mr_bytes),
            ConsumerColumn::ErrQps => units::count(c.error_qps()),
            ConsumerColumn::Trend(_) => String::new(),
        }
    }

    /// The number behind the cell, for columns that are one (zero is drawn
    /// dim, a non-zero ERR as an alert).
    pub fn value(self, c: &Consumer) -> Option<u64> {
        match self {
            ConsumerColumn::Count(t) => Some(c.counts.get(t)),
            ConsumerColumn::MrBytes => Some(c.mr_bytes),
            ConsumerColumn::ErrQps => Some(c.error_qps()),
            _ => None,
        }
    }
}

fn trend_header(t: ResourceType) -> &'static str {
    match t {
        ResourceType::Qp => "QP TREND",
        ResourceType::Mr => "MR TREND",
        _ => "TREND",
    }
}

/// A process's user name, else its uid, else unknown; not applicable to
/// kernel owners and the unattributed bucket.
fn user_cell(c: &Consumer) -> String {
    if c.pid().is_none() {
        return NOT_APPLICABLE.into();
    }
    match c.process.as_ref() {
        Some(p) => match (&p.user, p.uid) {
            (Some(user), _) => units::clean(user),
            (None, Some(uid)) => uid.to_string(),
            (None, None) => UNKNOWN.into(),
        },
        None => UNKNOWN.into(),
    }
}

/// The data columns in display order, leaving out the resource types the
/// filter hides.
pub(crate) fn columns(filter: &Filter) -> Vec<ConsumerColumn> {
    ConsumerColumn::ALL
        .into_iter()
        .filter(|c| match c {
            ConsumerColumn::Count(t) | ConsumerColumn::Trend(t) => filter.shows_type(*t),
            ConsumerColumn::MrBytes => filter.shows_type(ResourceType::Mr),
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OwnerKey, ProcessInfo, ProcessKey};

    fn row(owner: OwnerKey, process: Option<ProcessInfo>) -> Consumer {
        Consumer {
            name: "x".into(),
            owner,
            process,
            counts: Default::default(),
            mr_bytes: 0,
            qp_states: Default::default(),
            devices: Vec::new(),
        }
    }

    #[test]
    fn kernel_owners_have_no_pid_or_user_and_unknown_users_are_marked() {
        let kernel = row(OwnerKey::Kernel("ib_core".into()), None);
        assert_eq!(ConsumerColumn::Pid.cell(&kernel), "-");
        assert_eq!(ConsumerColumn::User.cell(&kernel), "-");
        let key = ProcessKey {
            pid: 42,
            start_time: 1,
        };
        let unknown = row(OwnerKey::Process(key), Some(ProcessInfo::unknown(key)));
        assert_eq!(ConsumerColumn::Pid.cell(&unknown), "42");
        assert_eq!(ConsumerColumn::User.cell(&unknown), "?");
        let with_uid = ProcessInfo {
            uid: Some(1001),
            ..ProcessInfo::unknown(key)
        };
        let uid_only = row(OwnerKey::Process(key), Some(with_uid));
        assert_eq!(ConsumerColumn::User.cell(&uid_only), "1001");
        assert_eq!(ConsumerColumn::MrBytes.cell(&uid_only), "0 B");
    }

    #[test]
    fn names_cannot_move_the_cursor() {
        let mut c = row(OwnerKey::Unattributed, None);
        c.name = "evil\x1b[2J".into();
        assert_eq!(ConsumerColumn::Name.cell(&c), "evil?[2J");
    }

    #[test]
    fn the_type_filter_hides_count_columns_and_mr_bytes_goes_with_mr() {
        let filter = Filter {
            types: vec![ResourceType::Qp],
            ..Filter::default()
        };
        let headers: Vec<_> = columns(&filter).iter().map(|c| c.header()).collect();
        assert_eq!(
            headers,
            ["PID", "USER", "NAME", "CONTAINER", "POD", "QP", "ERR"]
        );
    }
}
