//! Any bytes as a recording: the scan (torn tails, gaps), then every
//! snapshot decoded, in order and at random.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::record::ReplaySource;

fuzz_target!(|data: &[u8]| {
    let Ok(mut replay) = ReplaySource::from_bytes(Box::new(data.to_vec()), "fuzz.rec".into())
    else {
        return;
    };
    let _ = (replay.timeline(), replay.note(), replay.sessions().len());
    let n = replay.len().min(64);
    for i in 0..n {
        let _ = replay.read(i);
    }
    if n > 1 {
        let _ = replay.read(n / 2);
        let _ = replay.read(0);
    }
});
