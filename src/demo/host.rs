//! The simulated machine: one dual-port ConnectX-7 in RoCE mode with SR-IOV
//! enabled, as found in a GPU or storage server.
//!
//! | index | device | role               | PCI          | netdev      | limits                       |
//! |-------|--------|--------------------|--------------|-------------|------------------------------|
//! | 0     | mlx5_0 | PF, card port 1    | 0000:17:00.0 | ens1f0np0   | ConnectX maxima              |
//! | 1     | mlx5_1 | PF, card port 2    | 0000:17:00.1 | ens1f1np1   | ConnectX maxima              |
//! | 2     | mlx5_2 | VF 0 of mlx5_0     | 0000:17:00.2 | ens1f0v0    | max_qp 2048 (runs ~83 % full) |
//! | 3     | mlx5_3 | VF 1 of mlx5_0     | 0000:17:00.3 | ens1f0v1    | max_mr 8192 (runs ~96 % full) |
//! | 4     | mlx5_4 | VF 0 of mlx5_1     | 0000:17:01.2 | ens1f1v0    | port DOWN                    |
//!
//! VF limits come from the SR-IOV profile the PF driver hands each function,
//! which is why they are far below the PF's.

use crate::model::{Device, LimitSource, PhysState, Port, PortState, ResourceType, UsageEntry};
use std::net::Ipv4Addr;

pub(super) const MLX5_0: u32 = 0;
pub(super) const MLX5_1: u32 = 1;
pub(super) const MLX5_2: u32 = 2;
pub(super) const MLX5_3: u32 = 3;
pub(super) const MLX5_4: u32 = 4;

/// Number of simulated RDMA devices; device indices are `0..DEVICE_COUNT`.
pub(super) const DEVICE_COUNT: usize = 5;

/// Limits in `ResourceType::ALL` order (qp, cq, mr, pd, cm_id, ctx, srq).
/// cm_id and ctx have no device limit, as on real hardware.
type Limits = [Option<u64>; 7];

/// `ibv_devinfo -v` of a ConnectX-7 PF.
const PF_LIMITS: Limits = [
    Some(131_072),
    Some(16_777_216),
    Some(16_777_216),
    Some(16_777_216),
    None,
    None,
    Some(8_388_608),
];

struct DeviceSpec {
    name: &'static str,
    pci: &'static str,
    pf: Option<&'static str>,
    node_guid: u64,
    netdev: &'static str,
    netdev_index: u32,
    port_up: bool,
    /// The IPv4 address of the netdev, on the RoCE subnet of its PF.
    ip: Ipv4Addr,
    limits: Limits,
}

const SYS_IMAGE_GUID: u64 = 0xb83f_d203_00a4_5e20;

const DEVICES: [DeviceSpec; DEVICE_COUNT] = [
    DeviceSpec {
        name: "mlx5_0",
        pci: "0000:17:00.0",
        pf: None,
        node_guid: 0xb83f_d203_00a4_5e20,
        netdev: "ens1f0np0",
        netdev_index: 4,
        port_up: true,
        ip: Ipv4Addr::new(192, 168, 100, 11),
        limits: PF_LIMITS,
    },
    DeviceSpec {
        name: "mlx5_1",
        pci: "0000:17:00.1",
        pf: None,
        node_guid: 0xb83f_d203_00a4_5e21,
        netdev: "ens1f1np1",
        netdev_index: 5,
        port_up: true,
        ip: Ipv4Addr::new(192, 168, 101, 11),
        limits: PF_LIMITS,
    },
    DeviceSpec {
        name: "mlx5_2",
        pci: "0000:17:00.2",
        pf: Some("mlx5_0"),
        node_guid: 0xb83f_d2ff_fea4_5e22,
        netdev: "ens1f0v0",
        netdev_index: 8,
        port_up: true,
        ip: Ipv4Addr::new(192, 168, 100, 12),
        limits: [
            Some(2_048),
            Some(8_192),
            Some(65_536),
            Some(8_192),
            None,
            None,
            Some(2_048),
        ],
    },
    DeviceSpec {
        name: "mlx5_3",
        pci: "0000:17:00.3",
        pf: Some("mlx5_0"),
        node_guid: 0xb83f_d2ff_fea4_5e23,
        netdev: "ens1f0v1",
        netdev_index: 9,
        port_up: true,
        ip: Ipv4Addr::new(192, 168, 100, 13),
        limits: [
            Some(4_096),
            Some(8_192),
            Some(8_192),
            Some(8_192),
            None,
            None,
            Some(2_048),
        ],
    },
    DeviceSpec {
        name: "mlx5_4",
        pci: "0000:17:01.2",
        pf: Some("mlx5_1"),
        node_guid: 0xb83f_d2ff_fea4_5e24,
        netdev: "ens1f1v0",
        netdev_index: 10,
        port_up: false,
        ip: Ipv4Addr::new(192, 168, 101, 12),
        limits: [
            Some(4_096),
            Some(8_192),
            Some(65_536),
            Some(8_192),
            None,
            None,
            Some(2_048),
        ],
    },
];

