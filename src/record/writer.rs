//! `--record FILE`: appends snapshot frames to a recording.
//!
//! Every frame is written with one `write` on a file opened for appending, and
//! only a frame that was written whole counts: after a failed write (disk
//! full) the file is cut back to the end of the last whole frame, so it stays
//! readable and later snapshots can still be appended once there is room.
//!
//! An existing recording is appended to, as a new session; a torn tail
//! (restop killed while writing: damage that no intact frame follows) is cut
//! off first. A file that is not a recording, or that holds damage followed
//! by intact frames, is refused rather than changed: no restop command ever
//! shortens a file that holds intact data after the damage. An advisory lock keeps two restops from interleaving frames.

use super::error::RecordError;
use super::format::{KIND_SESSION, KIND_SNAPSHOT, encode_file_header, encode_frame};
use super::payload::PayloadEncoder;
use super::read_at::ReadAt;
use super::scan::{Payloads, SessionInfo, scan_checking};
use crate::model::{DetailScope, Millis, Snapshot, SourceKind, Warning, WarningKind};
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What opening the file found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opening {
    /// A new recording.
    Created,
    /// An existing recording, continued.
    Appended {
        snapshots: usize,
        /// The torn last frame that was cut off, if any.
        dropped: Option<String>,
    },
}

pub struct RecordWriter {
    /// Registered first so that it goes first: the hook uses the file's descriptor.
    _exit_hook: crate::signals::ExitHook,
    /// Held while a frame is written; `true` once a forced exit closed the file.
    closed: Arc<Mutex<bool>>,
    file: Flock<File>,
    path: String,
    /// End of the last frame known to be whole.
    end: u64,
    /// A failed write may have left bytes after `end`.
    dirty: bool,
    encoder: PayloadEncoder,
    opening: Opening,
    written: usize,
}

impl std::fmt::Debug for RecordWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordWriter")
            .field("path", &self.path)
            .field("end", &self.end)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl RecordWriter {
    /// Creates `path`, or continues the recording in it. `source` and
    /// `interval` describe the session for readers.
    pub fn open(
        path: &Path,
        source: SourceKind,
        interval: Duration,
    ) -> Result<RecordWriter, RecordError> {
        let name = path.display().to_string();
        let (file, created) = open_for_recording(path, &name)?;
        let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(locked) => locked,
            Err((_, Errno::EWOULDBLOCK)) => return Err(RecordError::Locked { path: name }),
            Err((_, errno)) => {
                return Err(RecordError::io(&name, "locking", io::Error::from(errno)));
            }
        };
        let size = ReadAt::size(&*file).map_err(|e| RecordError::io(&name, "reading", e))?;
        let (end, opening) = if size == 0 {
            let header = encode_file_header(env!("CARGO_PKG_VERSION"));
            if let Err(e) = file.write_all(&header) {
                if created {
                    remove_created(path, &file);
                }
                return Err(RecordError::io(&name, "writing", e));
            }
            (header.len() as u64, Opening::Created)
        } else {
            // Appending needs frame boundaries only: a frame that does not
            // decode is skipped by readers, never cut off here.
            let found = scan_checking(&*file, &name, Payloads::CrcOnly)?;
            // Damage with intact frames after it: never cut back, never appended to.
            if let Some(gap) = found.gaps.first() {
                return Err(RecordError::DamagedForAppend {
                    path: name,
                    offset: gap.offset,
                    reason: gap.reason.clone(),
                });
            }
            let dropped = found.ending.note();
            // Only a torn tail lies past `good_end` now: nothing intact follows it.
            if found.good_end < size {
                file.set_len(found.good_end)
                    .map_err(|e| RecordError::io(&name, "cutting off the torn last record", e))?;
            }
            (
                found.good_end,
                Opening::Appended {
                    snapshots: found.records.len(),
                    dropped,
                },
            )
        };
        let closed = Arc::new(Mutex::new(false));
        let mut writer = RecordWriter {
            _exit_hook: close_on_forced_exit(Arc::clone(&closed), file.as_raw_fd()),
            closed,
            file,
            path: name,
            end,
            dirty: false,
            encoder: PayloadEncoder::default(),
            opening,
            written: 0,
        };
        if let Err(e) = writer.write_session(source, interval) {
            if created {
                remove_created(path, &writer.file);
            }
            return Err(e);
        }
        Ok(writer)
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn opening(&self) -> &Opening {
        &self.opening
    }

    /// Snapshots written by this writer.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Bytes in the file that are whole frames.
    pub fn size(&self) -> u64 {
        self.end
    }

    fn write_session(&mut self, source: SourceKind, interval: Duration) -> Result<(), RecordError> {
        let now_ms = crate::model::time::now();
        let info = SessionInfo {
            restop_version: env!("CARGO_PKG_VERSION").to_string(),
            source,
            interval_ms: Millis::from(interval),
            started_at_ms: now_ms,
        };
        let payload = serde_json::to_vec(&info).map_err(|e| RecordError::Encode {
            path: self.path.clone(),
            detail: e.to_string(),
        })?;
        let frame =
            encode_frame(KIND_SESSION, 0, now_ms, &payload).ok_or_else(|| RecordError::Encode {
                path: self.path.clone(),
                detail: "session header too large".into(),
            })?;
        self.write_frame(&frame)
            .map_err(|e| RecordError::io(&self.path, "writing", e))
    }

    /// Appends one snapshot, collected with `details`; returns the bytes written.
    pub fn append(
        &mut self,
        snapshot: &Snapshot,
        details: &DetailScope,
    ) -> Result<u64, RecordError> {
        let encode_error = |detail: String| RecordError::Encode {
            path: self.path.clone(),
            detail,
        };
        let encoded = self
            .encoder
            .encode(snapshot, details)
            .map_err(encode_error)?;
        let frame = encode_frame(
            KIND_SNAPSHOT,
            encoded.flags,
            snapshot.meta.collected_at_ms,
            &encoded.payload,
        )
        .ok_or_else(|| encode_error("the snapshot is too large for one record".into()))?;
        self.write_frame(&frame)
            .map_err(|e| RecordError::io(&self.path, "writing", e))?;
        self.encoder.commit(encoded);
        self.written += 1;
        Ok(frame.len() as u64)
    }

    /// Appends `snapshot`; when that fails, says so in the snapshot's warnings
    /// (so every view shows it) and returns the message. Recording is retried
    /// with the next snapshot.
    pub fn record_into(
        &mut self,
        snapshot: &mut Snapshot,
        details: &DetailScope,
    ) -> Option<String> {
        match self.append(snapshot, details) {
            Ok(_) => None,
            Err(e) => {
                let message =
                    format!("snapshot not recorded: {e} (restop retries with the next one)");
                snapshot
                    .meta
                    .warnings
                    .push(Warning::new(WarningKind::Other, message.clone()));
                Some(message)
            }
        }
    }

    fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        let closed = Arc::clone(&self.closed);
        let closed = closed
            .lock()
            .map_err(|_| io::Error::other("recording closed"))?;
        if *closed {
            return Err(io::Error::other(
                "the recording was closed: restop is exiting",
            ));
        }
        if self.dirty {
            self.file.set_len(self.end)?;
            self.dirty = false;
        }
        match self.file.write_all(frame) {
            Ok(()) => {
                self.end += frame.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Part of the frame may be on disk: cut it off now, or before
                // the next write, so no torn frame sits between whole ones.
                self.dirty = self.file.set_len(self.end).is_err();
                Err(e)
            }
        }
    }
}

