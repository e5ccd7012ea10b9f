//! The kernel's standard ethtool statistics over ethtool netlink (the
//! generic netlink family `ethtool`): the pause group (`ETHTOOL_MSG_PAUSE_GET`
//! with `ETHTOOL_FLAG_STATS`, `ethtool -I -a`) and the IEEE 802.3 groups
//! (`ETHTOOL_MSG_STATS_GET` for eth-mac, eth-ctrl and rmon, `ethtool -S
//! --groups`). Both are read-only GETs that need no privilege.
//!
//! Written here rather than taken from rust-netlink's `ethtool` crate: that
//! crate runs on an async runtime (tokio or async-std) the rest of restop has
//! no use for, and has no `STATS_GET`; neli (already restop's netlink
//! serialiser) has no ethtool family. The requests are a few fixed bytes;
//! replies are walked with restop's own zero-copy attribute walker
//! (`nldev::attr`), and every length is checked there.

use crate::nldev::NlError;
use crate::nldev::Transport;
use crate::nldev::attr::{TlvError, attrs};
use crate::nldev::consts::{NLA_F_NESTED, NLMSG_DONE, NLMSG_ERROR, align4};
use crate::nldev::msg::messages;
use std::collections::BTreeMap;

/// The generic netlink controller and its family lookup.
const GENL_ID_CTRL: u16 = 0x10;
const CTRL_CMD_GETFAMILY: u8 = 3;
const CTRL_ATTR_FAMILY_ID: u16 = 1;
const CTRL_ATTR_FAMILY_NAME: u16 = 2;

/// `include/uapi/linux/ethtool_netlink.h`.
pub(crate) const ETHTOOL_MSG_PAUSE_GET: u8 = 21;
pub(crate) const ETHTOOL_MSG_STATS_GET: u8 = 32;
const ETHTOOL_A_HEADER_DEV_NAME: u16 = 2;
const ETHTOOL_A_HEADER_FLAGS: u16 = 3;
const ETHTOOL_FLAG_STATS: u32 = 1 << 2;
const ETHTOOL_A_PAUSE_HEADER: u16 = 1;
const ETHTOOL_A_PAUSE_STATS: u16 = 5;
const ETHTOOL_A_PAUSE_STAT_TX_FRAMES: u16 = 2;
const ETHTOOL_A_PAUSE_STAT_RX_FRAMES: u16 = 3;
const ETHTOOL_A_STATS_HEADER: u16 = 2;
const ETHTOOL_A_STATS_GROUPS: u16 = 3;
const ETHTOOL_A_STATS_GRP: u16 = 4;
const ETHTOOL_A_STATS_GRP_ID: u16 = 2;
const ETHTOOL_A_STATS_GRP_STAT: u16 = 4;
const ETHTOOL_A_BITSET_NOMASK: u16 = 1;
const ETHTOOL_A_BITSET_SIZE: u16 = 2;
const ETHTOOL_A_BITSET_VALUE: u16 = 4;

/// Stats group ids (`ETHTOOL_STATS_*`) and the names `ethtool -S --groups`
/// gives their counters, by index within the group.
const ETH_MAC: u32 = 1;
const ETH_CTRL: u32 = 2;
const RMON: u32 = 3;
const ETH_MAC_NAMES: &[&str] = &[
    "FramesTransmittedOK",
    "SingleCollisionFrames",
    "MultipleCollisionFrames",
    "FramesReceivedOK",
    "FrameCheckSequenceErrors",
    "AlignmentErrors",
    "OctetsTransmittedOK",
    "FramesWithDeferredXmissions",
    "LateCollisions",
    "FramesAbortedDueToXSColls",
    "FramesLostDueToIntMACXmitError",
    "CarrierSenseErrors",
    "OctetsReceivedOK",
    "FramesLostDueToIntMACRcvError",
    "MulticastFramesXmittedOK",
    "BroadcastFramesXmittedOK",
    "FramesWithExcessiveDeferral",
    "MulticastFramesReceivedOK",
    "BroadcastFramesReceivedOK",
    "InRangeLengthErrors",
    "OutOfRangeLengthField",
    "FrameTooLongErrors",
];
const ETH_CTRL_NAMES: &[&str] = &[
    "MACControlFramesTransmitted",
    "MACControlFramesReceived",
    "UnsupportedOpcodesReceived",
];
const RMON_NAMES: &[&str] = &[
    "etherStatsUndersizePkts",
    "etherStatsOversizePkts",
    "etherStatsFragments",
    "etherStatsJabbers",
];

