//! Any bytes as `restop export --web.config.file`: parsed as the exporter-toolkit's
//! YAML, every field checked; a bad file is an error naming its field, never a panic.
//! Then the same bytes through `load` with its bounds: as a file (also grown past the
//! 64 KiB cap), a FIFO nobody writes to, a directory — each an answer at once, never a
//! hang; a file that names certificates that are not there is refused by field.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::export::web_config::{MAX_FILE_BYTES, load, parse_web_config};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        match parse_web_config(text) {
            // Whatever is accepted names only files `load` would then read.
            Ok(config) => assert!(config.users.len() <= 64),
            Err(e) => assert!(!e.message.contains('\n'), "one line: {e}"),
        }
    }
    let Some((&how, body)) = data.split_first() else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("web.yml");
    match how % 4 {
        0 => {
            let _ = std::fs::write(&path, body);
        }
        1 => {
            let mut big = body.to_vec();
            while (big.len() as u64) <= MAX_FILE_BYTES {
                big.extend_from_slice(if body.is_empty() { b"#" } else { body });
            }
            let _ = std::fs::write(&path, &big);
            let err = load(&path).err().map(|e| e.to_string()).unwrap_or_default();
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
    if let Err(err) = load(&path) {
        assert!(err.to_string().contains("web.yml"), "the error names the file: {err}");
    }
});
