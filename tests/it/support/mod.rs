//! Helpers shared by integration tests.

pub mod fake_kernel;
pub mod fake_proc;
pub mod prometheus;
pub mod recording;