/// Why ethtool netlink gave nothing for a netdev.
#[derive(Debug)]
pub(crate) enum EthtoolError {
    /// The kernel has no `ethtool` genetlink family (before 5.6).
    NoFamily,
    /// The kernel refused the request (EOPNOTSUPP: the driver has no such
    /// statistics; ENODEV: the netdev is gone or in another namespace).
    Kernel(i32),
    /// The socket, a timeout, or a reply restop cannot read.
    Other(String),
}

impl std::fmt::Display for EthtoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EthtoolError::NoFamily => write!(f, "the kernel has no ethtool netlink"),
            EthtoolError::Kernel(errno) => {
                write!(f, "{}", nix::errno::Errno::from_raw(*errno).desc())
            }
            EthtoolError::Other(why) => write!(f, "{why}"),
        }
    }
}

impl From<NlError> for EthtoolError {
    fn from(e: NlError) -> EthtoolError {
        match e.errno() {
            Some(errno) => EthtoolError::Kernel(errno),
            None => EthtoolError::Other(e.to_string()),
        }
    }
}

impl From<TlvError> for EthtoolError {
    fn from(e: TlvError) -> EthtoolError {
        EthtoolError::Other(format!("malformed ethtool reply: {e}"))
    }
}

/// One attribute, padded.
fn put_attr(out: &mut Vec<u8>, kind: u16, payload: &[u8]) {
    let len = 4 + payload.len();
    out.extend_from_slice(&(len as u16).to_ne_bytes());
    out.extend_from_slice(&kind.to_ne_bytes());
    out.extend_from_slice(payload);
    out.resize(out.len() + (align4(len) - len), 0);
}

fn nest(kind: u16, inner: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    put_attr(&mut out, kind | NLA_F_NESTED, inner);
    out
}

/// `nlmsghdr` + `genlmsghdr` + attributes; acknowledged, so every
/// exchange ends with `NLMSG_ERROR`.
pub(crate) fn request(family: u16, cmd: u8, seq: u32, attributes: &[u8]) -> Vec<u8> {
    const NLM_F_REQUEST: u16 = 1;
    const NLM_F_ACK: u16 = 4;
    let len = 16 + 4 + attributes.len();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&(len as u32).to_ne_bytes());
    out.extend_from_slice(&family.to_ne_bytes());
    out.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    out.extend_from_slice(&seq.to_ne_bytes());
    out.extend_from_slice(&0u32.to_ne_bytes());
    out.extend_from_slice(&[cmd, 1, 0, 0]);
    out.extend_from_slice(attributes);
    out
}

/// The request header nest naming a netdev, asking for statistics.
fn header(kind: u16, netdev: &str) -> Vec<u8> {
    let mut inner = Vec::new();
    let mut name = netdev.as_bytes().to_vec();
    name.push(0);
    put_attr(&mut inner, ETHTOOL_A_HEADER_DEV_NAME, &name);
    put_attr(
        &mut inner,
        ETHTOOL_A_HEADER_FLAGS,
        &ETHTOOL_FLAG_STATS.to_ne_bytes(),
    );
    nest(kind, &inner)
}

pub(crate) fn pause_request(family: u16, seq: u32, netdev: &str) -> Vec<u8> {
    request(
        family,
        ETHTOOL_MSG_PAUSE_GET,
        seq,
        &header(ETHTOOL_A_PAUSE_HEADER, netdev),
    )
}

