//! Helpers shared by integration tests.
#![allow(dead_code)]

pub mod fake_kernel;
pub mod fake_proc;
