//! Numbers from `include/uapi/rdma/rdma_netlink.h` and `<linux/netlink.h>`.
//!
//! Only what restop sends or reads is listed; `tests/it/nldev_synthetic.rs` pins the
//! values, because a wrong attribute number parses silently into wrong data.

/// `NETLINK_RDMA`, the netlink protocol number of the RDMA subsystem.
pub const NETLINK_RDMA: i32 = 20;

/// `RDMA_NL_NLDEV`: the nldev client inside NETLINK_RDMA.
pub(crate) const RDMA_NL_NLDEV: u16 = 5;

/// `RDMA_NL_GET_TYPE(client, op)`: the `nlmsg_type` of an nldev request.
pub const fn nldev_type(op: u16) -> u16 {
    (RDMA_NL_NLDEV << 10) + op
}

/// `RDMA_NL_GET_CLIENT(type)`.
pub const fn client_of(nlmsg_type: u16) -> u16 {
    (nlmsg_type >> 10) & 0x3f
}

/// `RDMA_NL_GET_OP(type)`.
pub const fn op_of(nlmsg_type: u16) -> u16 {
    nlmsg_type & 0x3ff
}

/// `enum rdma_nldev_command` (the ops restop uses).
pub mod cmd {
    pub const GET: u16 = 1;
    pub const PORT_GET: u16 = 5;
    pub const SYS_GET: u16 = 6;
    pub const RES_GET: u16 = 9;
    pub const RES_QP_GET: u16 = 10;
    pub const RES_CM_ID_GET: u16 = 11;
    pub const RES_CQ_GET: u16 = 12;
    pub const RES_MR_GET: u16 = 13;
    pub const RES_PD_GET: u16 = 14;
    pub const RES_CTX_GET: u16 = 22;
    pub const RES_SRQ_GET: u16 = 23;
    /// Read-only: restop never sends `STAT_SET` or `STAT_DEL`.
    pub const STAT_GET: u16 = 17;
    /// `RDMA_NLDEV_CMD_MONITOR` (= 28, after `NEWDEV` 26 and `DELDEV` 27; kernel 6.12):
    /// never sent, only received, as the type of the device events multicast to
    /// [`super::RDMA_NL_GROUP_NOTIFY`].
    pub const MONITOR: u16 = 28;
}

/// `enum rdma_nldev_attr` (the attributes restop sends or reads).
pub mod attr {
    /// `RDMA_NLDEV_ATTR_PAD` (= UNSPEC): alignment filler before a u64.
    pub const PAD: u16 = 0;
    pub const DEV_INDEX: u16 = 1;
    pub const DEV_NAME: u16 = 2;
    /// Port number; in a `GET` reply, the number of ports.
    pub const PORT_INDEX: u16 = 3;
    pub const FW_VERSION: u16 = 5;
    pub const NODE_GUID: u16 = 6;
    pub(crate) const SYS_IMAGE_GUID: u16 = 7;
    pub const PORT_STATE: u16 = 12;
    pub const PORT_PHYS_STATE: u16 = 13;
    pub const DEV_NODE_TYPE: u16 = 14;
    pub const RES_SUMMARY: u16 = 15;
    pub const RES_SUMMARY_ENTRY: u16 = 16;
    pub const RES_SUMMARY_ENTRY_NAME: u16 = 17;
    pub const RES_SUMMARY_ENTRY_CURR: u16 = 18;
    pub const RES_QP: u16 = 19;
    pub const RES_QP_ENTRY: u16 = 20;
    pub const RES_LQPN: u16 = 21;
    pub(crate) const RES_RQPN: u16 = 22;
    pub(crate) const RES_RQ_PSN: u16 = 23;
    pub const RES_SQ_PSN: u16 = 24;
    pub const RES_TYPE: u16 = 26;
    pub const RES_STATE: u16 = 27;
    pub const RES_PID: u16 = 28;
    pub const RES_KERN_NAME: u16 = 29;
    pub const RES_CM_ID: u16 = 30;
    pub const RES_CM_ID_ENTRY: u16 = 31;
    pub const RES_PS: u16 = 32;
    pub const RES_SRC_ADDR: u16 = 33;
    pub const RES_DST_ADDR: u16 = 34;
    pub const RES_CQ: u16 = 35;
    pub const RES_CQ_ENTRY: u16 = 36;
    pub const RES_CQE: u16 = 37;
    pub const RES_USECNT: u16 = 38;
    pub const RES_POLL_CTX: u16 = 39;
    pub const RES_MR: u16 = 40;
    pub const RES_MR_ENTRY: u16 = 41;
    pub const RES_RKEY: u16 = 42;
    pub const RES_LKEY: u16 = 43;
    pub const RES_MRLEN: u16 = 45;
    pub const RES_PD: u16 = 46;
    pub const RES_PD_ENTRY: u16 = 47;
    pub const RES_LOCAL_DMA_LKEY: u16 = 48;
    pub const NDEV_INDEX: u16 = 50;
    pub const NDEV_NAME: u16 = 51;
    pub const RES_PDN: u16 = 60;
    pub const RES_CQN: u16 = 61;
    pub const RES_MRN: u16 = 62;
    pub const RES_CM_IDN: u16 = 63;
    pub const RES_CTXN: u16 = 64;
    pub const SYS_ATTR_NETNS_MODE: u16 = 66;
    pub const DEV_PROTOCOL: u16 = 67;
    /// In a CQ entry: 1 when the CQ uses adaptive moderation (DIM).
    pub const DEV_DIM: u16 = 84;
    pub const RES_CTX: u16 = 86;
    pub const RES_CTX_ENTRY: u16 = 87;
    pub const RES_SRQ: u16 = 88;
    pub const RES_SRQ_ENTRY: u16 = 89;
    pub const RES_SRQN: u16 = 90;
    pub const MIN_RANGE: u16 = 91;
    pub const MAX_RANGE: u16 = 92;
    /// Device limit for one summary entry (kernel commit `5911f6d6e7cc`).
    pub const RES_SUMMARY_ENTRY_MAX: u16 = 118;
    pub(crate) const STAT_MODE: u16 = 74;
    pub(crate) const STAT_RES: u16 = 75;
    pub(crate) const STAT_COUNTER: u16 = 77;
    pub(crate) const STAT_COUNTER_ENTRY: u16 = 78;
    pub(crate) const STAT_COUNTER_ID: u16 = 79;
    pub const STAT_HWCOUNTERS: u16 = 80;
    pub const STAT_HWCOUNTER_ENTRY: u16 = 81;
    pub const STAT_HWCOUNTER_ENTRY_NAME: u16 = 82;
    pub const STAT_HWCOUNTER_ENTRY_VALUE: u16 = 83;
    /// `RDMA_NLDEV_ATTR_EVENT_TYPE` (u8, kernel 6.12): what a `MONITOR` message
    /// reports, one of [`super::event`].
    pub const EVENT_TYPE: u16 = 102;
    /// `RDMA_NLDEV_SYS_ATTR_MONITOR_MODE` (u8, kernel 6.12): in a `SYS_GET` reply, 1
    /// when the kernel sends `MONITOR` events; absent on kernels without them.
    pub const SYS_ATTR_MONITOR_MODE: u16 = 103;
}