/// eth-mac, eth-ctrl and rmon, as a compact bitset without a mask.
pub(crate) fn stats_request(family: u16, seq: u32, netdev: &str) -> Vec<u8> {
    let mut attributes = header(ETHTOOL_A_STATS_HEADER, netdev);
    let mut bitset = Vec::new();
    put_attr(&mut bitset, ETHTOOL_A_BITSET_NOMASK, &[]);
    put_attr(&mut bitset, ETHTOOL_A_BITSET_SIZE, &4u32.to_ne_bytes());
    let bits: u32 = (1 << ETH_MAC) | (1 << ETH_CTRL) | (1 << RMON);
    put_attr(&mut bitset, ETHTOOL_A_BITSET_VALUE, &bits.to_ne_bytes());
    attributes.extend(nest(ETHTOOL_A_STATS_GROUPS, &bitset));
    request(family, ETHTOOL_MSG_STATS_GET, seq, &attributes)
}

pub(crate) fn family_request(seq: u32) -> Vec<u8> {
    let mut attributes = Vec::new();
    put_attr(&mut attributes, CTRL_ATTR_FAMILY_NAME, b"ethtool\0");
    request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, seq, &attributes)
}

/// The family id in a `CTRL_CMD_NEWFAMILY` reply's attributes.
pub(crate) fn parse_family_id(payload: &[u8]) -> Result<Option<u16>, TlvError> {
    for a in attrs(payload) {
        let a = a?;
        if a.kind == CTRL_ATTR_FAMILY_ID {
            return Ok(Some(a.u16()?));
        }
    }
    Ok(None)
}

/// `pause.tx_frames` / `pause.rx_frames` from a `PAUSE_GET` reply's
/// attributes; nothing when the driver has no pause statistics.
pub(crate) fn parse_pause(payload: &[u8]) -> Result<BTreeMap<String, u64>, TlvError> {
    let mut out = BTreeMap::new();
    for a in attrs(payload) {
        let a = a?;
        if a.kind != ETHTOOL_A_PAUSE_STATS {
            continue;
        }
        for s in a.nested() {
            let s = s?;
            let name = match s.kind {
                ETHTOOL_A_PAUSE_STAT_TX_FRAMES => "pause.tx_frames",
                ETHTOOL_A_PAUSE_STAT_RX_FRAMES => "pause.rx_frames",
                _ => continue,
            };
            out.insert(name.to_string(), s.u64()?);
        }
    }
    Ok(out)
}

/// `group.Name` → value from a `STATS_GET` reply's attributes. The kernel
/// sends only the counters the driver fills; histograms are left out.
pub(crate) fn parse_stats(payload: &[u8]) -> Result<BTreeMap<String, u64>, TlvError> {
    let mut out = BTreeMap::new();
    for a in attrs(payload) {
        let a = a?;
        if a.kind != ETHTOOL_A_STATS_GRP {
            continue;
        }
        let mut id = None;
        let mut stats = Vec::new();
        for g in a.nested() {
            let g = g?;
            match g.kind {
                ETHTOOL_A_STATS_GRP_ID => id = Some(g.u32()?),
                // One attribute per counter, its type the counter's index.
                ETHTOOL_A_STATS_GRP_STAT => {
                    for s in g.nested() {
                        let s = s?;
                        stats.push((s.kind, s.u64()?));
                    }
                }
                _ => {}
            }
        }
        let (prefix, names) = match id {
            Some(ETH_MAC) => ("eth-mac", ETH_MAC_NAMES),
            Some(ETH_CTRL) => ("eth-ctrl", ETH_CTRL_NAMES),
            Some(RMON) => ("rmon", RMON_NAMES),
            _ => continue,
        };
        for (index, value) in stats {
            let name = match names.get(usize::from(index)) {
                Some(n) => format!("{prefix}.{n}"),
                None => format!("{prefix}.{index}"),
            };
            out.insert(name, value);
        }
    }
    Ok(out)
}

/// An ethtool netlink client over any transport (tests replay bytes).
pub(crate) struct EthtoolNetlink<T: Transport> {
    transport: T,
    /// The family id, once resolved; `Err` once the kernel said it has none.
    family: Option<Result<u16, ()>>,
    seq: u32,
}

