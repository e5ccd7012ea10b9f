//! Device limits from the verbs device attributes (`ibv_query_device`), for
//! kernels whose resource summary carries no maximum (attribute 118 is only in
//! kernels from 2026 on).
//!
//! libibverbs is loaded at run time: restop builds and runs without rdma-core,
//! and a host without it just has no limits from this path. Each device is
//! opened once — again only when it appears or is re-created — queried and
//! closed at once. Opening creates a device context owned by restop; the live
//! source takes the summary it reports *before* anything is opened, queries
//! side by side with the rest of the collection ([`VerbsLimits::query_alongside`]),
//! and leaves restop's own objects out of the dumps (see `collect/live`).

mod ffi;
pub(crate) mod library;
mod stderr;

pub use library::{AttrReader, LIBIBVERBS, Libibverbs, VerbsError};

use self::ffi::IbvDeviceAttr;
use crate::model::{Device, LimitSource, LimitsUnread, ObjectLimits, ResourceType};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// The attributes restop uses; `None` where the device reported 0 or less.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceAttrs {
    /// `ibv_device_attr.max_qp`: QPs the device can hold.
    pub max_qp: Option<u64>,
    /// `max_cq`: CQs the device can hold.
    pub max_cq: Option<u64>,
    /// `max_mr`: MRs the device can hold.
    pub max_mr: Option<u64>,
    /// `max_pd`: PDs the device can hold.
    pub max_pd: Option<u64>,
    /// `max_srq`: SRQs the device can hold.
    pub max_srq: Option<u64>,
    /// `max_qp_wr`: work requests one QP's queue can hold.
    pub max_qp_wr: Option<u64>,
    /// `max_cqe`: entries one CQ can hold.
    pub max_cqe: Option<u64>,
    /// `max_mr_size`: bytes one MR can register.
    pub max_mr_size: Option<u64>,
}

fn positive(v: i32) -> Option<u64> {
    u64::try_from(v).ok().filter(|v| *v > 0)
}

impl DeviceAttrs {
    fn from_raw(a: &IbvDeviceAttr) -> DeviceAttrs {
        DeviceAttrs {
            max_qp: positive(a.max_qp),
            max_cq: positive(a.max_cq),
            max_mr: positive(a.max_mr),
            max_pd: positive(a.max_pd),
            max_srq: positive(a.max_srq),
            max_qp_wr: positive(a.max_qp_wr),
            max_cqe: positive(a.max_cqe),
            max_mr_size: Some(a.max_mr_size).filter(|v| *v > 0),
        }
    }

    /// The count limit of a type; `cm_id` and `ctx` have none.
    pub fn limit(&self, t: ResourceType) -> Option<u64> {
        match t {
            ResourceType::Qp => self.max_qp,
            ResourceType::Cq => self.max_cq,
            ResourceType::Mr => self.max_mr,
            ResourceType::Pd => self.max_pd,
            ResourceType::Srq => self.max_srq,
            ResourceType::CmId | ResourceType::Ctx => None,
        }
    }

    /// The per-object limits (work requests per QP, entries per CQ, MR size), `None` when the
    /// device reported none of them.
    pub fn object_limits(&self) -> Option<ObjectLimits> {
        let l = ObjectLimits {
            max_qp_wr: self.max_qp_wr,
            max_cqe: self.max_cqe,
            max_mr_size: self.max_mr_size,
        };
        (l != ObjectLimits::default()).then_some(l)
    }

    /// Fills in the limits the kernel's summary did not give. A kernel
    /// maximum always wins: it is the same number, read without a context.
    pub(crate) fn apply_to(&self, device: &mut Device) {
        for t in ResourceType::ALL {
            let Some(limit) = self.limit(t) else {
                continue;
            };
            if let Some(entry) = device.usage.0.get_mut(&t)
                && entry.max.is_none()
            {
                entry.max = Some(limit);
                entry.max_source = Some(LimitSource::Verbs);
            }
        }
        if device.object_limits.is_none() {
            device.object_limits = self.object_limits();
        }
    }
}

/// A device as the kernel lists it. A re-created device (driver reload, VF
/// re-provisioned) gets a new index, so it is queried again.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DeviceKey {
    pub index: u32,
    pub name: String,
    pub node_guid: Option<u64>,
}

/// The reason a metric label gives for a library error.
fn unread_reason(e: &VerbsError) -> LimitsUnread {
    const EPERM: i32 = 1;
    const EACCES: i32 = 13;
    match e {
        VerbsError::Library(..) | VerbsError::Symbol(..) => LimitsUnread::NoLibrary,
        VerbsError::NoDevices(_) | VerbsError::NotListed(_) => LimitsUnread::NotListed,
        VerbsError::Open(_, errno) if *errno == EACCES || *errno == EPERM => {
            LimitsUnread::Permission
        }
        VerbsError::Open(..) | VerbsError::Query(..) => LimitsUnread::OpenFailed,
    }
}

