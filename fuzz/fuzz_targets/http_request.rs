//! Any bytes as an HTTP request head sent to the exporter, and content
//! negotiation on whatever `Accept` it carries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::export::http::{negotiate, request};

fuzz_target!(|data: &[u8]| {
    if let Ok(head) = request::parse_head(data) {
        let _ = negotiate::choose(head.accept.as_deref());
    }
    let _ = negotiate::choose(std::str::from_utf8(data).ok());
});