impl<T: Transport> EthtoolNetlink<T> {
    pub(crate) fn new(transport: T) -> EthtoolNetlink<T> {
        EthtoolNetlink {
            transport,
            family: None,
            seq: 1,
        }
    }

    /// The data messages' attributes of one acknowledged exchange.
    fn exchange(
        &mut self,
        op: &'static str,
        build: impl Fn(u32) -> Vec<u8>,
    ) -> Result<Vec<Vec<u8>>, EthtoolError> {
        self.seq = self.seq.wrapping_add(1);
        self.transport.send(op, &build(self.seq))?;
        let mut out = Vec::new();
        loop {
            let datagram = match self.transport.recv(op) {
                Ok(d) => d,
                Err(e) => {
                    self.transport.abandon();
                    return Err(e.into());
                }
            };
            for m in messages(datagram) {
                let m = match m {
                    Ok(m) => m,
                    Err(e) => {
                        self.transport.abandon();
                        return Err(EthtoolError::Other(format!("malformed reply to {op}: {e}")));
                    }
                };
                match m.header.kind {
                    NLMSG_ERROR | NLMSG_DONE => {
                        let code = m
                            .payload
                            .first_chunk::<4>()
                            .map(|b| i32::from_ne_bytes(*b))
                            .unwrap_or(0);
                        return if code == 0 {
                            Ok(out)
                        } else {
                            Err(EthtoolError::Kernel(code.saturating_neg()))
                        };
                    }
                    // Data: the genetlink header, then attributes.
                    kind if kind >= 0x10 => {
                        out.push(m.payload.get(4..).unwrap_or(&[]).to_vec());
                    }
                    _ => {}
                }
            }
        }
    }

    fn family(&mut self) -> Result<u16, EthtoolError> {
        match self.family {
            Some(Ok(id)) => return Ok(id),
            Some(Err(())) => return Err(EthtoolError::NoFamily),
            None => {}
        }
        let found = match self.exchange("CTRL_CMD_GETFAMILY", family_request) {
            Ok(replies) => replies
                .iter()
                .find_map(|p| parse_family_id(p).ok().flatten()),
            // ENOENT: no such family.
            Err(EthtoolError::Kernel(_)) => None,
            Err(e) => return Err(e),
        };
        self.family = Some(found.ok_or(()));
        found.ok_or(EthtoolError::NoFamily)
    }

    /// The standard pause group of `netdev`.
    pub(crate) fn pause(&mut self, netdev: &str) -> Result<BTreeMap<String, u64>, EthtoolError> {
        let family = self.family()?;
        let replies = self.exchange("ETHTOOL_MSG_PAUSE_GET", |seq| {
            pause_request(family, seq, netdev)
        })?;
        let mut out = BTreeMap::new();
        for p in replies {
            out.extend(parse_pause(&p)?);
        }
        Ok(out)
    }

