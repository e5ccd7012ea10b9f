//! Faults the terminal tests provoke on purpose (docs/testing.md). Only debug
//! builds (what `cargo test` runs) honour them; a release build ignores the
//! variables, so no environment can make an installed restop misbehave.

/// `RESTOP_TEST_PANIC_COLLECTOR=N`: the collector thread panics after sending
/// N snapshots, to test that a panic there ends the view cleanly.
pub(crate) fn collector_panic_after() -> Option<usize> {
    if cfg!(debug_assertions) {
        std::env::var("RESTOP_TEST_PANIC_COLLECTOR")
            .ok()
            .and_then(|v| v.parse().ok())
    } else {
        None
    }
}

/// `RESTOP_TEST_NO_INPUT_THREAD=1`: no input thread, so only the hang-up
/// watch can notice a terminal that went away.
pub(crate) fn no_input_thread() -> bool {
    cfg!(debug_assertions) && std::env::var_os("RESTOP_TEST_NO_INPUT_THREAD").is_some()
}

/// Panics, for [`collector_panic_after`].
// The crate denies clippy::panic outside tests; this is the one deliberate
// panic, reachable only through the debug-build test variable above.
#[allow(clippy::panic)]
pub(crate) fn panic_in_collector() -> ! {
    panic!("RESTOP_TEST_PANIC_COLLECTOR: the collector thread panics, as asked")
}
