//! `GET` (devices), `PORT_GET` (ports) and `SYS_GET` replies.

use super::attr::{TlvError, attrs};
use super::consts::{NETNS_MODE_EXCLUSIVE, NETNS_MODE_SHARED, attr as a};
use crate::model::{NetnsMode, PhysState, PortState};

/// One RDMA device, from a `GET` dump message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub index: u32,
    pub name: String,
    /// `PORT_INDEX` in a `GET` reply is the number of ports.
    pub port_count: u32,
    pub node_guid: Option<u64>,
    pub sys_image_guid: Option<u64>,
    pub fw_version: Option<String>,
    /// Raw `DEV_NODE_TYPE` (see `model::device::node_type_name`).
    pub node_type: Option<u8>,
    pub protocol: Option<String>,
}

/// One port of a device, from a `PORT_GET` message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    pub device: u32,
    pub port: u32,
    pub state: Option<PortState>,
    pub phys_state: Option<PhysState>,
    pub netdev: Option<String>,
    pub netdev_index: Option<u32>,
}

/// System-wide RDMA settings, from `SYS_GET`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SysInfo {
    pub netns_mode: Option<NetnsMode>,
    /// `SYS_ATTR_MONITOR_MODE`: whether the kernel sends device events (absent
    /// before 6.12: `None`).
    pub monitor: Option<bool>,
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// A device message; `None` when it lacks the index or the name.
pub fn parse_device(payload: &[u8]) -> Result<Option<DeviceInfo>, TlvError> {
    let (mut index, mut name) = (None, None);
    let mut d = DeviceInfo {
        index: 0,
        name: String::new(),
        port_count: 0,
        node_guid: None,
        sys_image_guid: None,
        fw_version: None,
        node_type: None,
        protocol: None,
    };
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::DEV_INDEX => index = Some(at.u32()?),
            a::DEV_NAME => name = non_empty(at.string()),
            a::PORT_INDEX => d.port_count = at.u32()?,
            a::FW_VERSION => d.fw_version = non_empty(at.string()),
            a::NODE_GUID => d.node_guid = Some(at.u64()?),
            a::SYS_IMAGE_GUID => d.sys_image_guid = Some(at.u64()?),
            a::DEV_NODE_TYPE => d.node_type = Some(at.u8()?),
            a::DEV_PROTOCOL => d.protocol = non_empty(at.string()),
            _ => {}
        }
    }
    let (Some(index), Some(name)) = (index, name) else {
        return Ok(None);
    };
    d.index = index;
    d.name = name;
    Ok(Some(d))
}

/// A port message; `None` when it names no port. The device falls back to
/// the one asked for.
pub fn parse_port(payload: &[u8], requested: u32) -> Result<Option<PortInfo>, TlvError> {
    let (mut device, mut port) = (None, None);
    let mut p = PortInfo {
        device: requested,
        port: 0,
        state: None,
        phys_state: None,
        netdev: None,
        netdev_index: None,
    };
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::DEV_INDEX => device = Some(at.u32()?),
            a::PORT_INDEX => port = Some(at.u32()?),
            a::PORT_STATE => p.state = Some(PortState::from_raw(at.u8()?)),
            a::PORT_PHYS_STATE => p.phys_state = Some(PhysState::from_raw(at.u8()?)),
            a::NDEV_NAME => p.netdev = non_empty(at.string()),
            a::NDEV_INDEX => p.netdev_index = Some(at.u32()?),
            _ => {}
        }
    }
    let Some(port) = port else {
        return Ok(None);
    };
    p.device = device.unwrap_or(requested);
    p.port = port;
    Ok(Some(p))
}

/// A `SYS_GET` message. Unknown netns mode values give `None`.
pub fn parse_sys(payload: &[u8]) -> Result<SysInfo, TlvError> {
    let mut sys = SysInfo::default();
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::SYS_ATTR_NETNS_MODE => {
                sys.netns_mode = match at.u8()? {
                    NETNS_MODE_SHARED => Some(NetnsMode::Shared),
                    NETNS_MODE_EXCLUSIVE => Some(NetnsMode::Exclusive),
                    _ => None,
                };
            }
            a::SYS_ATTR_MONITOR_MODE => sys.monitor = Some(at.u8()? != 0),
            _ => {}
        }
    }
    Ok(sys)
}
