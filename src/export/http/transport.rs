//! A connection's bytes, plain or through TLS, over a non-blocking socket.
//! The event loop reads and writes a [`Transport`] as it would the socket:
//! `WouldBlock` means "wait for the socket", whatever the TLS state machine
//! (rustls, driven by hand) needs underneath. The handshake happens inside
//! the first reads, so it runs under the connection's request deadline and
//! within its buffer bounds: a client that connects and never sends a
//! ClientHello is a connection waiting for its head, closed on time.

use rustls::ServerConnection;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

/// Plaintext handed to rustls per write: one full TLS record.
const MAX_PLAINTEXT_PER_WRITE: usize = 16 * 1024;

pub(crate) enum Transport {
    Plain(TcpStream),
    Tls(Box<Tls>),
}

pub(crate) struct Tls {
    tcp: TcpStream,
    session: ServerConnection,
    /// The close_notify alert is queued (once, after the response).
    closing: bool,
}

impl Transport {
    pub(crate) fn new(
        tcp: TcpStream,
        tls: Option<&Arc<rustls::ServerConfig>>,
    ) -> io::Result<Transport> {
        Ok(match tls {
            None => Transport::Plain(tcp),
            Some(config) => Transport::Tls(Box::new(Tls {
                tcp,
                session: ServerConnection::new(Arc::clone(config)).map_err(io::Error::other)?,
                closing: false,
            })),
        })
    }

    pub(crate) fn tcp(&self) -> &TcpStream {
        match self {
            Transport::Plain(tcp) => tcp,
            Transport::Tls(t) => &t.tcp,
        }
    }

    /// TLS records are waiting for the socket to take them (a handshake
    /// flight, the response's tail, the closing alert).
    pub(crate) fn wants_write(&self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => t.session.wants_write(),
        }
    }

    /// Still in the TLS handshake: nothing of HTTP has arrived yet.
    pub(crate) fn is_handshaking(&self) -> bool {
        match self {
            Transport::Plain(_) => false,
            Transport::Tls(t) => t.session.is_handshaking(),
        }
    }

    /// After the whole response was written: queues TLS's closing alert and
    /// pushes out what is pending. `Ok(true)` once the socket took it all.
    pub(crate) fn finish(&mut self) -> io::Result<bool> {
        match self {
            Transport::Plain(_) => Ok(true),
            Transport::Tls(t) => {
                if !t.closing {
                    t.session.send_close_notify();
                    t.closing = true;
                }
                t.flush_records()
            }
        }
    }
}

impl Tls {
    /// Writes pending TLS records; `Ok(false)` when the socket is full.
    fn flush_records(&mut self) -> io::Result<bool> {
        while self.session.wants_write() {
            match self.session.write_tls(&mut self.tcp) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

impl Read for Transport {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let t = match self {
            Transport::Plain(tcp) => return tcp.read(buf),
            Transport::Tls(t) => t,
        };
        loop {
            match t.session.reader().read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            // No plaintext yet: answer the handshake, then take in more records.
            t.flush_records()?;
            match t.session.read_tls(&mut t.tcp) {
                Ok(0) => return Ok(0),
                Ok(_) => {}
                Err(e) => return Err(e),
            }
            if let Err(e) = t.session.process_new_packets() {
                // Tell the client why (the alert rustls queued), as far as the
                // socket takes it now, and give up the connection.
                let _ = t.flush_records();
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
            // The handshake's answer goes out without waiting for the next read.
            t.flush_records()?;
        }
    }
}

impl Write for Transport {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let t = match self {
            Transport::Plain(tcp) => return tcp.write(buf),
            Transport::Tls(t) => t,
        };
        // Records already made go first: rustls' buffer stays one write deep.
        if !t.flush_records()? {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        // One TLS record's worth at a time: what rustls holds for a client
        // that does not read stays about 16 KiB, as for a plain connection.
        let part = buf
            .get(..buf.len().min(MAX_PLAINTEXT_PER_WRITE))
            .unwrap_or(buf);
        let n = t.session.writer().write(part)?;
        t.flush_records()?;
        if n == 0 && !buf.is_empty() {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Transport::Plain(tcp) => tcp.flush(),
            Transport::Tls(t) => t.flush_records().map(|_| ()),
        }
    }
}
