//! Why a recording could not be read or written. Every message names the
//! file, and the byte offset when the problem is inside it.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: {what}: {source}")]
    Io {
        path: String,
        what: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("{path} is empty: not a restop recording")]
    Empty { path: String },
    #[error("{path} is not a restop recording (bad magic at offset 0)")]
    NotARecording { path: String },
    #[error("{path}: the file header at offset 0 is {reason}")]
    BadHeader { path: String, reason: String },
    #[error(
        "{path} is a recording of format version {found} (written by restop {written_by}); \
         this restop reads version {supported}"
    )]
    UnsupportedVersion {
        path: String,
        found: u16,
        supported: u16,
        written_by: String,
    },
    /// The file is a recording but not one snapshot in it can be read.
    #[error("{path} holds no snapshot{why}")]
    NoSnapshots { path: String, why: String },
    #[error("{path}: record at offset {offset} cannot be decoded: {detail}")]
    Decode {
        path: String,
        offset: u64,
        detail: String,
    },
    #[error(
        "{path}: record at offset {offset} is corrupt ({reason}) and more data follows; \
         restop does not append after a damaged record: record to another file"
    )]
    DamagedForAppend {
        path: String,
        offset: u64,
        reason: String,
    },
    #[error("{path} is being written by another restop")]
    Locked { path: String },
    #[error("{path}: a snapshot could not be encoded: {detail}")]
    Encode { path: String, detail: String },
}

impl RecordError {
    pub fn io(path: &str, what: &'static str, source: io::Error) -> RecordError {
        RecordError::Io {
            path: path.to_string(),
            what,
            source,
        }
    }
}
