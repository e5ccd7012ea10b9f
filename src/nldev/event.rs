//! `RDMA_NLDEV_CMD_MONITOR` messages: the device events a kernel from 6.12 on
//! multicasts to `RDMA_NL_GROUP_NOTIFY` (docs/netlink.md), parsed into
//! [`DeviceEvent`]s.
//!
//! An event carries `EVENT_TYPE`, `DEV_INDEX` and, for the netdev events,
//! `PORT_INDEX`, `NDEV_INDEX` and `NDEV_NAME` (`rdma_nl_notify_event` in
//! `drivers/infiniband/core/nldev.c`); `DEV_NAME` is read when present. What
//! restop does with an event is re-enumerate the devices, so the parser keeps
//! only what names it; anything else in a datagram (other commands, control
//! messages) is skipped, and a malformed event is an error value, never a panic.

use super::attr::{TlvError, attrs};
use super::consts::{attr as a, cmd, event, op_of};
use super::msg::{Reply, messages};

/// What a device event says happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Register,
    Unregister,
    NetdevAttach,
    NetdevDetach,
    Rename,
    NetdevRename,
    /// A type this restop does not know (a newer kernel): still a reason to look again.
    Other(u8),
}

impl EventKind {
    pub fn from_raw(raw: u8) -> EventKind {
        match raw {
            event::REGISTER => EventKind::Register,
            event::UNREGISTER => EventKind::Unregister,
            event::NETDEV_ATTACH => EventKind::NetdevAttach,
            event::NETDEV_DETACH => EventKind::NetdevDetach,
            event::RENAME => EventKind::Rename,
            event::NETDEV_RENAME => EventKind::NetdevRename,
            other => EventKind::Other(other),
        }
    }

    /// The words of iproute2's `rdma monitor` for the same event.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Register => "register",
            EventKind::Unregister => "unregister",
            EventKind::NetdevAttach => "netdev attach",
            EventKind::NetdevDetach => "netdev detach",
            EventKind::Rename => "rename",
            EventKind::NetdevRename => "netdev rename",
            EventKind::Other(_) => "unknown event",
        }
    }
}

/// One device event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceEvent {
    pub kind: EventKind,
    pub device: Option<u32>,
    pub name: Option<String>,
    pub port: Option<u32>,
    pub netdev: Option<String>,
}

/// Why a datagram could not be read as events.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("malformed device event message: {0}")]
    Frame(String),
    #[error("malformed device event attribute: {0}")]
    Attr(String),
}

impl From<TlvError> for EventError {
    fn from(e: TlvError) -> EventError {
        EventError::Attr(e.to_string())
    }
}

/// Every `MONITOR` event of one datagram, in order. Messages of other
/// commands and control messages are skipped; a `MONITOR` message without
/// `EVENT_TYPE` is no event.
pub fn parse_events(datagram: &[u8]) -> Result<Vec<DeviceEvent>, EventError> {
    let mut out = Vec::new();
    for m in messages(datagram) {
        let m = m.map_err(|e| EventError::Frame(e.to_string()))?;
        let Ok(Reply::Data(m)) = m.reply() else {
            continue;
        };
        if op_of(m.header.kind) != cmd::MONITOR {
            continue;
        }
        if let Some(e) = parse_event(m.payload)? {
            out.push(e);
        }
    }
    Ok(out)
}

/// One `MONITOR` message's attributes.
pub(crate) fn parse_event(payload: &[u8]) -> Result<Option<DeviceEvent>, EventError> {
    let mut kind = None;
    let mut e = DeviceEvent {
        kind: EventKind::Other(u8::MAX),
        device: None,
        name: None,
        port: None,
        netdev: None,
    };
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::EVENT_TYPE => kind = Some(EventKind::from_raw(at.u8()?)),
            a::DEV_INDEX => e.device = Some(at.u32()?),
            a::DEV_NAME => e.name = Some(at.string()).filter(|s| !s.is_empty()),
            a::PORT_INDEX => e.port = Some(at.u32()?),
            a::NDEV_NAME => e.netdev = Some(at.string()).filter(|s| !s.is_empty()),
            _ => {}
        }
    }
    Ok(kind.map(|kind| DeviceEvent { kind, ..e }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nldev::consts::nldev_type;
    use crate::nldev::fixture::{Attrs, message};

    fn event_message(attrs: Attrs) -> Vec<u8> {
        // The kernel multicasts events with seq 0, pid 0 and no flags.
        message(nldev_type(cmd::MONITOR), 0, 0, attrs.as_bytes())
    }

    #[test]
    fn a_register_and_a_netdev_attach_in_one_datagram() {
        let mut d = event_message(
            Attrs::new()
                .u8(a::EVENT_TYPE, event::REGISTER)
                .u32(a::DEV_INDEX, 3)
                .string(a::DEV_NAME, "rxe1"),
        );
        d.extend(event_message(
            Attrs::new()
                .u8(a::EVENT_TYPE, event::NETDEV_ATTACH)
                .u32(a::DEV_INDEX, 3)
                .u32(a::PORT_INDEX, 1)
                .u32(a::NDEV_INDEX, 7)
                .string(a::NDEV_NAME, "dummy1"),
        ));
        let events = parse_events(&d).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].kind, EventKind::Register);
        assert_eq!(events[0].name.as_deref(), Some("rxe1"));
        assert_eq!(events[1].kind, EventKind::NetdevAttach);
        assert_eq!(events[1].port, Some(1));
        assert_eq!(events[1].netdev.as_deref(), Some("dummy1"));
    }

    #[test]
    fn other_commands_and_events_without_a_type_are_skipped() {
        let mut d = message(
            nldev_type(cmd::GET),
            0,
            0,
            Attrs::new().u32(a::DEV_INDEX, 1).as_bytes(),
        );
        d.extend(event_message(Attrs::new().u32(a::DEV_INDEX, 1)));
        assert!(parse_events(&d).unwrap().is_empty());
    }

    #[test]
    fn unknown_types_are_still_events_and_bad_bytes_are_errors() {
        let d = event_message(Attrs::new().u8(a::EVENT_TYPE, 42));
        assert_eq!(parse_events(&d).unwrap()[0].kind, EventKind::Other(42));
        // DEV_INDEX with a 1-byte payload.
        let bad = event_message(
            Attrs::new()
                .u8(a::EVENT_TYPE, event::UNREGISTER)
                .bytes(a::DEV_INDEX, &[1]),
        );
        assert!(matches!(parse_events(&bad), Err(EventError::Attr(_))));
        assert!(parse_events(&[1, 2, 3]).is_err());
        for cut in 0..bad.len() {
            let _ = parse_events(&bad[..cut]);
        }
    }
}
