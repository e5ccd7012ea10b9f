//! A signal to send to a process, as the signal dialog asks for it
//! (`Command::Signal`) and as the data feed answers (`Event::SignalResult`):
//! the one request through which the view acts on a host. The dialog that
//! builds it is `screens/signal/`; the feed that carries it out is the
//! runtime's (`terminal::Feed::send_signal`).

/// The signals the dialog offers, in the order shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalKind {
    Term,
    Int,
    Hup,
    Kill,
}

impl SignalKind {
    pub const ALL: [SignalKind; 4] = [
        SignalKind::Term,
        SignalKind::Int,
        SignalKind::Hup,
        SignalKind::Kill,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SignalKind::Term => "SIGTERM",
            SignalKind::Int => "SIGINT",
            SignalKind::Hup => "SIGHUP",
            SignalKind::Kill => "SIGKILL",
        }
    }
}

/// What the event loop is asked to send, and to whom: the process that had
/// `start_time` as pid `pid` when the snapshot was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalRequest {
    pub pid: u32,
    /// `/proc/<pid>/stat` field 22 in the snapshot.
    pub start_time: u64,
    pub signal: SignalKind,
}

/// How sending went; comes back to the application as an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignalOutcome {
    Sent,
    /// No process has this pid any more.
    Gone,
    /// The pid now belongs to another process (its start time differs).
    Reused,
    /// EPERM: another user's process.
    NotPermitted,
    Failed(String),
}

impl SignalOutcome {
    /// The footer's line about `request`.
    pub fn message(&self, request: &SignalRequest) -> String {
        let (sig, pid) = (request.signal.name(), request.pid);
        match self {
            SignalOutcome::Sent => format!("{sig} sent to pid {pid}"),
            SignalOutcome::Gone => format!("pid {pid} is gone: nothing sent"),
            SignalOutcome::Reused => {
                format!("pid {pid} is now another process (start time differs): nothing sent")
            }
            SignalOutcome::NotPermitted => {
                format!("{sig} to pid {pid} not permitted (run as the process's user or root)")
            }
            SignalOutcome::Failed(e) => format!("{sig} to pid {pid} failed: {e}"),
        }
    }
}
