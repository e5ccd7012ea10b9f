//! A synthetic host with any number of MRs, built from real kernel replies.
//!
//! Every request is answered by the captured host (`tests/support/fake_kernel.rs`)
//! except device 0's MR dump: that one is made, message by message while it
//! is read, from the MR entries the kernel sent in the capture, each copy
//! given the next id (so ids are distinct and increase, as in the kernel's
//! walk) and the capture's owner; each message holds the copies of one
//! captured entry, so owners come in runs as when a process registers its
//! buffers. Nothing of the dump is kept, so the
//! generator's memory is one message whatever the number of MRs.

use super::fake_kernel::FakeKernel;
use restop::nldev::attr::attrs;
use restop::nldev::consts::{attr as a, cmd, nldev_type};
use restop::nldev::fixture;
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{NlError, Transport};
use std::path::Path;

/// About what the kernel puts in one dump message (a page).
const MESSAGE_BYTES: usize = 4000;
const NLM_F_MULTI: u16 = 2;

/// One reusable dump message and where its MR ids are.
struct Template {
    message: Vec<u8>,
    /// Offsets of each entry's `RES_MRN` value in `message`.
    id_offsets: Vec<usize>,
}

pub struct SyntheticKernel {
    inner: FakeKernel,
    mrs: u64,
    /// One message's worth of entries per captured owner: a process's MRs
    /// come in runs of consecutive ids, as when it registers its buffers.
    full: Vec<Template>,
    /// Messages generated in the current dump.
    sent: usize,
    /// Set while device 0's MR dump is being read: the next id to hand out.
    next_id: Option<u64>,
    tail: Vec<u8>,
    /// When true, each message's ids are handed out in reverse (the
    /// kernel's order broken), to exercise the exact fallback.
    pub shuffled: bool,
}

/// The MR entries (whole `RES_MR_ENTRY` attributes) the kernel sent for device 0.
fn captured_entries() -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/netlink/08-res-mr-d-json.rx.bin");
    let rx = std::fs::read(path).expect("MR capture");
    let reply = split_replies(&rx).swap_remove(1);
    let message = split_messages(&reply).swap_remove(0);
    let mut out = Vec::new();
    for table in attrs(&message[16..]).flatten() {
        if table.kind != a::RES_MR {
            continue;
        }
        for entry in table.nested().flatten() {
            let mut bytes = Vec::new();
            let len = u16::try_from(4 + entry.payload.len()).expect("entry length");
            bytes.extend_from_slice(&len.to_ne_bytes());
            bytes.extend_from_slice(&(entry.kind | 0x8000).to_ne_bytes());
            bytes.extend_from_slice(entry.payload);
            bytes.resize((bytes.len() + 3) & !3, 0);
            out.push(bytes);
        }
    }
    assert!(!out.is_empty(), "the capture has MR entries");
    out
}

/// The offset of the `RES_MRN` value inside an entry attribute.
fn mrn_offset(entry: &[u8]) -> usize {
    let mut at = 4;
    while at + 4 <= entry.len() {
        let len = usize::from(u16::from_ne_bytes([entry[at], entry[at + 1]]));
        let kind = u16::from_ne_bytes([entry[at + 2], entry[at + 3]]) & 0x3fff;
        if kind == a::RES_MRN {
            return at + 4;
        }
        at += (len.max(4) + 3) & !3;
    }
    panic!("captured MR entry without RES_MRN");
}

fn build(entries: &[&Vec<u8>]) -> Template {
    let mut payload = fixture::Attrs::new()
        .u32(a::DEV_INDEX, 0)
        .string(a::DEV_NAME, "rxe0")
        .into_bytes();
    let table_at = payload.len();
    payload.extend_from_slice(&[0, 0]);
    payload.extend_from_slice(&(a::RES_MR | 0x8000).to_ne_bytes());
    let mut id_offsets = Vec::new();
    for e in entries {
        id_offsets.push(16 + payload.len() + mrn_offset(e));
        payload.extend_from_slice(e);
    }
    let table_len = u16::try_from(payload.len() - table_at).expect("table fits");
    payload[table_at..table_at + 2].copy_from_slice(&table_len.to_ne_bytes());
    let message = fixture::message(nldev_type(cmd::RES_MR_GET), NLM_F_MULTI, 0, &payload);
    Template {
        message,
        id_offsets,
    }
}

impl SyntheticKernel {
    pub fn new(mrs: u64) -> SyntheticKernel {
        let captured = captured_entries();
        let per_message = MESSAGE_BYTES / captured[0].len();
        let full = captured
            .iter()
            .map(|e| build(&vec![e; per_message]))
            .collect();
        SyntheticKernel {
            inner: FakeKernel::captured_host(),
            mrs,
            full,
            sent: 0,
            next_id: None,
            tail: Vec::new(),
            shuffled: false,
        }
    }

    /// MR entries per generated message.
    pub fn per_message(&self) -> usize {
        self.full[0].id_offsets.len()
    }
}

fn is_mr_dump_of_device_0(request: &[u8]) -> bool {
    let kind = u16::from_ne_bytes([request[4], request[5]]) & 0x3ff;
    let device = request
        .get(20..24)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
    kind == cmd::RES_MR_GET && device == Some(0)
}

impl Transport for SyntheticKernel {
    fn send(&mut self, op: &'static str, request: &[u8]) -> Result<(), NlError> {
        if is_mr_dump_of_device_0(request) {
            self.next_id = Some(1);
            self.sent = 0;
            return Ok(());
        }
        self.next_id = None;
        self.inner.send(op, request)
    }

    fn recv(&mut self, op: &'static str) -> Result<&[u8], NlError> {
        let Some(next) = self.next_id else {
            return self.inner.recv(op);
        };
        let left = (self.mrs + 1).saturating_sub(next);
        if left == 0 {
            self.next_id = None;
            self.tail = fixture::done(0);
            return Ok(&self.tail);
        }
        let n = usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(self.per_message());
        let ids: Vec<u64> = if self.shuffled {
            (next..next + n as u64).rev().collect()
        } else {
            (next..next + n as u64).collect()
        };
        let which = self.sent % self.full.len();
        self.sent += 1;
        self.next_id = Some(next + n as u64);
        if n == self.per_message() {
            let full = &mut self.full[which];
            for (offset, id) in full.id_offsets.iter().zip(&ids) {
                let id = u32::try_from(*id).unwrap_or(u32::MAX);
                full.message[*offset..*offset + 4].copy_from_slice(&id.to_ne_bytes());
            }
            return Ok(&full.message);
        }
        // The last, shorter message.
        let captured = captured_entries();
        let entries: Vec<&Vec<u8>> = captured.iter().cycle().take(n).collect();
        let mut tail = build(&entries);
        for (offset, id) in tail.id_offsets.iter().zip(&ids) {
            let id = u32::try_from(*id).unwrap_or(u32::MAX);
            tail.message[*offset..*offset + 4].copy_from_slice(&id.to_ne_bytes());
        }
        self.tail = tail.message;
        Ok(&self.tail)
    }

    fn abandon(&mut self) {
        self.next_id = None;
        self.inner.abandon();
    }
}
