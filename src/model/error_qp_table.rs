//! The ERROR-QP table, defined once: what each column means, its header,
//! its alignment, its JSON key and the value of its cells. The interactive
//! view's ERROR-QP pane, the `--once` report's ERROR QPs section and the
//! `--json` document's `error_qps` all pick their columns from here; each
//! chooses only which columns it shows, their widths and their styles.
//!
//! A new column is one variant here with its arm in `spec` and `value`
//! (and its place in the lists of the renderers that show it); the
//! renderers' exhaustive matches on widths then say what they still need.

use super::error_qps::ErrorQp;
use super::history::ErrorAge;
use super::time::Millis;
use crate::units;

/// One column of the ERROR-QP table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ErrorQpColumn {
    /// The owning process's pid (none for kernel owners).
    Pid,
    /// The owner's label, as in the consumers table.
    Owner,
    /// The owning process's comm (none for kernel owners).
    Comm,
    Device,
    Port,
    /// The local QP number.
    Lqpn,
    /// The remote QP number, for connected QPs.
    Rqpn,
    /// RC, UD, ...
    Type,
    /// ERR or SQE.
    State,
    /// How long the QP has been in its state (from the history).
    Age,
    /// The state it was seen in before (from the history).
    Before,
    /// The protection domain's number.
    Pdn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// What a column is, apart from its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ErrorQpColumnSpec {
    pub header: &'static str,
    pub align: Align,
    /// The key of the field in `--json`'s `error_qps` entries.
    pub json_key: &'static str,
}

/// One row of the table: an ERROR QP and, where a history is kept, its age.
#[derive(Clone, Copy, Debug)]
pub struct ErrorQpRow<'a> {
    pub qp: &'a ErrorQp,
    pub age: Option<&'a ErrorAge>,
}

/// The value of a cell, typed so that numbers sort as numbers and JSON
/// writes them as numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorQpValue {
    /// A number; `None` when it does not apply or was not sent.
    Number(Option<u64>),
    /// Text as read from the system (not yet cleaned of control characters).
    Text(String),
    /// Text that may be absent (`null` in JSON).
    MaybeText(Option<String>),
    /// How long the QP has been in its state; `None` without history.
    Age {
        ms: Option<Millis>,
        /// It was already so when restop started watching.
        lower_bound: bool,
        /// Past the alert threshold (`--err-linger`).
        lingering: bool,
    },
}

/// A cell that does not apply or is not known.
pub(crate) const NOT_APPLICABLE: &str = "-";

impl ErrorQpColumn {
    /// The interactive ERROR-QP pane: who, which QP, its state and how long
    /// first, so they stay on narrow terminals.
    pub(crate) const PANE: [ErrorQpColumn; 11] = [
        ErrorQpColumn::Pid,
        ErrorQpColumn::Owner,
        ErrorQpColumn::Device,
        ErrorQpColumn::Port,
        ErrorQpColumn::Lqpn,
        ErrorQpColumn::State,
        ErrorQpColumn::Age,
        ErrorQpColumn::Before,
        ErrorQpColumn::Type,
        ErrorQpColumn::Rqpn,
        ErrorQpColumn::Pdn,
    ];

    /// The `--once` report's ERROR QPs section.
    pub(crate) const REPORT: [ErrorQpColumn; 8] = [
        ErrorQpColumn::Device,
        ErrorQpColumn::Port,
        ErrorQpColumn::Lqpn,
        ErrorQpColumn::Rqpn,
        ErrorQpColumn::Type,
        ErrorQpColumn::State,
        ErrorQpColumn::Pid,
        ErrorQpColumn::Owner,
    ];

    /// The fields of `--json`'s `error_qps` entries, in document order.
    pub(crate) const JSON: [ErrorQpColumn; 9] = [
        ErrorQpColumn::Device,
        ErrorQpColumn::Port,
        ErrorQpColumn::Lqpn,
        ErrorQpColumn::Rqpn,
        ErrorQpColumn::Type,
        ErrorQpColumn::State,
        ErrorQpColumn::Pid,
        ErrorQpColumn::Comm,
        ErrorQpColumn::Owner,
    ];

    pub(crate) fn spec(self) -> ErrorQpColumnSpec {
        let (header, align, json_key) = match self {
            ErrorQpColumn::Pid => ("PID", Align::Right, "pid"),
            ErrorQpColumn::Owner => ("OWNER", Align::Left, "owner"),
            ErrorQpColumn::Comm => ("COMM", Align::Left, "comm"),
            ErrorQpColumn::Device => ("DEVICE", Align::Left, "device"),
            ErrorQpColumn::Port => ("PORT", Align::Right, "port"),
            ErrorQpColumn::Lqpn => ("LQPN", Align::Right, "lqpn"),
            ErrorQpColumn::Rqpn => ("RQPN", Align::Right, "rqpn"),
            ErrorQpColumn::Type => ("TYPE", Align::Left, "type"),
            ErrorQpColumn::State => ("STATE", Align::Left, "state"),
            ErrorQpColumn::Age => ("AGE", Align::Right, "age_ms"),
            ErrorQpColumn::Before => ("BEFORE", Align::Left, "previous_state"),
            ErrorQpColumn::Pdn => ("PDN", Align::Right, "pdn"),
        };
        ErrorQpColumnSpec {
            header,
            align,
            json_key,
        }
    }

