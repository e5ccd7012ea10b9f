//! What damage in a recording means, told apart by what follows it. When no
//! intact frame follows, it is a torn tail (restop stopped while writing):
//! readers ignore it and the next `--record` cuts it off. When intact frames
//! follow, it is corruption inside the file: readers skip to the next intact
//! frame and say how much they skipped, and `--record` refuses the file.

/// How the frames ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// At a frame boundary: the file is whole.
    Clean,
    /// A torn tail: the last bytes are not an intact frame and nothing
    /// intact follows them (restop stopped while writing). Only this may be
    /// cut off before appending.
    Torn {
        offset: u64,
        bytes: u64,
        reason: String,
        /// Cut short, rather than intact in length but wrong.
        incomplete: bool,
    },
}

impl Ending {
    /// What a reader should be told, if anything.
    pub(crate) fn note(&self) -> Option<String> {
        match self {
            Ending::Clean => None,
            Ending::Torn {
                offset,
                bytes,
                incomplete: true,
                ..
            } => Some(format!(
                "the last record (offset {offset}, {bytes} bytes) is incomplete and was ignored: \
                 restop stopped while writing it"
            )),
            Ending::Torn {
                offset,
                bytes,
                reason,
                ..
            } => Some(format!(
                "the last record (offset {offset}, {bytes} bytes) is damaged ({reason}) and was \
                 ignored: nothing intact follows it"
            )),
        }
    }
}

/// Damage inside the file: intact frames follow it. Reading skips it;
/// appending is refused (the file is never cut back over intact data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Gap {
    pub offset: u64,
    /// Bytes skipped: from `offset` to the next intact frame.
    pub bytes: u64,
    pub reason: String,
    /// Intact snapshot frames after the gap that were skipped as well: they
    /// leave out parts that were in a lost frame, up to the next keyframe.
    pub snapshots_skipped: usize,
}

impl Gap {
    pub(crate) fn note(&self) -> String {
        let next = self.offset + self.bytes;
        let mut note = format!(
            "record at offset {} is corrupt ({}): {} bytes skipped, reading resumed at offset {next}",
            self.offset, self.reason, self.bytes
        );
        if self.snapshots_skipped > 0 {
            note.push_str(&format!(
                " ({} snapshots after it skipped too: they build on the lost record)",
                self.snapshots_skipped
            ));
        }
        note
    }
}
