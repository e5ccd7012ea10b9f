//! A test hook of debug builds only: `RESTOP_TEST_STALLED_NETLINK=1` gives
//! the live source a kernel that takes every request and never answers, as
//! a kernel stuck in a long dump would (mlx5 queries its firmware per QP).
//! The signal tests use it to show that every mode ends on a signal while
//! blocked in a netlink read, on hosts without RDMA too. Release builds
//! ignore the variable.

use super::{LiveOptions, LiveSource};
use crate::nldev::{NlError, NldevClient, Transport};
use std::time::Duration;

/// True when the hook is asked for (and this is a debug build).
pub(crate) fn asked() -> bool {
    cfg!(debug_assertions) && std::env::var_os("RESTOP_TEST_STALLED_NETLINK").is_some()
}

/// Takes every request; its answer never comes.
pub(crate) struct StalledKernel;

impl Transport for StalledKernel {
    fn send(&mut self, _op: &'static str, _request: &[u8]) -> Result<(), NlError> {
        Ok(())
    }

    fn recv(&mut self, _op: &'static str) -> Result<&[u8], NlError> {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }

    fn abandon(&mut self) {}
}

/// The live source over a [`StalledKernel`].
pub(crate) fn source(options: LiveOptions) -> LiveSource<StalledKernel> {
    LiveSource::with_client(NldevClient::new(StalledKernel), options)
}
