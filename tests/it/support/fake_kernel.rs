//! A fake NETLINK_RDMA peer that answers restop's requests with replies a
//! real 6.1 kernel sent (the captures in `tests/fixtures/netlink/`).
//!
//! The captures hold iproute2's conversations, not restop's: iproute2 reads
//! the summary and ports with one doit per device, restop with one dump. The
//! fake reassembles the captured data messages into the dump restop expects.

use restop::nldev::consts::cmd;
use restop::nldev::consts::cmd::STAT_GET;
use restop::nldev::fixture;
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{NlError, Transport};
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

pub struct FakeKernel {
    replies: HashMap<(u16, Option<u32>), Vec<u8>>,
    /// (op, device) of every request received, oldest first.
    pub requests: Vec<(u16, Option<u32>)>,
    pending: Vec<Vec<u8>>,
    last: Vec<u8>,
}

fn capture(name: &str) -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/netlink")
        .join(format!("{name}.rx.bin"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    split_replies(&bytes)
}

/// The data messages of a reply (no DONE, no ACK).
fn data_messages(reply: &[u8]) -> Vec<u8> {
    split_messages(reply)
        .into_iter()
        .filter(|m| {
            let kind = m.get(4..6).map(|b| u16::from_ne_bytes([b[0], b[1]]));
            kind != Some(NLMSG_DONE) && kind != Some(NLMSG_ERROR)
        })
        .flatten()
        .collect()
}

fn as_dump(parts: &[&[u8]]) -> Vec<u8> {
    let mut out: Vec<u8> = parts.iter().flat_map(|p| data_messages(p)).collect();
    out.extend(fixture::done(0));
    out
}

impl FakeKernel {
    /// The host of the captures: rxe0 (index 0) on lo and rxe1 (index 1) on
    /// dummy0, with ibv_*pingpong, rping, ib_write_bw and rxe_helper running.
    pub fn captured_host() -> FakeKernel {
        let mut replies = HashMap::new();
        let dev = capture("02-dev-show-d-json");
        replies.insert((cmd::GET, None), dev[0].clone());
        let link = capture("03-link-show-d-json");
        replies.insert((cmd::PORT_GET, Some(0)), as_dump(&[&link[1]]));
        replies.insert((cmd::PORT_GET, Some(1)), as_dump(&[&link[2]]));
        let res = capture("05-res-show-d-json");
        replies.insert((cmd::RES_GET, None), as_dump(&[&res[1], &res[2]]));
        replies.insert((cmd::SYS_GET, None), capture("16-sys-show")[1].clone());
        // STAT_GET (port counters), one doit per device's port 1.
        let stat = capture("15-statistic-show-json");
        replies.insert((STAT_GET, Some(0)), stat[1].clone());
        replies.insert((STAT_GET, Some(1)), stat[2].clone());
        // Per type: the capture and which of its replies answer device 0 and 1
        // (iproute2 also asked per port for QPs and CM_IDs).
        let dumps: [(u16, &str, usize, usize); 7] = [
            (cmd::RES_QP_GET, "06-res-qp-d-json", 1, 3),
            (cmd::RES_CQ_GET, "07-res-cq-d-json", 1, 2),
            (cmd::RES_MR_GET, "08-res-mr-d-json", 1, 2),
            (cmd::RES_PD_GET, "09-res-pd-d-json", 1, 2),
            (cmd::RES_CM_ID_GET, "10-res-cm_id-d-json", 1, 3),
            (cmd::RES_CTX_GET, "11-res-ctx-d-json", 1, 2),
            (cmd::RES_SRQ_GET, "12-res-srq-d-json", 1, 2),
        ];
        for (op, name, dev0, dev1) in dumps {
            let replies_of = capture(name);
            replies.insert((op, Some(0)), replies_of[dev0].clone());
            replies.insert((op, Some(1)), replies_of[dev1].clone());
        }
        FakeKernel {
            replies,
            requests: Vec::new(),
            pending: Vec::new(),
            last: Vec::new(),
        }
    }

    /// Makes every request about `device` fail as for a removed device.
    pub fn remove_device(&mut self, device: u32) {
        self.replies.retain(|(_, d), _| *d != Some(device));
    }

    /// How many object dumps of type `op` were requested.
    pub fn count(&self, op: u16) -> usize {
        self.requests.iter().filter(|(o, _)| *o == op).count()
    }
}

/// `(op, DEV_INDEX)` of a request.
fn parse_request(request: &[u8]) -> (u16, Option<u32>) {
    let kind = u16::from_ne_bytes([request[4], request[5]]);
    let mut device = None;
    let mut at = 16;
    while at + 4 <= request.len() {
        let len = usize::from(u16::from_ne_bytes([request[at], request[at + 1]]));
        let attr = u16::from_ne_bytes([request[at + 2], request[at + 3]]) & 0x3fff;
        if attr == 1 && len == 8 {
            let b = &request[at + 4..at + 8];
            device = Some(u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
        }
        if len < 4 {
            break;
        }
        at += (len + 3) & !3;
    }
    (kind & 0x3ff, device)
}

impl Transport for FakeKernel {
    fn send(&mut self, _op: &'static str, request: &[u8]) -> Result<(), NlError> {
        let key = parse_request(request);
        self.requests.push(key);
        let reply = match self.replies.get(&key) {
            Some(reply) => reply.clone(),
            // What the kernel says about a device index it does not know.
            None => fixture::error(19),
        };
        self.pending = split_messages(&reply);
        self.pending.reverse();
        Ok(())
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        match self.pending.pop() {
            Some(datagram) => {
                self.last = datagram;
                Ok(&self.last)
            }
            None => Err(NlError::Timeout {
                op,
                after: Duration::ZERO,
            }),
        }
    }

    fn abandon(&mut self) {
        self.pending.clear();
    }
}

impl FakeKernel {
    /// The summary reply, to put back after [`FakeKernel::remove_device`]
    /// (the summary lists all devices in one dump).
    pub fn clone_summary(&self) -> Option<Vec<u8>> {
        self.replies.get(&(cmd::RES_GET, None)).cloned()
    }

    pub fn restore_summary(&mut self, summary: Option<Vec<u8>>) {
        if let Some(reply) = summary {
            self.replies.insert((cmd::RES_GET, None), reply);
        }
    }
}