/// `enum rdma_nl_notify_event_type`, the values of `EVENT_TYPE`.
pub mod event {
    /// `RDMA_REGISTER_EVENT`: a device appeared (`rdma link add`, a driver probe).
    pub const REGISTER: u8 = 0;
    /// `RDMA_UNREGISTER_EVENT`: a device is going away.
    pub const UNREGISTER: u8 = 1;
    /// `RDMA_NETDEV_ATTACH_EVENT`: a port got its netdev.
    pub const NETDEV_ATTACH: u8 = 2;
    /// `RDMA_NETDEV_DETACH_EVENT`: a port lost its netdev.
    pub const NETDEV_DETACH: u8 = 3;
    /// `RDMA_RENAME_EVENT` (kernel 6.13): the device was renamed.
    pub const RENAME: u8 = 4;
    /// `RDMA_NETDEV_RENAME_EVENT` (kernel 6.13): a port's netdev was renamed.
    pub const NETDEV_RENAME: u8 = 5;
}

/// `RDMA_NL_GROUP_NOTIFY`: the multicast group of the `MONITOR` events (after
/// `RDMA_NL_GROUP_IWPM` = 2 and `RDMA_NL_GROUP_LS` = 3); any user may join it
/// (`NL_CFG_F_NONROOT_RECV`), and each network namespace has its own.
pub const RDMA_NL_GROUP_NOTIFY: u32 = 4;

/// `nla_type` flag bits; the attribute number is `nla_type & NLA_TYPE_MASK`.
pub(crate) const NLA_F_NESTED: u16 = 0x8000;
pub const NLA_TYPE_MASK: u16 = 0x3fff;

/// Netlink control message types (`NLMSG_*`).
pub const NLMSG_NOOP: u16 = 1;
pub const NLMSG_ERROR: u16 = 2;
pub const NLMSG_DONE: u16 = 3;
pub const NLMSG_OVERRUN: u16 = 4;
/// Types below this are reserved for netlink control messages.
pub(crate) const NLMSG_MIN_TYPE: u16 = 0x10;

/// `struct nlmsghdr` and `struct nlattr` sizes.
pub(crate) const NLMSG_HDRLEN: usize = 16;
pub(crate) const NLA_HDRLEN: usize = 4;

pub const NLM_F_MULTI: u16 = 0x2;
pub const NLM_F_ACK: u16 = 0x4;

/// `RDMA_NLDEV_ATTR_SYS_ATTR_NETNS_MODE` values.
pub const NETNS_MODE_EXCLUSIVE: u8 = 0;
pub(crate) const NETNS_MODE_SHARED: u8 = 1;

/// Netlink aligns messages and attributes to 4 bytes.
pub(crate) const fn align4(len: usize) -> usize {
    len.saturating_add(3) & !3
}
