//! Any bytes as a config file: parsed, and every duration in it through the one duration
//! parser; a bad file is an error naming its line, never a panic. Then the same bytes
//! through the file reader with its bounds: as a file (also grown past the 64 KiB cap),
//! a FIFO nobody writes to, a directory — each an answer at once, never a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::settings::locate::{MAX_CONFIG_BYTES, load};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = restop::settings::parse_config(text);
        let _ = restop::settings::parse_duration(text);
    }
    let Some((&how, body)) = data.split_first() else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("config.toml");
    match how % 4 {
        0 => {
            let _ = std::fs::write(&path, body);
        }
        1 => {
            // Past the cap: refused whatever it holds.
            let mut big = body.to_vec();
            while (big.len() as u64) <= MAX_CONFIG_BYTES {
                big.extend_from_slice(if body.is_empty() { b"#" } else { body });
            }
            let _ = std::fs::write(&path, &big);
            let err = load(Some(&path)).err().unwrap_or_default();
            assert!(err.contains("larger than 64 KiB"), "{err}");
            return;
        }
        2 => {
            let _ = nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU);
        }
        _ => {
            let _ = std::fs::create_dir(&path);
        }
    }
    if let Err(err) = load(Some(&path)) {
        assert!(err.contains("config.toml"), "the error names the file: {err}");
    }
});
