//! The nldev requests restop makes, over any [`Transport`].

use super::attr::TlvError;
use super::consts::{attr as a, cmd};
use super::device::{DeviceInfo, PortInfo, SysInfo, parse_device, parse_port, parse_sys};
use super::error::NlError;
use super::msg::{FrameError, Message, Reply, messages};
use super::objects::{layout, parse_message};
use super::request::{Kind, encode};
use super::socket::SocketTransport;
use super::summary::{DeviceSummary, parse_summary};
use super::transport::Transport;
use crate::model::{Object, ResourceType};
use std::time::Duration;

/// What one object dump moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpStats {
    /// Data messages (the final `NLMSG_DONE` is not counted).
    pub messages: usize,
    /// Records handed to the sink.
    pub entries: usize,
    /// Bytes received, all datagrams included.
    pub bytes: usize,
}

/// Talks nldev over a transport: one request at a time, each read to its end.
#[derive(Debug)]
pub struct NldevClient<T: Transport> {
    transport: T,
    seq: u32,
}

impl NldevClient<SocketTransport> {
    /// Opens a NETLINK_RDMA socket whose reads give up after `timeout`.
    /// Fails with [`NlError::Unsupported`] on kernels without RDMA netlink.
    pub fn open(timeout: Duration) -> Result<Self, NlError> {
        SocketTransport::open(timeout).map(NldevClient::new)
    }
}

impl<T: Transport> NldevClient<T> {
    pub fn new(transport: T) -> Self {
        NldevClient { transport, seq: 0 }
    }

    pub fn transport(&self) -> &T {
        &self.transport
    }

    pub fn into_transport(self) -> T {
        self.transport
    }

    /// All devices in our network namespace (`GET` dump).
    pub fn devices(&mut self) -> Result<Vec<DeviceInfo>, NlError> {
        self.dump_records("GET", cmd::GET, &[], parse_device)
    }

    /// The ports of one device (`PORT_GET` dump with `DEV_INDEX`).
    pub fn ports(&mut self, device: u32) -> Result<Vec<PortInfo>, NlError> {
        let attrs = [(a::DEV_INDEX, device)];
        self.dump_records("PORT_GET", cmd::PORT_GET, &attrs, |payload| {
            parse_port(payload, device)
        })
    }

    /// Resource counts of every device, in one `RES_GET` dump.
    pub fn summaries(&mut self) -> Result<Vec<DeviceSummary>, NlError> {
        self.dump_records("RES_GET", cmd::RES_GET, &[], parse_summary)
    }

    /// One record per message of a dump: what `parse` makes of each message,
    /// skipping the messages it has nothing for.
    fn dump_records<R>(
        &mut self,
        op: &'static str,
        command: u16,
        attrs: &[(u16, u32)],
        parse: impl Fn(&[u8]) -> Result<Option<R>, TlvError>,
    ) -> Result<Vec<R>, NlError> {
        let mut out = Vec::new();
        self.exchange(op, command, Kind::Dump, attrs, |m| {
            out.extend(parse(m.payload).map_err(|e| malformed_attr(op, e))?);
            Ok(())
        })?;
        Ok(out)
    }

    /// System settings (`SYS_GET` doit).
    pub fn sys(&mut self) -> Result<SysInfo, NlError> {
        let op = "SYS_GET";
        let mut sys = SysInfo::default();
        self.exchange(op, cmd::SYS_GET, Kind::Doit, &[], |m| {
            sys = parse_sys(m.payload).map_err(|e| malformed_attr(op, e))?;
            Ok(())
        })?;
        Ok(sys)
    }

    /// Dumps one resource type of one device (`RES_*_GET` with `DEV_INDEX`
    /// and no `PORT_INDEX`), handing each record to `sink` as soon as it is
    /// parsed: nothing of the dump is kept here.
    pub fn dump_objects(
        &mut self,
        device: u32,
        t: ResourceType,
        sink: &mut dyn FnMut(Object),
    ) -> Result<DumpStats, NlError> {
        let layout = layout(t);
        let op = layout.op;
        let mut entries = 0;
        let attrs = [(a::DEV_INDEX, device)];
        let traffic = self.exchange(op, layout.command, Kind::Dump, &attrs, |m| {
            entries +=
                parse_message(m.payload, t, device, sink).map_err(|e| malformed_attr(op, e))?;
            Ok(())
        })?;
        Ok(DumpStats {
            messages: traffic.messages,
            entries,
            bytes: traffic.bytes,
        })
    }

    /// Sends one request and feeds each data message of the reply to
    /// `on_data` until the reply's end. Any failure other than the kernel's
    /// own error reply leaves the exchange unfinished, so the transport is
    /// told to drop the rest.
    pub(super) fn exchange(
        &mut self,
        op: &'static str,
        command: u16,
        kind: Kind,
        attrs: &[(u16, u32)],
        on_data: impl FnMut(&Message<'_>) -> Result<(), NlError>,
    ) -> Result<DumpStats, NlError> {
        self.seq = self.seq.wrapping_add(1);
        let request =
            encode(command, kind, self.seq, attrs).map_err(|detail| NlError::Malformed {
                op,
                detail: format!("could not build the request: {detail}"),
            })?;
        let result = self
            .transport
            .send(op, &request)
            .and_then(|()| read_reply(&mut self.transport, op, on_data));
        if matches!(&result, Err(e) if !matches!(e, NlError::Kernel { .. })) {
            self.transport.abandon();
        }
        result
    }
}

/// Reads datagrams until `NLMSG_DONE` or `NLMSG_ERROR`.
fn read_reply<T: Transport>(
    transport: &mut T,
    op: &'static str,
    mut on_data: impl FnMut(&Message<'_>) -> Result<(), NlError>,
) -> Result<DumpStats, NlError> {
    let mut traffic = DumpStats::default();
    loop {
        let datagram = transport.recv(op)?;
        traffic.bytes += datagram.len();
        for m in messages(datagram) {
            let m = m.map_err(|e| malformed_frame(op, e))?;
            match m.reply().map_err(|e| malformed_frame(op, e))? {
                Reply::Data(m) => {
                    traffic.messages += 1;
                    on_data(&m)?;
                }
                Reply::Done { errno: 0 } | Reply::Error { errno: 0 } => return Ok(traffic),
                Reply::Done { errno } | Reply::Error { errno } => {
                    return Err(NlError::Kernel { op, errno });
                }
                Reply::Noop => {}
            }
        }
    }
}

fn malformed_frame(op: &'static str, e: FrameError) -> NlError {
    NlError::Malformed {
        op,
        detail: e.to_string(),
    }
}

fn malformed_attr(op: &'static str, e: TlvError) -> NlError {
    NlError::Malformed {
        op,
        detail: e.to_string(),
    }
}
