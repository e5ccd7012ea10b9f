//! One datagram of kernel reply bytes through every nldev parser: the
//! message and attribute walkers and each record parser, for every type.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::model::{Object, ResourceType};
use restop::nldev::entry::{EntryFields, qp_ranges};
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{attr, device, msg, objects, sockaddr};

fuzz_target!(|data: &[u8]| {
    for reply in split_replies(data) {
        let _ = split_messages(&reply);
    }
    for m in msg::messages(data).flatten() {
        let _ = m.reply();
        let payload = m.payload;
        let _ = device::parse_device(payload);
        let _ = device::parse_port(payload, 1);
        let _ = device::parse_sys(payload);
        let _ = EntryFields::parse(payload);
        let _ = qp_ranges(payload);
        for t in ResourceType::ALL {
            let _ = objects::parse_message(payload, t, 0, &mut |o: Object| {
                let _ = (o.id(), o.dedup_key(), o.device());
            });
        }
        for a in attr::attrs(payload).flatten() {
            let _ = (a.u8(), a.u16(), a.u32(), a.u64(), a.string());
            let _ = sockaddr::decode(a.str_bytes());
            let _ = a.nested().count();
        }
    }
});
