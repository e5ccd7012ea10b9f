//! The nldev client over a replay transport: the input is the kernel's side
//! of a conversation (replies back to back, as in a capture), answered to
//! the client's requests in order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::model::{Object, ResourceType};
use restop::nldev::{NldevClient, ReplayTransport};

fuzz_target!(|data: &[u8]| {
    let mut client = NldevClient::new(ReplayTransport::from_capture(data));
    let _ = client.devices();
    let _ = client.ports(0);
    let _ = client.summaries();
    let _ = client.sys();
    for device in [0, 1] {
        for t in ResourceType::ALL {
            let _ = client.dump_objects(device, t, &mut |o: Object| {
                let _ = (o.id(), o.dedup_key(), o.device());
            });
        }
    }
});