/// How the reader is made: the real library, or a fake in tests.
pub(crate) type ReaderFactory = Box<dyn FnMut() -> Result<Box<dyn AttrReader>, VerbsError> + Send>;

/// Per-device attributes, read once per device and kept while it exists.
pub struct VerbsLimits {
    make_reader: Option<ReaderFactory>,
    /// `None` until first needed; `Some(Err)` when the library is missing,
    /// which is not retried.
    reader: Option<Result<Box<dyn AttrReader>, VerbsError>>,
    known: HashMap<DeviceKey, Result<DeviceAttrs, LimitsUnread>>,
    notes: Vec<String>,
    /// The kernel's id of the thread that queries side by side (0: none this
    /// round). The context it opens carries that thread's id, and the thread
    /// may be gone before a dump that listed the context is read: the id is
    /// how the live source still knows the context for restop's own.
    query_thread: Arc<AtomicU32>,
}

impl Default for VerbsLimits {
    fn default() -> VerbsLimits {
        VerbsLimits::disabled()
    }
}

impl VerbsLimits {
    /// Reads through the system's libibverbs.
    pub fn system() -> VerbsLimits {
        VerbsLimits::with_factory(Box::new(|| {
            Libibverbs::load(LIBIBVERBS).map(|l| Box::new(l) as Box<dyn AttrReader>)
        }))
    }

    /// Never reads anything (`--no-verbs`).
    pub fn disabled() -> VerbsLimits {
        VerbsLimits {
            make_reader: None,
            reader: None,
            known: HashMap::new(),
            notes: Vec::new(),
            query_thread: Arc::new(AtomicU32::new(0)),
        }
    }

    /// Where the id of the side-by-side query thread is kept (see
    /// [`VerbsLimits::query_alongside`]); 0 while no such thread ran this round.
    pub fn query_thread(&self) -> Arc<AtomicU32> {
        Arc::clone(&self.query_thread)
    }

    /// Limits read through the readers `make_reader` opens (the real library, or a fake in tests).
    pub fn with_factory(make_reader: ReaderFactory) -> VerbsLimits {
        VerbsLimits {
            make_reader: Some(make_reader),
            ..VerbsLimits::disabled()
        }
    }

    /// True when some of `devices` have not been queried yet (and could be).
    pub(crate) fn needs_query(&self, devices: &[DeviceKey]) -> bool {
        if self.make_reader.is_none() || matches!(self.reader, Some(Err(_))) {
            return false;
        }
        devices.iter().any(|k| !self.known.contains_key(k))
    }

    /// Runs `work` on this thread while the devices not queried yet are
    /// queried on another one; returns what `work` gave and whether a device
    /// was opened. Loading libibverbs, its device discovery and opening each
    /// device are most of a small host's start-up (docs/performance.md), and
    /// none of it needs netlink: side by side with the dumps its wall time
    /// hides behind theirs when a second core is free. When no thread can be
    /// started, the devices are queried first, then `work` runs.
    pub(crate) fn query_alongside<R>(
        &mut self,
        devices: &[DeviceKey],
        work: impl FnOnce() -> R,
    ) -> (R, bool) {
        self.query_thread.store(0, Ordering::SeqCst);
        if !self.needs_query(devices) {
            let opened = self.query_new(devices);
            return (work(), opened);
        }
        let query_thread = Arc::clone(&self.query_thread);
        let side_by_side = std::thread::scope(|scope| {
            let query = std::thread::Builder::new()
                .name("restop-verbs".into())
                .spawn_scoped(scope, || {
                    let tid = u32::try_from(nix::unistd::gettid().as_raw()).unwrap_or(0);
                    query_thread.store(tid, Ordering::SeqCst);
                    self.query_new(devices)
                });
            match query {
                Ok(query) => {
                    let result = work();
                    // A panic in the library's thread loses its answer, not the collection.
                    let opened = query.join().unwrap_or(true);
                    Ok((result, opened))
                }
                Err(_) => Err(work),
            }
        });
        side_by_side.unwrap_or_else(|work| {
            let opened = self.query_new(devices);
            (work(), opened)
        })
    }

