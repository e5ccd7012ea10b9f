//! Device events (`RDMA_NLDEV_CMD_MONITOR`) on bytes in the kernel's layout,
//! and the live source's choice between listening and polling from what
//! `SYS_GET` says. The VM test (`netns_vm`) checks that a device added on a
//! 7.x kernel reaches the exporter without waiting for the tick, and that a
//! 6.1 kernel, which sends none, is polled.

use crate::support::fake_kernel::FakeKernel;
use crate::support::fake_proc::FakeProc;
use restop::collect::{LiveOptions, LiveSource};
use restop::nldev::consts::{NLM_F_MULTI, attr, cmd, event, nldev_type};
use restop::nldev::event::parse_events;
use restop::nldev::fixture::{Attrs, done, message};
use restop::nldev::{EventKind, NldevClient};
use restop::source::{CollectRequest, Source};

/// A `MONITOR` message as `rdma_nl_notify_event` builds it: multicast, seq 0,
/// no flags; `EVENT_TYPE` after the device attributes.
fn event_message(attrs: Attrs) -> Vec<u8> {
    message(nldev_type(cmd::MONITOR), 0, 0, attrs.as_bytes())
}

#[test]
fn the_monitor_command_and_attributes_have_the_uapi_numbers() {
    // include/uapi/rdma/rdma_netlink.h: RDMA_NLDEV_CMD_MONITOR = 28,
    // RDMA_NLDEV_ATTR_EVENT_TYPE = 102, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE = 103,
    // RDMA_NL_GROUP_NOTIFY = 4; events REGISTER 0 .. NETDEV_RENAME 5.
    assert_eq!(nldev_type(cmd::MONITOR), 0x141c);
    assert_eq!(attr::EVENT_TYPE, 102);
    assert_eq!(attr::SYS_ATTR_MONITOR_MODE, 103);
    assert_eq!(restop::nldev::consts::RDMA_NL_GROUP_NOTIFY, 4);
    assert_eq!(
        [
            event::REGISTER,
            event::UNREGISTER,
            event::NETDEV_ATTACH,
            event::NETDEV_DETACH,
            event::RENAME,
            event::NETDEV_RENAME
        ],
        [0, 1, 2, 3, 4, 5]
    );
}

#[test]
fn link_add_and_delete_events_are_read_in_order() {
    // What `rdma link add rxe2 type rxe netdev dummy2` and `rdma link delete rxe2`
    // make the kernel send: register, netdev attach, then netdev detach, unregister.
    let mut datagram = Vec::new();
    datagram.extend(event_message(
        Attrs::new()
            .u32(attr::DEV_INDEX, 2)
            .string(attr::DEV_NAME, "rxe2")
            .u8(attr::EVENT_TYPE, event::REGISTER),
    ));
    datagram.extend(event_message(
        Attrs::new()
            .u32(attr::DEV_INDEX, 2)
            .u32(attr::PORT_INDEX, 1)
            .u32(attr::NDEV_INDEX, 5)
            .string(attr::NDEV_NAME, "dummy2")
            .u8(attr::EVENT_TYPE, event::NETDEV_ATTACH),
    ));
    datagram.extend(event_message(
        Attrs::new()
            .u32(attr::DEV_INDEX, 2)
            .pad()
            .u8(attr::EVENT_TYPE, event::UNREGISTER),
    ));
    let events = parse_events(&datagram).unwrap();
    let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::Register,
            EventKind::NetdevAttach,
            EventKind::Unregister
        ]
    );
    assert!(events.iter().all(|e| e.device == Some(2)));
    assert_eq!(events[1].netdev.as_deref(), Some("dummy2"));
}

#[test]
fn dump_replies_and_control_messages_on_the_group_socket_are_no_events() {
    let mut datagram = message(
        nldev_type(cmd::GET),
        NLM_F_MULTI,
        0,
        Attrs::new().u32(attr::DEV_INDEX, 0).as_bytes(),
    );
    datagram.extend(done(0));
    assert!(parse_events(&datagram).unwrap().is_empty());
}

#[test]
fn truncated_and_garbled_event_bytes_are_errors_never_panics() {
    let good = event_message(
        Attrs::new()
            .u32(attr::DEV_INDEX, 2)
            .string(attr::DEV_NAME, "rxe2")
            .u8(attr::EVENT_TYPE, event::REGISTER),
    );
    for cut in 0..good.len() {
        let _ = parse_events(&good[..cut]);
    }
    let mut flipped = good.clone();
    for i in 0..flipped.len() {
        flipped[i] ^= 0xff;
        let _ = parse_events(&flipped);
        flipped[i] ^= 0xff;
    }
}

#[test]
fn a_kernel_without_monitor_mode_is_polled_and_says_so() {
    // The captured 6.1 kernel's SYS_GET has no SYS_ATTR_MONITOR_MODE.
    let proc = FakeProc::captured_host();
    let options = LiveOptions {
        proc_root: proc.root().to_path_buf(),
        sys_root: proc.root().join("no-sysfs"),
        verbs: false,
        own_pid: 1,
        ..LiveOptions::default()
    };
    let mut src = LiveSource::with_client(NldevClient::new(FakeKernel::captured_host()), options);
    assert_eq!(src.listens_to_device_events(), None);
    src.collect(&CollectRequest::default()).unwrap();
    assert_eq!(src.listens_to_device_events(), Some(false));
    // What it says (with RESTOP_DEBUG, on stderr) is not one of the limits' notes.
    assert!(
        src.take_notes()
            .iter()
            .all(|n| !n.contains("device events"))
    );
    src.collect(&CollectRequest::default()).unwrap();
    assert_eq!(src.listens_to_device_events(), Some(false));
}