/// The IPv4 address of a device's netdev (the first PF's for unknown indices).
pub(super) fn ip_of(device: u32) -> Ipv4Addr {
    DEVICES
        .get(device as usize)
        .map_or(DEVICES[0].ip, |spec| spec.ip)
}

/// Device records as a live collection would report them, with usage
/// counters at zero and the limits filled in (`LimitSource::Demo`).
pub(super) fn devices() -> Vec<Device> {
    DEVICES
        .iter()
        .zip(0u32..)
        .map(|(spec, index)| {
            let mut device = Device::new(index, spec.name);
            device.node_guid = Some(spec.node_guid);
            device.sys_image_guid = Some(SYS_IMAGE_GUID);
            device.fw_version = Some("28.39.1002".to_string());
            device.node_type = Some("CA".to_string());
            device.protocol = Some("roce".to_string());
            device.pci = Some(spec.pci.to_string());
            device.pf = spec.pf.map(str::to_string);
            device.ports = vec![Port {
                index: 1,
                state: Some(if spec.port_up {
                    PortState::Active
                } else {
                    PortState::Down
                }),
                phys_state: Some(if spec.port_up {
                    PhysState::LinkUp
                } else {
                    PhysState::Disabled
                }),
                netdev: Some(spec.netdev.to_string()),
                netdev_index: Some(spec.netdev_index),
                counters: None,
            }];
            for (t, max) in ResourceType::ALL.into_iter().zip(spec.limits) {
                device.usage.set(
                    t,
                    UsageEntry {
                        current: 0,
                        max,
                        max_source: max.map(|_| LimitSource::Demo),
                    },
                );
            }
            device
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vfs_name_their_pf() {
        let devices = devices();
        let vfs: Vec<(&str, &str)> = devices
            .iter()
            .filter_map(|d| d.pf.as_deref().map(|pf| (d.name.as_str(), pf)))
            .collect();
        assert_eq!(
            vfs,
            [
                ("mlx5_2", "mlx5_0"),
                ("mlx5_3", "mlx5_0"),
                ("mlx5_4", "mlx5_1")
            ]
        );
    }

    #[test]
    fn indices_match_the_constants() {
        let devices = devices();
        assert_eq!(devices.len(), DEVICE_COUNT);
        assert_eq!(devices[MLX5_3 as usize].name, "mlx5_3");
        assert_eq!(devices[MLX5_4 as usize].index, MLX5_4);
    }

    #[test]
    fn cm_id_and_ctx_have_no_limit() {
        for d in devices() {
            for t in [ResourceType::CmId, ResourceType::Ctx] {
                let entry = d.usage.get(t).unwrap();
                assert_eq!((entry.max, entry.max_source), (None, None));
            }
            let qp = d.usage.get(ResourceType::Qp).unwrap();
            assert_eq!(qp.max_source, Some(LimitSource::Demo));
        }
    }

    #[test]
    fn exactly_one_port_is_down() {
        let down: Vec<String> = devices()
            .into_iter()
            .filter(|d| d.ports[0].state == Some(PortState::Down))
            .map(|d| d.name)
            .collect();
        assert_eq!(down, ["mlx5_4"]);
    }
}
