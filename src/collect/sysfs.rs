//! Where an RDMA device sits in the hardware: its PCI function and, for an SR-IOV virtual
//! function, the RDMA device of its physical function.

use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SysfsDevice {
    /// PCI address (`0000:03:00.0`); None for software devices (rxe, siw).
    pub pci: Option<String>,
    /// RDMA name of the physical function, when this device is an SR-IOV virtual function.
    pub pf: Option<String>,
}

/// Reads `<sys_root>/class/infiniband/<dev>/device` (a link to the parent device),
/// `physfn` (VF → PF) and `<pf>/infiniband/<name>`. `sys_root` is "/sys" in production.
/// Anything missing or unexpected leaves the field None.
pub(crate) fn sysfs_device(sys_root: &Path, rdma_device: &str) -> SysfsDevice {
    let device_link = sys_root
        .join("class/infiniband")
        .join(rdma_device)
        .join("device");
    let Some((pci_dir, pci)) = pci_function(&device_link) else {
        return SysfsDevice::default();
    };
    SysfsDevice {
        pci: Some(pci),
        pf: physical_function_rdma_name(&pci_dir),
    }
}

/// The PCI function that is the parent device, or the parent's parent: drivers that bind
/// to an auxiliary device (`0000:03:00.0/irdma.gen_2.0`) hang below their PCI function. No
/// further up, so a software device on a netdev (`0000:03:00.0/net/eth0`) is not mistaken
/// for the NIC's PCI function.
fn pci_function(device_link: &Path) -> Option<(PathBuf, String)> {
    let device = fs::canonicalize(device_link).ok()?;
    device.ancestors().take(2).find_map(|dir| {
        let name = dir.file_name()?.to_str()?;
        is_pci_address(name).then(|| (dir.to_path_buf(), name.to_string()))
    })
}

fn physical_function_rdma_name(pci_dir: &Path) -> Option<String> {
    let pf_infiniband = pci_dir.join("physfn").join("infiniband");
    let mut names: Vec<String> = fs::read_dir(pf_infiniband)
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    // One RDMA device per function in practice; sorted so the answer is stable if not.
    names.sort();
    names.into_iter().next()
}

