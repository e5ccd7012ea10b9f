//! Any bytes as the payload of a snapshot frame whose CRC matches: the part of a
//! recording the CRC does not protect against (a frame written by a hostile or broken
//! writer). The first byte picks the flags (deflated or not, keyframe or not) and
//! whether a good keyframe comes first; the rest is the payload, deflated here when the
//! flags say so, so the fuzzer reaches the JSON and the bounds behind the inflater.
//! Opening never panics; every snapshot it lists reads; what it cannot decode is damage.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::model::UnixMs;
use restop::record::ReplaySource;
use restop::record::format::{
    FLAG_DEFLATE, FLAG_KEYFRAME, KIND_SESSION, KIND_SNAPSHOT, encode_file_header, encode_frame,
};
use std::io::Write;

/// A snapshot payload that decodes: an empty host.
const GOOD: &[u8] = br#"{"details":"ErrorsOnly","meta":{"source":"live","host":"h","kernel":"k","collected_at_ms":1,"collect_us":1,"netns_mode":null,"hidden_fields":[],"warnings":[]},"devices":[],"processes":[],"tallies":[],"objects":[]}"#;

const SESSION: &[u8] =
    br#"{"restop_version":"0.1.0","source":"live","interval_ms":1000,"started_at_ms":1}"#;

fn deflated(bytes: &[u8]) -> Vec<u8> {
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let Some((&how, body)) = data.split_first() else {
        return;
    };
    let flags = (if how & 1 != 0 { FLAG_DEFLATE } else { 0 })
        | (if how & 2 != 0 { FLAG_KEYFRAME } else { 0 });
    let payload = if flags & FLAG_DEFLATE != 0 && how & 8 == 0 {
        deflated(body)
    } else {
        body.to_vec()
    };
    let mut file = encode_file_header("0.1.0");
    let frames = [
        encode_frame(KIND_SESSION, 0, UnixMs(1), SESSION),
        (how & 4 != 0).then(|| encode_frame(KIND_SNAPSHOT, FLAG_KEYFRAME, UnixMs(1), GOOD)).flatten(),
        encode_frame(KIND_SNAPSHOT, flags, UnixMs(2), &payload),
        encode_frame(KIND_SNAPSHOT, FLAG_KEYFRAME, UnixMs(3), GOOD),
    ];
    for frame in frames.into_iter().flatten() {
        file.extend(frame);
    }
    let Ok(mut replay) = ReplaySource::from_bytes(Box::new(file), "fuzz.rec".into()) else {
        return;
    };
    assert!(!replay.is_empty(), "the last keyframe is always good");
    for i in 0..replay.len() {
        assert!(replay.read(i).is_ok(), "snapshot {i} was listed, so it reads");
    }
});