    /// Queries every device not queried yet and forgets devices that are
    /// gone. Returns true when a device was opened (so the caller knows its
    /// context existed for a moment).
    pub(crate) fn query_new(&mut self, devices: &[DeviceKey]) -> bool {
        self.known.retain(|k, _| devices.contains(k));
        if !self.needs_query(devices) {
            return false;
        }
        let reader = match self
            .reader
            .get_or_insert_with(|| match &mut self.make_reader {
                Some(make) => {
                    let (reader, printed) = stderr::capture(make);
                    if !printed.is_empty() {
                        self.notes.push(format!("libibverbs said: {printed}"));
                    }
                    reader
                }
                None => Err(VerbsError::Library(LIBIBVERBS.into(), "disabled".into())),
            }) {
            Ok(reader) => reader,
            Err(e) => {
                self.notes.push(format!("no device limits from verbs: {e}"));
                return false;
            }
        };
        let mut opened = false;
        for key in devices {
            if self.known.contains_key(key) {
                continue;
            }
            let (result, printed) = stderr::capture(|| reader.read(&key.name));
            if !printed.is_empty() {
                self.notes
                    .push(format!("libibverbs on {}: {printed}", key.name));
            }
            let attrs = match result {
                Ok(attrs) => {
                    opened = true;
                    Ok(attrs)
                }
                Err(e) => {
                    // A failed query may still have opened the device.
                    opened |= matches!(e, VerbsError::Query(..));
                    self.notes
                        .push(format!("no verbs limits for {}: {e}", key.name));
                    Err(unread_reason(&e))
                }
            };
            self.known.insert(key.clone(), attrs);
        }
        opened
    }

    /// The attributes read for a device, if any.
    pub fn attrs(&self, index: u32, name: &str) -> Option<&DeviceAttrs> {
        self.known
            .iter()
            .find(|(k, _)| k.index == index && k.name == name)
            .and_then(|(_, a)| a.as_ref().ok())
    }

    /// Why the library gave no attributes for a device: it is disabled, could
    /// not be loaded, or that device failed (`None` when it gave them, or was
    /// never asked).
    pub(crate) fn unread(&self, index: u32, name: &str) -> Option<LimitsUnread> {
        if self.make_reader.is_none() {
            return Some(LimitsUnread::Disabled);
        }
        if let Some(Err(e)) = &self.reader {
            return Some(unread_reason(e));
        }
        self.known
            .iter()
            .find(|(k, _)| k.index == index && k.name == name)
            .and_then(|(_, a)| a.as_ref().err().copied())
    }

    /// Diagnostics (missing library, a device that would not open, what the
    /// library printed): for `RESTOP_DEBUG`, never shown as errors.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::UsageEntry;
    use std::sync::{Arc, Mutex};

    struct Fake {
        calls: Arc<Mutex<Vec<String>>>,
    }

    impl AttrReader for Fake {
        fn read(&mut self, device: &str) -> Result<DeviceAttrs, VerbsError> {
            self.calls.lock().unwrap().push(device.to_string());
            if device == "broken" {
                return Err(VerbsError::Open(device.into(), 13));
            }
            Ok(rxe())
        }
    }

    fn rxe() -> DeviceAttrs {
        let mut raw = ffi::AttrBuffer::zeroed().attr;
        raw.max_qp = 1_048_560;
        raw.max_cq = 1_048_576;
        raw.max_mr = 524_287;
        raw.max_pd = 1_048_576;
        raw.max_srq = 917_503;
        raw.max_qp_wr = 1_048_576;
        raw.max_cqe = 32_767;
        raw.max_mr_size = u64::MAX;
        DeviceAttrs::from_raw(&raw)
    }

    fn key(index: u32, name: &str) -> DeviceKey {
        DeviceKey {
            index,
            name: name.into(),
            node_guid: None,
        }
    }

    fn fake() -> (VerbsLimits, Arc<Mutex<Vec<String>>>) {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let c = calls.clone();
        let limits = VerbsLimits::with_factory(Box::new(move || {
            Ok(Box::new(Fake { calls: c.clone() }) as Box<dyn AttrReader>)
        }));
        (limits, calls)
    }

    #[test]
    fn raw_attributes_become_limits() {
        let a = rxe();
        assert_eq!(a.limit(ResourceType::Qp), Some(1_048_560));
        assert_eq!(a.limit(ResourceType::Srq), Some(917_503));
        assert_eq!(a.limit(ResourceType::Ctx), None);
        let mut raw = ffi::AttrBuffer::zeroed().attr;
        raw.max_qp = -1;
        assert_eq!(DeviceAttrs::from_raw(&raw), DeviceAttrs::default());
        assert_eq!(DeviceAttrs::default().object_limits(), None);
    }

