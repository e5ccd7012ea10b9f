//! Recordings: `--record FILE` writes every snapshot to a compact,
//! append-only file; `--replay FILE` reads it back as a `Source`.
//! The format and its guarantees are described in docs/recording.md.
//!
//! - `format`: the bytes (file header, CRC-checked frames).
//! - `scan`: walking a file's header and intact frames.
//! - `damage`: what the walk reports: a torn tail (ignored, cut off by the
//!   next `--record`) or a gap inside the file (skipped with a note).
//! - `frame_check`: telling an intact frame from damage, and finding the next one.
//! - `read_at`: random access to the bytes (a file, or memory in tests).
//! - `payload`: a snapshot frame's deflated JSON, leaving out what did not change.
//! - `writer`: appending frames, surviving failed writes.
//! - `replay`: `ReplaySource`, a recording as a `Source` with random access.
//!
//! Recording while a session runs is `session::RecordingSource`.

pub(crate) mod damage;
pub(crate) mod error;
pub mod format;
pub(crate) mod frame_check;
pub(crate) mod limits;
pub mod payload;
pub(crate) mod read_at;
pub(crate) mod replay;
pub(crate) mod scan;
pub(crate) mod writer;

pub use error::RecordError;
pub use replay::{Recorded, ReplaySource};
pub use scan::SessionInfo;
pub use writer::{Opening, RecordWriter};
