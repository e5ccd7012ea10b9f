//! Phase 3: restop's own objects (the context opened to read limits through
//! libibverbs, and anything under it) are no one's usage. The object round
//! counts them per device; here they leave the summary counts too.

use super::view::ObjectView;
use crate::model::{Device, ResourceType, TypeCounts};
use std::collections::HashMap;

/// Takes restop's own objects, as the dumps of `dumped` (this collection's)
/// found them, out of every device's summary counts; returns how many.
pub(super) fn leave_out_own(
    devices: &mut [Device],
    view: &ObjectView,
    dumped: &[ResourceType],
) -> u64 {
    let mut own: HashMap<u32, TypeCounts> = HashMap::new();
    for t in dumped {
        for (device, n) in view.types.get(t).map(|v| &v.own).into_iter().flatten() {
            own.entry(*device).or_default().add(*t, *n);
        }
    }
    subtract_all(devices, &own)
}

fn subtract_all(devices: &mut [Device], own: &HashMap<u32, TypeCounts>) -> u64 {
    for device in devices.iter_mut() {
        if let Some(counts) = own.get(&device.index) {
            subtract(device, counts);
        }
    }
    own.values().map(TypeCounts::total).sum()
}

fn subtract(device: &mut Device, own: &TypeCounts) {
    for (t, n) in own.iter() {
        if let Some(entry) = device.usage.0.get_mut(&t) {
            entry.current = entry.current.saturating_sub(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ResourceType, UsageEntry};

    #[test]
    fn own_objects_leave_the_summary_and_never_underflow() {
        let mut d = Device::new(3, "rxe0");
        d.usage.set(
            ResourceType::Ctx,
            UsageEntry {
                current: 2,
                max: None,
                max_source: None,
            },
        );
        d.usage.set(
            ResourceType::Pd,
            UsageEntry {
                current: 0,
                max: None,
                max_source: None,
            },
        );
        let mut own = TypeCounts::default();
        own.add(ResourceType::Ctx, 1);
        own.add(ResourceType::Pd, 5);
        let mut devices = vec![d, Device::new(4, "rxe1")];
        let left_out = subtract_all(&mut devices, &HashMap::from([(3, own)]));
        assert_eq!(left_out, 6);
        let usage = &devices[0].usage;
        assert_eq!(usage.get(ResourceType::Ctx).map(|e| e.current), Some(1));
        assert_eq!(usage.get(ResourceType::Pd).map(|e| e.current), Some(0));
    }
}