    #[cfg(test)]
    pub(crate) fn header(self) -> &'static str {
        self.spec().header
    }

    /// The typed value of this column's cell for `row`.
    pub(crate) fn value(self, row: ErrorQpRow) -> ErrorQpValue {
        let (e, age) = (row.qp, row.age);
        let q = &e.qp;
        let number = |v: Option<u32>| ErrorQpValue::Number(v.map(u64::from));
        match self {
            ErrorQpColumn::Pid => number(e.pid()),
            ErrorQpColumn::Owner => ErrorQpValue::Text(e.owner_name.clone()),
            ErrorQpColumn::Comm => ErrorQpValue::MaybeText(e.comm.clone()),
            ErrorQpColumn::Device => ErrorQpValue::Text(e.device.clone()),
            ErrorQpColumn::Port => number(q.port),
            ErrorQpColumn::Lqpn => number(Some(q.lqpn)),
            ErrorQpColumn::Rqpn => number(q.rqpn),
            ErrorQpColumn::Type => ErrorQpValue::Text(q.qp_type.to_string()),
            ErrorQpColumn::State => ErrorQpValue::Text(q.state.to_string()),
            ErrorQpColumn::Age => ErrorQpValue::Age {
                ms: age.map(|a| a.ms),
                lower_bound: age.is_some_and(|a| a.lower_bound),
                lingering: age.is_some_and(|a| a.lingering),
            },
            ErrorQpColumn::Before => ErrorQpValue::Text(
                age.and_then(|a| a.previous)
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            ),
            ErrorQpColumn::Pdn => number(q.pdn),
        }
    }

    /// The text of this column's cell for `row`, cleaned of control
    /// characters; `-` where a value does not apply.
    pub(crate) fn cell(self, row: ErrorQpRow) -> String {
        match self.value(row) {
            ErrorQpValue::Number(n) => n.map_or_else(|| NOT_APPLICABLE.into(), |n| n.to_string()),
            ErrorQpValue::Text(t) => units::clean(&t),
            ErrorQpValue::MaybeText(t) => {
                t.map_or_else(|| NOT_APPLICABLE.into(), |t| units::clean(&t))
            }
            ErrorQpValue::Age { ms, .. } => ms.map_or_else(
                || NOT_APPLICABLE.into(),
                |ms| units::duration(ms.as_duration()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OwnerKey, Qp, QpState, QpType, ReportedOwner};

    fn qp() -> ErrorQp {
        let qp = Qp {
            device: 0,
            port: Some(1),
            lqpn: 7,
            rqpn: None,
            qp_type: QpType::Rc,
            state: QpState::Err,
            pdn: None,
            sq_psn: None,
            rq_psn: None,
            reported: ReportedOwner::Kernel("ib_core".into()),
            owner: OwnerKey::Kernel("ib_core".into()),
        };
        ErrorQp {
            qp,
            device: "mlx5_\u{1b}0".into(),
            owner_name: "[ib_core]".into(),
            comm: None,
        }
    }

    #[test]
    fn cells_are_cleaned_and_absent_values_marked() {
        let e = qp();
        let row = ErrorQpRow { qp: &e, age: None };
        assert_eq!(ErrorQpColumn::Device.cell(row), "mlx5_?0");
        assert_eq!(ErrorQpColumn::Lqpn.cell(row), "7");
        assert_eq!(ErrorQpColumn::Pid.cell(row), "-");
        assert_eq!(ErrorQpColumn::Comm.cell(row), "-");
        assert_eq!(ErrorQpColumn::State.cell(row), "ERR");
    }

    #[test]
    fn every_shown_column_has_a_distinct_header_and_json_key() {
        for list in [
            &ErrorQpColumn::PANE[..],
            &ErrorQpColumn::REPORT,
            &ErrorQpColumn::JSON,
        ] {
            let mut headers: Vec<_> = list.iter().map(|c| c.header()).collect();
            let mut keys: Vec<_> = list.iter().map(|c| c.spec().json_key).collect();
            headers.sort_unstable();
            headers.dedup();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(headers.len(), list.len());
            assert_eq!(keys.len(), list.len());
        }
    }
}
