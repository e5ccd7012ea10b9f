//! The fleet model: what a refresh read (`reading.rs`), the hosts table worst first
//! (`rows.rs`), the cluster-wide lists (`cluster.rs`), the `/` filter (`filter.rs`) and the
//! fleet across refreshes, keeping the last good data (`state.rs`), each host's worst usage over
//! the last half hour for the sparklines (`trails.rs`), and how the facts read as text
//! (`cells.rs`). Pure: no I/O, no clock;
//! the sources fill a [`FleetReading`], `--once`, `--json` and the full-screen view read it.

pub mod cells;
pub mod cluster;
pub mod filter;
pub mod reading;
pub mod rows;
pub mod state;
pub mod trails;

pub use cluster::{ConsumerKind, cluster_error_qps, cluster_suspects, top_consumers};
pub use filter::FleetFilter;
pub use reading::{
    Consumer, ErrorQps, FleetReading, HostReport, LimitKind, Metric, NicProblem, PortReport, Reach,
    Severity, Suspect, Usage,
};
pub use rows::{HostRow, RowRules, RowStatus, SortKey, host_rows, sort_rows};
pub use state::FleetState;
pub use trails::UsageTrails;
