//! The fleet model: what a refresh read (`reading.rs`), the hosts table worst first
//! (`rows.rs`), the cluster-wide lists (`cluster.rs`), the `/` filter (`filter.rs`) and the
//! fleet across refreshes, keeping the last good data (`state.rs`), and how the facts read as
//! text (`cells.rs`). Pure: no I/O, no clock;
//! the sources fill a [`FleetReading`], `--once`, `--json` and the full-screen view read it.

pub(crate) mod cells;
pub(crate) mod cluster;
pub(crate) mod filter;
pub(crate) mod reading;
pub(crate) mod rows;
pub(crate) mod state;

pub use cluster::{ConsumerKind, cluster_error_qps, cluster_suspects, top_consumers};
pub use filter::FleetFilter;
pub use reading::{
    Consumer, ErrorQps, FleetReading, HostReport, LimitKind, Metric, NicProblem, PortReport, Reach,
    Severity, Suspect, Usage,
};
pub use rows::{HostRow, RowRules, RowStatus, SortKey, host_rows, sort_rows};
pub use state::FleetState;
