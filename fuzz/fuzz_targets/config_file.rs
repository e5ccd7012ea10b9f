//! Any bytes as a config file: parsed, and every duration in it through the one duration
//! parser; a bad file is an error naming its line, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = restop::settings::parse_config(text);
        let _ = restop::settings::parse_duration(text);
    }
});
