//! The parts of libibverbs' C interface restop calls, declared by hand from
//! rdma-core's `libibverbs/verbs.h` so nothing of rdma-core is needed to build.
//!
//! `struct ibv_device_attr` has been ABI-stable since libibverbs 1.1 (symbol
//! version `IBVERBS_1.1`): fields are only ever added to `ibv_device_attr_ex`.
//! The layout test below pins every offset restop reads to the C header's.

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `struct ibv_device_attr` (verbs.h), field for field.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct IbvDeviceAttr {
    pub fw_ver: [c_char; 64],
    /// `__be64`
    pub node_guid: u64,
    /// `__be64`
    pub sys_image_guid: u64,
    pub max_mr_size: u64,
    pub page_size_cap: u64,
    pub vendor_id: u32,
    pub vendor_part_id: u32,
    pub hw_ver: u32,
    pub max_qp: c_int,
    pub max_qp_wr: c_int,
    pub device_cap_flags: c_uint,
    pub max_sge: c_int,
    pub max_sge_rd: c_int,
    pub max_cq: c_int,
    pub max_cqe: c_int,
    pub max_mr: c_int,
    pub max_pd: c_int,
    pub max_qp_rd_atom: c_int,
    pub max_ee_rd_atom: c_int,
    pub max_res_rd_atom: c_int,
    pub max_qp_init_rd_atom: c_int,
    pub max_ee_init_rd_atom: c_int,
    /// `enum ibv_atomic_cap` (an int-sized enum).
    pub atomic_cap: c_int,
    pub max_ee: c_int,
    pub max_rdd: c_int,
    pub max_mw: c_int,
    pub max_raw_ipv6_qp: c_int,
    pub max_raw_ethy_qp: c_int,
    pub max_mcast_grp: c_int,
    pub max_mcast_qp_attach: c_int,
    pub max_total_mcast_qp_attach: c_int,
    pub max_ah: c_int,
    pub max_fmr: c_int,
    pub max_map_per_fmr: c_int,
    pub max_srq: c_int,
    pub max_srq_wr: c_int,
    pub max_srq_sge: c_int,
    pub max_pkeys: u16,
    pub local_ca_ack_delay: u8,
    pub phys_port_cnt: u8,
}

/// What `ibv_query_device` writes into. The slack costs nothing and means a
/// library that (against its ABI promise) wrote a longer struct could not
/// write past our buffer.
#[repr(C)]
pub(super) struct AttrBuffer {
    pub attr: IbvDeviceAttr,
    _slack: [u8; 256],
}

impl AttrBuffer {
    pub(super) fn zeroed() -> AttrBuffer {
        // SAFETY: every field is an integer or an array of integers, for
        // which all-zero bytes are a valid value.
        unsafe { std::mem::zeroed() }
    }
}

/// `struct ibv_device` and `struct ibv_context`: only ever handled by pointer.
pub(super) type IbvDevice = c_void;
pub(super) type IbvContext = c_void;

/// `struct ibv_device **ibv_get_device_list(int *num_devices);`
pub(super) type GetDeviceList =
    unsafe extern "C" fn(num_devices: *mut c_int) -> *mut *mut IbvDevice;
/// `void ibv_free_device_list(struct ibv_device **list);`
pub(super) type FreeDeviceList = unsafe extern "C" fn(list: *mut *mut IbvDevice);
/// `const char *ibv_get_device_name(struct ibv_device *device);`
pub(super) type GetDeviceName = unsafe extern "C" fn(device: *mut IbvDevice) -> *const c_char;
/// `struct ibv_context *ibv_open_device(struct ibv_device *device);`
pub(super) type OpenDevice = unsafe extern "C" fn(device: *mut IbvDevice) -> *mut IbvContext;
/// `int ibv_close_device(struct ibv_context *context);`
pub(super) type CloseDevice = unsafe extern "C" fn(context: *mut IbvContext) -> c_int;
/// `int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr);`
pub(super) type QueryDevice =
    unsafe extern "C" fn(context: *mut IbvContext, attr: *mut IbvDeviceAttr) -> c_int;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// Offsets as gcc computes them from rdma-core's verbs.h on LP64 Linux
    /// (x86_64, aarch64, ppc64le, s390x: `int` is 4 bytes, `uint64_t` 8).
    #[test]
    fn device_attr_layout_matches_verbs_h() {
        assert_eq!(offset_of!(IbvDeviceAttr, fw_ver), 0);
        assert_eq!(offset_of!(IbvDeviceAttr, node_guid), 64);
        assert_eq!(offset_of!(IbvDeviceAttr, sys_image_guid), 72);
        assert_eq!(offset_of!(IbvDeviceAttr, max_mr_size), 80);
        assert_eq!(offset_of!(IbvDeviceAttr, page_size_cap), 88);
        assert_eq!(offset_of!(IbvDeviceAttr, vendor_id), 96);
        assert_eq!(offset_of!(IbvDeviceAttr, hw_ver), 104);
        assert_eq!(offset_of!(IbvDeviceAttr, max_qp), 108);
        assert_eq!(offset_of!(IbvDeviceAttr, max_qp_wr), 112);
        assert_eq!(offset_of!(IbvDeviceAttr, device_cap_flags), 116);
        assert_eq!(offset_of!(IbvDeviceAttr, max_cq), 128);
        assert_eq!(offset_of!(IbvDeviceAttr, max_cqe), 132);
        assert_eq!(offset_of!(IbvDeviceAttr, max_mr), 136);
        assert_eq!(offset_of!(IbvDeviceAttr, max_pd), 140);
        assert_eq!(offset_of!(IbvDeviceAttr, atomic_cap), 164);
        assert_eq!(offset_of!(IbvDeviceAttr, max_ah), 200);
        assert_eq!(offset_of!(IbvDeviceAttr, max_srq), 212);
        assert_eq!(offset_of!(IbvDeviceAttr, max_srq_wr), 216);
        assert_eq!(offset_of!(IbvDeviceAttr, max_srq_sge), 220);
        assert_eq!(offset_of!(IbvDeviceAttr, max_pkeys), 224);
        assert_eq!(offset_of!(IbvDeviceAttr, local_ca_ack_delay), 226);
        assert_eq!(offset_of!(IbvDeviceAttr, phys_port_cnt), 227);
        assert_eq!(size_of::<IbvDeviceAttr>(), 232);
        assert_eq!(align_of::<IbvDeviceAttr>(), 8);
    }

    #[test]
    fn the_buffer_starts_with_the_struct() {
        assert_eq!(offset_of!(AttrBuffer, attr), 0);
        assert!(size_of::<AttrBuffer>() >= size_of::<IbvDeviceAttr>() + 256);
    }
}
