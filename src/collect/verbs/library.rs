//! libibverbs, opened with `dlopen` when first needed: a host without
//! rdma-core simply has no limits from this path.

use super::DeviceAttrs;
use super::ffi::{
    AttrBuffer, CloseDevice, FreeDeviceList, GetDeviceList, GetDeviceName, IbvDevice, OpenDevice,
    QueryDevice,
};
use libloading::Library;
use std::ffi::{CStr, c_int};

/// The soname of every libibverbs since 2004's ABI 1.
pub const LIBIBVERBS: &str = "libibverbs.so.1";

/// Why a device's attributes could not be read. Never fatal: the limit is
/// then unknown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerbsError {
    /// `dlopen` failed: the library name and `dlerror`'s text.
    #[error("{0} could not be loaded: {1}")]
    Library(String, String),
    /// The library lacks a function restop calls: library name, symbol.
    #[error("{0} has no symbol {1}")]
    Symbol(String, &'static str),
    /// `ibv_get_device_list` returned none, with its errno.
    #[error("libibverbs lists no devices (errno {0})")]
    NoDevices(i32),
    /// The kernel's device is not among libibverbs' (no provider for its driver).
    #[error("libibverbs does not list {0}")]
    NotListed(String),
    /// `ibv_open_device` failed: device, errno.
    #[error("opening {0} failed (errno {1})")]
    Open(String, i32),
    /// `ibv_query_device` failed: device, its return value.
    #[error("querying {0} failed (error {1})")]
    Query(String, i32),
}

/// Reads a device's attributes; the real one is [`Libibverbs`], tests use fakes.
pub trait AttrReader: Send {
    /// The attributes of the device the kernel calls `device`.
    fn read(&mut self, device: &str) -> Result<DeviceAttrs, VerbsError>;
}

/// The loaded library and the six functions restop calls.
pub struct Libibverbs {
    get_device_list: GetDeviceList,
    free_device_list: FreeDeviceList,
    get_device_name: GetDeviceName,
    open_device: OpenDevice,
    close_device: CloseDevice,
    query_device: QueryDevice,
    /// Keeps the functions above mapped; dropped last.
    _library: Library,
}

impl Libibverbs {
    /// Loads `soname` (normally [`LIBIBVERBS`]) and resolves the functions.
    pub fn load(soname: &str) -> Result<Libibverbs, VerbsError> {
        // SAFETY: loading libibverbs runs its constructors, which only set up
        // its own state (it reads its config directory lazily).
        let library = unsafe { Library::new(soname) }
            .map_err(|e| VerbsError::Library(soname.to_string(), e.to_string()))?;
        // SAFETY: each type is the C prototype from verbs.h (see ffi.rs);
        // the pointers stay valid while `_library` is held.
        unsafe {
            Ok(Libibverbs {
                get_device_list: symbol(&library, soname, "ibv_get_device_list")?,
                free_device_list: symbol(&library, soname, "ibv_free_device_list")?,
                get_device_name: symbol(&library, soname, "ibv_get_device_name")?,
                open_device: symbol(&library, soname, "ibv_open_device")?,
                close_device: symbol(&library, soname, "ibv_close_device")?,
                query_device: symbol(&library, soname, "ibv_query_device")?,
                _library: library,
            })
        }
    }
}

/// # Safety
/// `T` must be the function pointer type of the C symbol `name`.
unsafe fn symbol<T: Copy>(
    library: &Library,
    soname: &str,
    name: &'static str,
) -> Result<T, VerbsError> {
    let mut c_name = name.as_bytes().to_vec();
    c_name.push(0);
    // SAFETY: forwarded to the caller.
    unsafe { library.get::<T>(c_name.as_slice()) }
        .map(|s| *s)
        .map_err(|_| VerbsError::Symbol(soname.to_string(), name))
}

impl AttrReader for Libibverbs {
    /// Opens the device named `device`, queries it and closes it at once, so
    /// the context it creates lives for microseconds.
    fn read(&mut self, device: &str) -> Result<DeviceAttrs, VerbsError> {
        let mut count: c_int = 0;
        // SAFETY: `count` is a valid out-pointer; the list is freed below on
        // every path through `DeviceList`'s drop.
        let raw = unsafe { (self.get_device_list)(&mut count) };
        if raw.is_null() {
            return Err(VerbsError::NoDevices(errno()));
        }
        let list = DeviceList {
            raw,
            free: self.free_device_list,
        };
        let len = usize::try_from(count).unwrap_or(0);
        let mut found: Option<*mut IbvDevice> = None;
        for i in 0..len {
            // SAFETY: the library returned `count` entries (NULL-terminated).
            let dev = unsafe { *list.raw.add(i) };
            if dev.is_null() {
                break;
            }
            // SAFETY: `dev` comes from the list; the name is a C string owned by it.
            let name = unsafe { (self.get_device_name)(dev) };
            if name.is_null() {
                continue;
            }
            // SAFETY: non-null, NUL-terminated, alive while the list is.
            if unsafe { CStr::from_ptr(name) }.to_bytes() == device.as_bytes() {
                found = Some(dev);
                break;
            }
        }
        let dev = found.ok_or_else(|| VerbsError::NotListed(device.to_string()))?;
        // SAFETY: `dev` is an entry of the live list.
        let context = unsafe { (self.open_device)(dev) };
        if context.is_null() {
            return Err(VerbsError::Open(device.to_string(), errno()));
        }
        let mut buffer = AttrBuffer::zeroed();
        // SAFETY: `context` is open; `buffer` is at least as large as the struct.
        let rc = unsafe { (self.query_device)(context, &mut buffer.attr) };
        // SAFETY: `context` was opened above and is closed exactly once.
        unsafe { (self.close_device)(context) };
        drop(list);
        if rc != 0 {
            return Err(VerbsError::Query(device.to_string(), rc));
        }
        Ok(DeviceAttrs::from_raw(&buffer.attr))
    }
}

/// `ibv_get_device_list`'s result, freed when dropped.
struct DeviceList {
    raw: *mut *mut IbvDevice,
    free: FreeDeviceList,
}

impl Drop for DeviceList {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `ibv_get_device_list` and is freed once.
        unsafe { (self.free)(self.raw) };
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_not_a_crash() {
        let err = Libibverbs::load("libibverbs-restop-test-missing.so.1")
            .err()
            .unwrap();
        assert!(matches!(err, VerbsError::Library(..)), "{err}");
    }

    #[test]
    fn a_library_without_the_symbols_is_refused() {
        // libc is loaded in every process and has no ibv_* symbol.
        let err = Libibverbs::load("libc.so.6").err().unwrap();
        assert_eq!(
            err,
            VerbsError::Symbol("libc.so.6".into(), "ibv_get_device_list")
        );
    }
}