/// On a forced exit (a termination signal while the run is blocked, see
/// `signals::watchdog`), waits for the frame being written to be whole, syncs
/// the file and lets no later frame start: the recording ends on a frame
/// boundary. `fd` stays open as long as the hook is registered.
fn close_on_forced_exit(
    closed: Arc<Mutex<bool>>,
    fd: std::os::fd::RawFd,
) -> crate::signals::ExitHook {
    crate::signals::on_forced_exit(move || {
        if let Ok(mut closed) = closed.lock() {
            *closed = true;
            // SAFETY: `fd` is the recording's, open while the hook is registered.
            let _ = unsafe { nix::libc::fdatasync(fd) };
        }
    })
}

/// A new recording's mode: it holds other users' command lines and names.
pub(crate) const RECORDING_MODE: u32 = 0o600;

/// Opens `path` for appending without being led elsewhere: in a directory
/// nobody else can swap files in (`shared_dir`); a symlink at the
/// path is refused (`O_NOFOLLOW`), and so is anything but a regular file with
/// one name (a hard link planted to another file), or a file that belongs to
/// another user (one prepared for restop to fill). A new file is created
/// with `RECORDING_MODE`, whatever the umask.
fn open_for_recording(path: &Path, name: &str) -> Result<(File, bool), RecordError> {
    let opening = |e| RecordError::io(name, "opening for recording", e);
    // Where others may swap files, the recording could be replaced under its name.
    crate::shared_dir::check(&crate::shared_dir::directory_of(path), "a recording")
        .map_err(opening)?;
    let open = |create_new: bool| {
        OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(create_new)
            .mode(RECORDING_MODE)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
            .open(path)
    };
    let (file, created) = match open(true) {
        Ok(file) => Ok((file, true)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => open(false).map(|f| (f, false)),
        Err(e) => Err(e),
    }
    .map_err(|e| {
        if e.raw_os_error() == Some(nix::libc::ELOOP) {
            opening(io::Error::other(
                "it is a symbolic link; restop records only to a regular file it opens directly",
            ))
        } else {
            opening(e)
        }
    })?;
    let meta = file.metadata().map_err(opening)?;
    if !meta.file_type().is_file() {
        return Err(opening(io::Error::other("not a regular file")));
    }
    if meta.nlink() > 1 {
        return Err(opening(io::Error::other(
            "the file has other names (hard links); restop does not record into a shared file",
        )));
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(opening(io::Error::other(format!(
            "the file belongs to uid {}, not to restop's user (uid {me}); record to a file of your own",
            meta.uid()
        ))));
    }
    if meta.len() == 0 {
        // New (or empty): ours to give a deliberate mode.
        file.set_permissions(std::fs::Permissions::from_mode(RECORDING_MODE))
            .map_err(opening)?;
    }
    Ok((file, created))
}

/// Removes the file this run created when not even its start could be
/// written (a full disk): no 0-byte "recording" is left behind. Only when
/// the name still holds that file.
fn remove_created(path: &Path, file: &File) {
    let same = match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(ours), Ok(there)) => (ours.dev(), ours.ino()) == (there.dev(), there.ino()),
        _ => false,
    };
    if same {
        let _ = std::fs::remove_file(path);
    }
}

impl Drop for RecordWriter {
    fn drop(&mut self) {
        // Best effort: whole frames already written survive a restop crash
        // without it; this narrows what a power loss right after can take.
        let _ = self.file.sync_data();
    }
}
