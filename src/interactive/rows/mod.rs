//! The rows the screens show, read from the snapshot and the history: the
//! consumers table's columns, the devices panel, a port's counters, owner
//! trends, the object tables' rows and their ages.

pub mod consumer_columns;
pub mod devices;
pub mod object_ages;
pub mod object_rows;
pub mod owner_trends;
pub mod port_counters;
