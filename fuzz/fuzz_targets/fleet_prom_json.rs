//! Any bytes as a Prometheus API answer to `restop fleet --prometheus`: the instant and range
//! parsers and the fleet's decoder over what they accept; a bad body is a typed error, never
//! a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::fleet::prom::api::{parse_instant, parse_range};
use restop::fleet::prom::decode::Decoder;
use restop::model::UnixMs;

fuzz_target!(|data: &[u8]| {
    if let Ok(answer) = parse_instant(data) {
        let mut decoder = Decoder::new("node");
        for sample in &answer.samples {
            decoder.add(sample);
        }
        let _ = decoder.finish(UnixMs(0), answer.eval_time);
    }
    let _ = parse_range(data);
});
