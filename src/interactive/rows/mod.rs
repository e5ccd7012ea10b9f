//! The rows the screens show, read from the snapshot and the history: the
//! consumers table's columns, the devices panel, a port's counters, owner
//! trends, the object tables' rows and their ages.

pub mod consumer_columns;
pub(crate) mod devices;
pub(crate) mod object_ages;
pub(crate) mod object_rows;
pub(crate) mod owner_trends;
pub(crate) mod port_counters;