    #[test]
    fn each_device_is_queried_once_and_again_when_recreated() {
        let (mut limits, calls) = fake();
        let devices = vec![key(0, "rxe0"), key(1, "broken")];
        assert!(limits.needs_query(&devices));
        assert!(limits.query_new(&devices));
        assert!(!limits.needs_query(&devices));
        assert!(!limits.query_new(&devices));
        assert_eq!(*calls.lock().unwrap(), ["rxe0", "broken"]);
        assert!(limits.attrs(0, "rxe0").is_some());
        assert!(limits.attrs(1, "broken").is_none());
        assert_eq!(limits.unread(0, "rxe0"), None);
        assert_eq!(limits.unread(1, "broken"), Some(LimitsUnread::Permission));
        let notes = limits.take_notes();
        assert!(notes.iter().any(|n| n.contains("broken")), "{notes:?}");
        // rxe0 deleted and added again: a new index.
        let devices = vec![key(2, "rxe0"), key(1, "broken")];
        assert!(limits.query_new(&devices));
        assert_eq!(calls.lock().unwrap().len(), 3);
        assert!(limits.attrs(0, "rxe0").is_none());
    }

    #[test]
    fn a_missing_library_is_tried_once_and_noted() {
        let tries = Arc::new(Mutex::new(0));
        let t = tries.clone();
        let mut limits = VerbsLimits::with_factory(Box::new(move || {
            *t.lock().unwrap() += 1;
            Libibverbs::load("libibverbs-restop-test-missing.so.1")
                .map(|l| Box::new(l) as Box<dyn AttrReader>)
        }));
        let devices = vec![key(0, "rxe0")];
        assert!(!limits.query_new(&devices));
        assert!(!limits.needs_query(&devices));
        assert!(!limits.query_new(&devices));
        assert_eq!(*tries.lock().unwrap(), 1);
        assert_eq!(limits.unread(0, "rxe0"), Some(LimitsUnread::NoLibrary));
        let notes = limits.take_notes();
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("no device limits from verbs"),
            "{notes:?}"
        );
    }

    #[test]
    fn disabled_never_queries() {
        let mut limits = VerbsLimits::disabled();
        assert!(!limits.needs_query(&[key(0, "rxe0")]));
        assert!(!limits.query_new(&[key(0, "rxe0")]));
        assert!(limits.take_notes().is_empty());
        assert_eq!(limits.unread(0, "rxe0"), Some(LimitsUnread::Disabled));
    }

    #[test]
    fn kernel_limits_win_over_verbs() {
        let mut d = Device::new(0, "rxe0");
        let entry = |max| UsageEntry {
            current: 3,
            max,
            max_source: max.map(|_| LimitSource::Kernel),
        };
        d.usage.set(ResourceType::Qp, entry(Some(100)));
        d.usage.set(ResourceType::Mr, entry(None));
        d.usage.set(ResourceType::Ctx, entry(None));
        rxe().apply_to(&mut d);
        let qp = d.usage.get(ResourceType::Qp).unwrap();
        assert_eq!(
            (qp.max, qp.max_source),
            (Some(100), Some(LimitSource::Kernel))
        );
        let mr = d.usage.get(ResourceType::Mr).unwrap();
        assert_eq!(
            (mr.max, mr.max_source),
            (Some(524_287), Some(LimitSource::Verbs))
        );
        assert_eq!(d.usage.get(ResourceType::Ctx).unwrap().max, None);
        assert_eq!(d.object_limits.unwrap().max_cqe, Some(32_767));
    }

    #[test]
    fn the_library_is_read_side_by_side_with_the_work() {
        let (mut limits, calls) = fake();
        let devices = [key(0, "rxe0")];
        let (on, opened) = limits.query_alongside(&devices, || {
            std::thread::current().name().map(str::to_string)
        });
        assert!(opened);
        // The work stays on the caller's thread; the query ran on its own.
        assert_ne!(on.as_deref(), Some("restop-verbs"));
        assert_eq!(*calls.lock().unwrap(), ["rxe0"]);
        assert!(limits.attrs(0, "rxe0").is_some());
        // Nothing new: the work runs alone and nothing is opened.
        let (n, opened) = limits.query_alongside(&devices, || 7);
        assert_eq!((n, opened), (7, false));
        assert_eq!(calls.lock().unwrap().len(), 1);
    }

    #[test]
    fn the_query_threads_id_is_kept_for_the_round_it_ran_in() {
        let (mut limits, _) = fake();
        let cell = limits.query_thread();
        let main = u32::try_from(nix::unistd::gettid().as_raw()).unwrap();
        let (seen, _) = limits.query_alongside(&[key(0, "rxe0")], || {
            // The thread stores its id before it opens anything.
            let start = std::time::Instant::now();
            while cell.load(Ordering::SeqCst) == 0 && start.elapsed().as_secs() < 10 {
                std::thread::yield_now();
            }
            cell.load(Ordering::SeqCst)
        });
        assert_ne!(seen, 0);
        assert_ne!(seen, main);
        // Still known once the thread is gone: a dump read late names it.
        assert_eq!(cell.load(Ordering::SeqCst), seen);
        // A round without a query thread forgets it.
        limits.query_alongside(&[key(0, "rxe0")], || ());
        assert_eq!(cell.load(Ordering::SeqCst), 0);
    }
}
