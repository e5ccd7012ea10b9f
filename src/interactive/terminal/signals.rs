//! The interactive view ends cleanly on SIGTERM, SIGHUP, SIGINT and SIGQUIT
//! through restop's one signal handling (`crate::signals`): the event loop
//! polls the request and quits through the normal path, which restores the
//! terminal.

pub(crate) use crate::signals::{install, stop_requested as termination_requested};