/// `DDDD:BB:DD.F`: domain (4 hex digits, more on some platforms), bus, device, function.
fn is_pci_address(name: &str) -> bool {
    let hex = |s: &str, len: usize| s.len() == len && s.chars().all(|c| c.is_ascii_hexdigit());
    let mut parts = name.split(':');
    let (Some(domain), Some(bus), Some(dev_fn), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let Some((dev, func)) = dev_fn.split_once('.') else {
        return false;
    };
    domain.len() >= 4
        && domain.chars().all(|c| c.is_ascii_hexdigit())
        && hex(bus, 2)
        && hex(dev, 2)
        && func.len() == 1
        && func.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use tempfile::TempDir;

    /// A fake /sys laid out like the real one: devices under `devices/`, class entries and
    /// `device` links as relative symlinks.
    struct FakeSys {
        dir: TempDir,
    }

    impl FakeSys {
        fn new() -> FakeSys {
            let dir = TempDir::new().unwrap();
            fs::create_dir_all(dir.path().join("class/infiniband")).unwrap();
            FakeSys { dir }
        }

        fn root(&self) -> &Path {
            self.dir.path()
        }

        /// A PCI function `devices/pci0000:00/<pci>`.
        fn pci_function(&self, pci: &str) -> PathBuf {
            let dir = self.root().join("devices/pci0000:00").join(pci);
            fs::create_dir_all(&dir).unwrap();
            dir
        }

        /// Registers RDMA device `name` under `parent` (relative to `devices/pci0000:00`).
        fn rdma_device(&self, name: &str, parent: &str) {
            let dev_dir = self
                .root()
                .join("devices/pci0000:00")
                .join(parent)
                .join("infiniband")
                .join(name);
            fs::create_dir_all(&dev_dir).unwrap();
            let last = parent.rsplit('/').next().unwrap();
            symlink(format!("../../../{last}"), dev_dir.join("device")).unwrap();
            symlink(
                format!("../../devices/pci0000:00/{parent}/infiniband/{name}"),
                self.root().join("class/infiniband").join(name),
            )
            .unwrap();
        }

        fn virtual_function(&self, vf: &str, pf: &str) {
            let vf_dir = self.pci_function(vf);
            symlink(format!("../{pf}"), vf_dir.join("physfn")).unwrap();
        }
    }

    #[test]
    fn physical_function_has_pci_and_no_pf() {
        let sys = FakeSys::new();
        sys.pci_function("0000:03:00.0");
        sys.rdma_device("mlx5_0", "0000:03:00.0");
        assert_eq!(
            sysfs_device(sys.root(), "mlx5_0"),
            SysfsDevice {
                pci: Some("0000:03:00.0".into()),
                pf: None
            }
        );
    }

    #[test]
    fn virtual_function_names_its_pf_rdma_device() {
        let sys = FakeSys::new();
        sys.pci_function("0000:03:00.0");
        sys.rdma_device("mlx5_0", "0000:03:00.0");
        sys.virtual_function("0000:03:00.2", "0000:03:00.0");
        sys.rdma_device("mlx5_2", "0000:03:00.2");
        assert_eq!(
            sysfs_device(sys.root(), "mlx5_2"),
            SysfsDevice {
                pci: Some("0000:03:00.2".into()),
                pf: Some("mlx5_0".into())
            }
        );
    }

    #[test]
    fn vf_whose_pf_has_no_rdma_device_has_no_pf() {
        let sys = FakeSys::new();
        sys.pci_function("0000:03:00.0");
        sys.virtual_function("0000:03:00.2", "0000:03:00.0");
        sys.rdma_device("mlx5_2", "0000:03:00.2");
        assert_eq!(sysfs_device(sys.root(), "mlx5_2").pf, None);
    }

    #[test]
    fn device_on_an_auxiliary_bus_reports_the_pci_function_above_it() {
        let sys = FakeSys::new();
        fs::create_dir_all(
            sys.root()
                .join("devices/pci0000:00/0000:03:00.0/irdma.gen_2.0"),
        )
        .unwrap();
        sys.rdma_device("irdma0", "0000:03:00.0/irdma.gen_2.0");
        assert_eq!(
            sysfs_device(sys.root(), "irdma0").pci,
            Some("0000:03:00.0".into())
        );
    }

    #[test]
    fn software_device_without_parent_has_neither() {
        let sys = FakeSys::new();
        let rxe = sys.root().join("devices/virtual/infiniband/rxe0");
        fs::create_dir_all(&rxe).unwrap();
        symlink(
            "../../devices/virtual/infiniband/rxe0",
            sys.root().join("class/infiniband/rxe0"),
        )
        .unwrap();
        assert_eq!(sysfs_device(sys.root(), "rxe0"), SysfsDevice::default());
    }

    #[test]
    fn software_device_on_a_pci_nic_netdev_has_neither() {
        let sys = FakeSys::new();
        let netdev = sys.pci_function("0000:03:00.0").join("net/eth0");
        let dev = sys.root().join("devices/virtual/infiniband/siw0");
        fs::create_dir_all(&netdev).unwrap();
        fs::create_dir_all(&dev).unwrap();
        symlink(
            "../../../pci0000:00/0000:03:00.0/net/eth0",
            dev.join("device"),
        )
        .unwrap();
        symlink(
            "../../devices/virtual/infiniband/siw0",
            sys.root().join("class/infiniband/siw0"),
        )
        .unwrap();
        assert_eq!(sysfs_device(sys.root(), "siw0"), SysfsDevice::default());
    }

    #[test]
    fn device_with_a_non_pci_parent_has_neither() {
        let sys = FakeSys::new();
        let parent = sys.root().join("devices/virtual/net/eth0");
        let dev = sys.root().join("devices/virtual/infiniband/siw0");
        fs::create_dir_all(&parent).unwrap();
        fs::create_dir_all(&dev).unwrap();
        symlink("../../net/eth0", dev.join("device")).unwrap();
        symlink(
            "../../devices/virtual/infiniband/siw0",
            sys.root().join("class/infiniband/siw0"),
        )
        .unwrap();
        assert_eq!(sysfs_device(sys.root(), "siw0"), SysfsDevice::default());
    }

    #[test]
    fn unknown_device_or_missing_sysfs_has_neither() {
        let sys = FakeSys::new();
        assert_eq!(sysfs_device(sys.root(), "mlx5_9"), SysfsDevice::default());
        assert_eq!(
            sysfs_device(Path::new("/nonexistent-sys"), "mlx5_0"),
            SysfsDevice::default()
        );
    }

    #[test]
    fn pci_addresses() {
        assert!(is_pci_address("0000:03:00.0"));
        assert!(is_pci_address("10000:af:1f.7"));
        for not_pci in [
            "pci0000:00",
            "0000:03:00",
            "0000:3:00.0",
            "mlx5_core.rdma.0",
            "eth0",
            "",
        ] {
            assert!(!is_pci_address(not_pci), "{not_pci}");
        }
    }
}