    /// The eth-mac, eth-ctrl and rmon groups of `netdev`.
    pub(crate) fn stats(&mut self, netdev: &str) -> Result<BTreeMap<String, u64>, EthtoolError> {
        let family = self.family()?;
        let replies = self.exchange("ETHTOOL_MSG_STATS_GET", |seq| {
            stats_request(family, seq, netdev)
        })?;
        let mut out = BTreeMap::new();
        for p in replies {
            out.extend(parse_stats(&p)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u64_attr(out: &mut Vec<u8>, kind: u16, v: u64) {
        put_attr(out, kind, &v.to_ne_bytes());
    }

    #[test]
    fn a_pause_request_names_the_netdev_and_asks_for_statistics() {
        let r = pause_request(0x14, 9, "eth0");
        assert_eq!(
            u32::from_ne_bytes(r[0..4].try_into().unwrap()) as usize,
            r.len()
        );
        assert_eq!(u16::from_ne_bytes(r[4..6].try_into().unwrap()), 0x14);
        assert_eq!(u16::from_ne_bytes(r[6..8].try_into().unwrap()), 5);
        assert_eq!(u32::from_ne_bytes(r[8..12].try_into().unwrap()), 9);
        assert_eq!(r[16], ETHTOOL_MSG_PAUSE_GET);
        let top: Vec<_> = attrs(&r[20..]).map(|a| a.unwrap()).collect();
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].kind, ETHTOOL_A_PAUSE_HEADER);
        let inner: Vec<_> = top[0].nested().map(|a| a.unwrap()).collect();
        assert_eq!(inner[0].string(), "eth0");
        assert_eq!(inner[1].u32().unwrap(), ETHTOOL_FLAG_STATS);
    }

    #[test]
    fn pause_statistics_are_read_and_pad_is_skipped() {
        let mut stats = Vec::new();
        put_attr(&mut stats, 1, &[0; 4]); // ETHTOOL_A_PAUSE_STAT_PAD
        u64_attr(&mut stats, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 12);
        u64_attr(&mut stats, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 40_000);
        let mut reply = header(ETHTOOL_A_PAUSE_HEADER, "eth0");
        put_attr(&mut reply, 2, &[1]); // autoneg
        reply.extend(nest(ETHTOOL_A_PAUSE_STATS, &stats));
        let got = parse_pause(&reply).unwrap();
        assert_eq!(got.get("pause.tx_frames"), Some(&12));
        assert_eq!(got.get("pause.rx_frames"), Some(&40_000));
        // A driver without pause statistics: the nest is absent.
        assert!(
            parse_pause(&header(ETHTOOL_A_PAUSE_HEADER, "eth0"))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn stats_groups_are_named_as_ethtool_names_them() {
        let group = |id: u32, stats: &[(u16, u64)]| {
            let mut inner = Vec::new();
            put_attr(&mut inner, ETHTOOL_A_STATS_GRP_ID, &id.to_ne_bytes());
            put_attr(&mut inner, 3, &0u32.to_ne_bytes()); // string set id
            let mut stat = Vec::new();
            for &(k, v) in stats {
                u64_attr(&mut stat, k, v);
            }
            inner.extend(nest(ETHTOOL_A_STATS_GRP_STAT, &stat));
            nest(ETHTOOL_A_STATS_GRP, &inner)
        };
        let mut reply = header(ETHTOOL_A_STATS_HEADER, "eth0");
        reply.extend(group(ETH_MAC, &[(4, 3), (0, 100), (99, 1)]));
        reply.extend(group(RMON, &[(3, 2)]));
        reply.extend(group(7, &[(0, 5)]));
        let got = parse_stats(&reply).unwrap();
        assert_eq!(got.get("eth-mac.FrameCheckSequenceErrors"), Some(&3));
        assert_eq!(got.get("eth-mac.FramesTransmittedOK"), Some(&100));
        assert_eq!(got.get("eth-mac.99"), Some(&1));
        assert_eq!(got.get("rmon.etherStatsJabbers"), Some(&2));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn truncated_replies_are_errors_not_panics() {
        let mut stats = Vec::new();
        u64_attr(&mut stats, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 1);
        let mut reply = nest(ETHTOOL_A_PAUSE_STATS, &stats);
        for cut in 1..reply.len() {
            let _ = parse_pause(&reply[..cut]);
            let _ = parse_stats(&reply[..cut]);
        }
        // A short u64 is named, not read as zero.
        reply.truncate(reply.len() - 4);
        reply[0] = (reply.len()) as u8;
        reply[4] = 8; // inner nla_len: 4 bytes of payload
        assert!(parse_pause(&reply).is_err());
    }

    #[test]
    fn the_family_id_is_read_from_the_controller_reply() {
        let mut reply = Vec::new();
        put_attr(&mut reply, CTRL_ATTR_FAMILY_NAME, b"ethtool\0");
        put_attr(&mut reply, CTRL_ATTR_FAMILY_ID, &0x15u16.to_ne_bytes());
        assert_eq!(parse_family_id(&reply).unwrap(), Some(0x15));
        assert_eq!(parse_family_id(&[]).unwrap(), None);
    }
}
