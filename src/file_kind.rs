//! What a path that is not a regular file is, in words, for the refusals of
//! every file restop reads or replaces (the config file, the web config, a
//! recording, the textfile): "it is a FIFO" says why a name was refused.

use std::fs::FileType;
use std::os::unix::fs::FileTypeExt;

/// `a directory`, `a FIFO`, ...; `None` for a regular file.
pub(crate) fn not_regular(kind: FileType) -> Option<&'static str> {
    Some(if kind.is_file() {
        return None;
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    })
}
