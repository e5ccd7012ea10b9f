//! One client connection of the event loop, as a state machine over a
//! non-blocking socket: reading the request head, writing the response,
//! draining what the client still sends before closing. Nothing here
//! blocks, so one thread serves every connection and a client that trickles,
//! idles or never reads costs a buffer, not a thread.

use super::request::{RequestError, RequestHead, head_end, parse_head};
use super::response::{self, Response};
use super::server::Limits;
use super::transport::Transport;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Most bytes read and dropped after answering (closing with unread input would reset
/// the connection and could destroy the response before the client read it): enough for a client's leftover headers, not for a flood of them.
const MAX_DRAIN: usize = 16 * 1024;

enum State {
    Reading(Vec<u8>),
    Writing {
        head: Vec<u8>,
        response: Response,
        head_only: bool,
        /// Bytes of head + body written so far.
        written: usize,
    },
    Draining {
        drained: usize,
    },
}

pub(crate) struct Connection {
    stream: Transport,
    /// When it was accepted: the oldest connection is the first given up
    /// when the table is full.
    pub accepted: Instant,
    /// When the current state's time runs out.
    pub deadline: Instant,
    state: State,
}

/// What the event loop should wait for on a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wants {
    Read,
    Write,
}

/// The connection is finished (answered, timed out, or gone): close it.
pub(crate) struct Done;

impl Connection {
    pub(crate) fn new(
        stream: TcpStream,
        tls: Option<&Arc<rustls::ServerConfig>>,
        limits: &Limits,
        now: Instant,
    ) -> io::Result<Connection> {
        stream.set_nonblocking(true)?;
        let _ = stream.set_nodelay(true);
        Ok(Connection {
            stream: Transport::new(stream, tls)?,
            accepted: now,
            deadline: now + limits.request_time,
            state: State::Reading(Vec::with_capacity(1024)),
        })
    }

    pub(crate) fn stream(&self) -> &TcpStream {
        self.stream.tcp()
    }

    pub(crate) fn wants(&self) -> Wants {
        match self.state {
            State::Writing { .. } => Wants::Write,
            // A TLS handshake flight the socket could not take yet.
            State::Reading(_) if self.stream.wants_write() => Wants::Write,
            State::Reading(_) | State::Draining { .. } => Wants::Read,
        }
    }

    /// Whether it is still waiting for its request head.
    pub(crate) fn is_reading(&self) -> bool {
        matches!(self.state, State::Reading(_))
    }

    /// Makes what progress the socket allows. `respond` answers a complete head.
    pub(crate) fn advance(
        &mut self,
        limits: &Limits,
        now: Instant,
        respond: &dyn Fn(&RequestHead) -> Response,
    ) -> Result<(), Done> {
        if now >= self.deadline {
            return self.time_up(limits, now);
        }
        match &mut self.state {
            State::Reading(buf) => match read_more(&mut self.stream, buf, limits) {
                Ok(None) => Ok(()),
                Ok(Some(head)) => {
                    let head_only = head.method == "HEAD";
                    self.start_writing(respond(&head), head_only, limits, now)
                }
                Err(error) => match error_response(error) {
                    Some(response) => self.start_writing(response, false, limits, now),
                    None => Err(Done),
                },
            },
            State::Writing { .. } => self.write_more(limits, now),
            State::Draining { drained } => drain(self.stream.tcp(), drained),
        }
    }

    /// The state's time is up: a head that did not arrive gets 408, anything
    /// else is closed.
    fn time_up(&mut self, limits: &Limits, now: Instant) -> Result<(), Done> {
        // No TLS session to answer through: just close.
        if self.is_reading() && !self.stream.is_handshaking() {
            let response = Response::error(408, "the request did not arrive in time");
            return self.start_writing(response, false, limits, now);
        }
        Err(Done)
    }

    fn start_writing(
        &mut self,
        response: Response,
        head_only: bool,
        limits: &Limits,
        now: Instant,
    ) -> Result<(), Done> {
        self.state = State::Writing {
            head: response::head(&response, SystemTime::now()).into_bytes(),
            response,
            head_only,
            written: 0,
        };
        self.deadline = now + limits.response_time;
        self.write_more(limits, now)
    }

    fn write_more(&mut self, limits: &Limits, now: Instant) -> Result<(), Done> {
        let State::Writing {
            head,
            response,
            head_only,
            written,
        } = &mut self.state
        else {
            return Ok(());
        };
        let body: &[u8] = if *head_only {
            &[]
        } else {
            response.body.bytes()
        };
        loop {
            let (part, offset) = if *written < head.len() {
                (head.as_slice(), *written)
            } else {
                (body, *written - head.len())
            };
            let Some(rest) = part.get(offset..).filter(|r| !r.is_empty()) else {
                break;
            };
            match self.stream.write(rest) {
                Ok(0) => return Err(Done),
                Ok(n) => *written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Done),
            }
        }
        // TLS: the last records and the closing alert go out first.
        match self.stream.finish() {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(_) => return Err(Done),
        }
        // Answered: shut our side and read what the client still sends for
        // a moment, so unread input does not reset the connection before the
        // client has read the response.
        if self.stream.tcp().shutdown(Shutdown::Write).is_err() {
            return Err(Done);
        }
        self.state = State::Draining { drained: 0 };
        self.deadline = now + limits.linger;
        Ok(())
    }
}

/// Reads what is there; the parsed head once it is complete.
fn read_more(
    stream: &mut Transport,
    buf: &mut Vec<u8>,
    limits: &Limits,
) -> Result<Option<RequestHead>, RequestError> {
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = head_end(buf) {
            return parse_head(buf.get(..end).unwrap_or_default()).map(Some);
        }
        if buf.len() > limits.max_request_bytes {
            return Err(RequestError::TooLarge);
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(RequestError::Closed),
            Ok(n) => buf.extend_from_slice(chunk.get(..n).unwrap_or_default()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(RequestError::Closed),
        }
    }
}

/// Reads the raw socket (after a TLS close, records are dropped undecrypted).
fn drain(mut stream: &TcpStream, drained: &mut usize) -> Result<(), Done> {
    let mut buf = [0u8; 4096];
    while *drained < MAX_DRAIN {
        match stream.read(&mut buf) {
            Ok(0) => return Err(Done),
            Ok(n) => *drained += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Done),
        }
    }
    Err(Done)
}

/// The answer to a head that could not be read, if any (a client that went
/// away gets none).
fn error_response(error: RequestError) -> Option<Response> {
    Some(match error {
        RequestError::Closed | RequestError::Io(_) => return None,
        RequestError::Timeout => Response::error(408, "the request did not arrive in time"),
        RequestError::TooLarge => Response::error(431, "the request head is too large"),
        RequestError::Version => Response::error(505, "only HTTP/1.0 and HTTP/1.1 are served"),
        RequestError::Malformed(why) => Response::error(400, why),
    })
}
