//! This host as the interactive view's data source: the collector thread
//! that runs the session's source, the replayer thread that reads a
//! recording, and signals sent to this host's processes.

pub mod collector;
pub mod replayer;
pub mod send_signal;
