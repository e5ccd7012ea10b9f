//! The parser and the exchange rules on hand-built replies: the cases real
//! captures from one kernel cannot show (PAD, flagged nests, errors, missing
//! owners, unknown attributes, limits in the summary, old kernels).

use restop::model::{
    LimitSource, Object, OwnerKey, QpState, QpType, ReportedOwner, ResourceType, SrqType,
};
use restop::nldev::consts::{self, attr, cmd};
use restop::nldev::fixture::{
    Attrs, doit_reply, done, dump_message, dump_reply, error, message, sockaddr_storage,
};
use restop::nldev::{NlError, NldevClient, ReplayTransport};
use restop::source::CollectError;
use std::time::Duration;

const EPERM: i32 = 1;
const ENOENT: i32 = 2;
const EINVAL: i32 = 22;

fn client(replies: Vec<Vec<u8>>) -> NldevClient<ReplayTransport> {
    NldevClient::new(ReplayTransport::new(replies))
}

fn objects(reply: Vec<u8>, device: u32, t: ResourceType) -> Result<Vec<Object>, NlError> {
    let mut out = Vec::new();
    client(vec![reply]).dump_objects(device, t, &mut |o| out.push(o))?;
    Ok(out)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `docs/nldev.md` §1.9: RES_GET doit reply for mlx5_0 (212 bytes).
const SUMMARY_HEX: &str = "d400000009140000010000009210000008000100000000000b0002006d6c78355f300000b0000f001800100007001100706400000c00120003000000000000001800100007001100637100000c00120004000000000000001800100007001100717000000c00120003000000000000001c0010000a001100636d5f69640000000c001200000000000000000018001000070011006d7200000c00120000000000000000001800100008001100637478000c00120000000000000000001800100008001100737271000c0012000200000000000000";

/// §1.9: RES_QP_GET dump reply with two QPs, then DONE (200 bytes).
const QP_DUMP_HEX: &str = "b40000000a140200020000009210000008000100000000000b0002006d6c78355f3000009000130038001400080003000100000008001500010000000c001d0069625f636f726500080018000000000005001a000100000005001b000300000054001400080003000100000008001500a501000008003c000700000008001c00697a000008001600b2010000080017004523010008001800debc0a00050019000000000005001a000200000005001b00060000001400000003000200020000009210000000000000";

fn dev(index: u32, name: &str) -> Attrs {
    Attrs::new()
        .u32(attr::DEV_INDEX, index)
        .string(attr::DEV_NAME, name)
}

fn summary_entry(name: &str, curr: u64, max: Option<u64>) -> Attrs {
    let e = Attrs::new()
        .string(attr::RES_SUMMARY_ENTRY_NAME, name)
        .u64(attr::RES_SUMMARY_ENTRY_CURR, curr);
    match max {
        Some(m) => e.u64(attr::RES_SUMMARY_ENTRY_MAX, m),
        None => e,
    }
}

fn qp_entry(lqpn: u32, state: QpState) -> Attrs {
    Attrs::new()
        .u32(attr::PORT_INDEX, 1)
        .u32(attr::RES_LQPN, lqpn)
        .u32(attr::RES_SQ_PSN, 0)
        .u8(attr::RES_TYPE, QpType::Rc.raw())
        .u8(attr::RES_STATE, state.raw())
}

fn qp_table(entries: Vec<Attrs>) -> Attrs {
    let table = entries
        .into_iter()
        .fold(Attrs::new(), |t, e| t.nest(attr::RES_QP_ENTRY, e));
    dev(0, "mlx5_0").nest(attr::RES_QP, table)
}

// ---- constants ----

#[test]
fn protocol_numbers_are_the_kernels() {
    assert_eq!(consts::NETLINK_RDMA, 20);
    assert_eq!(consts::nldev_type(cmd::GET), 0x1401);
    assert_eq!(consts::nldev_type(cmd::RES_QP_GET), 5130);
    assert_eq!(consts::client_of(0x140a), 5);
    assert_eq!(consts::op_of(0x140a), 10);
    let commands = [
        (cmd::GET, 1),
        (cmd::PORT_GET, 5),
        (cmd::SYS_GET, 6),
        (cmd::RES_GET, 9),
        (cmd::RES_QP_GET, 10),
        (cmd::RES_CM_ID_GET, 11),
        (cmd::RES_CQ_GET, 12),
        (cmd::RES_MR_GET, 13),
        (cmd::RES_PD_GET, 14),
        (cmd::RES_CTX_GET, 22),
        (cmd::RES_SRQ_GET, 23),
    ];
    for (got, want) in commands {
        assert_eq!(got, want);
    }
    let attrs = [
        (attr::PAD, 0),
        (attr::DEV_INDEX, 1),
        (attr::DEV_NAME, 2),
        (attr::PORT_INDEX, 3),
        (attr::NODE_GUID, 6),
        (attr::PORT_STATE, 12),
        (attr::PORT_PHYS_STATE, 13),
        (attr::DEV_NODE_TYPE, 14),
        (attr::RES_SUMMARY, 15),
        (attr::RES_SUMMARY_ENTRY_CURR, 18),
        (attr::RES_QP, 19),
        (attr::RES_LQPN, 21),
        (attr::RES_STATE, 27),
        (attr::RES_PID, 28),
        (attr::RES_KERN_NAME, 29),
        (attr::RES_SRC_ADDR, 33),
        (attr::RES_RKEY, 42),
        (attr::RES_LKEY, 43),
        (attr::RES_MRLEN, 45),
        (attr::RES_LOCAL_DMA_LKEY, 48),
        (attr::NDEV_INDEX, 50),
        (attr::RES_PDN, 60),
        (attr::RES_CTXN, 64),
        (attr::SYS_ATTR_NETNS_MODE, 66),
        (attr::DEV_PROTOCOL, 67),
        (attr::DEV_DIM, 84),
        (attr::RES_CTX, 86),
        (attr::RES_SRQ_ENTRY, 89),
        (attr::MIN_RANGE, 91),
        (attr::MAX_RANGE, 92),
        (attr::RES_SUMMARY_ENTRY_MAX, 118),
    ];
    for (got, want) in attrs {
        assert_eq!(got, want);
    }
    assert_eq!(consts::NLA_TYPE_MASK, 0x3fff);
}

// ---- the §1.9 fixtures ----

#[test]
fn doc_summary_fixture() {
    // A doit reply: the ACK that follows it ends the exchange.
    let reply = [hex(SUMMARY_HEX), error(0)].concat();
    let s = client(vec![reply]).summaries().unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].index, s[0].name.as_str()), (0, "mlx5_0"));
    let cur = |t| s[0].usage.current(t);
    assert_eq!(cur(ResourceType::Pd), Some(3));
    assert_eq!(cur(ResourceType::Cq), Some(4));
    assert_eq!(cur(ResourceType::Qp), Some(3));
    assert_eq!(cur(ResourceType::CmId), Some(0));
    assert_eq!(cur(ResourceType::Srq), Some(2));
    assert_eq!(s[0].usage.0.len(), 7);
}

#[test]
fn doc_qp_fixture() {
    let qps = objects(hex(QP_DUMP_HEX), 0, ResourceType::Qp).unwrap();
    let [Object::Qp(gsi), Object::Qp(user)] = &qps[..] else {
        panic!("{qps:?}")
    };
    assert_eq!(
        (gsi.lqpn, gsi.qp_type, gsi.state),
        (1, QpType::Gsi, QpState::Rts)
    );
    assert_eq!(gsi.reported, ReportedOwner::Kernel("ib_core".into()));
    assert_eq!(user.lqpn, 0x1a5);
    assert_eq!((user.qp_type, user.state), (QpType::Rc, QpState::Err));
    assert_eq!(user.pdn, Some(7));
    assert_eq!(user.reported, ReportedOwner::Task(31337));
    assert_eq!(user.rqpn, Some(0x1b2));
    assert_eq!(user.rq_psn, Some(0x12345));
    assert_eq!(user.sq_psn, Some(0xabcde));
    assert_eq!(user.port, Some(1));
    assert_eq!(user.owner, OwnerKey::Unattributed);
}

// ---- summary limits (RES_SUMMARY_ENTRY_MAX) ----

#[test]
fn summary_max_becomes_a_kernel_limit() {
    let table = Attrs::new()
        .nest(
            attr::RES_SUMMARY_ENTRY,
            summary_entry("pd", 3, Some(1 << 20)),
        )
        .nest(
            attr::RES_SUMMARY_ENTRY,
            summary_entry("qp", 123, Some(131_072)),
        )
        .nest(attr::RES_SUMMARY_ENTRY, summary_entry("cm_id", 4, None))
        .nest(attr::RES_SUMMARY_ENTRY, summary_entry("srq", 0, Some(0)))
        .nest(attr::RES_SUMMARY_ENTRY, summary_entry("frmr", 9, Some(10)));
    let msg = dev(0, "mlx5_0").nest(attr::RES_SUMMARY, table);
    let s = client(vec![dump_reply(cmd::RES_GET, &[msg])])
        .summaries()
        .unwrap();
    let usage = &s[0].usage;
    let qp = usage.get(ResourceType::Qp).unwrap();
    assert_eq!((qp.current, qp.max), (123, Some(131_072)));
    assert_eq!(qp.max_source, Some(LimitSource::Kernel));
    let cm = usage.get(ResourceType::CmId).unwrap();
    assert_eq!((cm.max, cm.max_source), (None, None));
    // Zero means "no limit reported".
    let srq = usage.get(ResourceType::Srq).unwrap();
    assert_eq!((srq.max, srq.max_source), (None, None));
    // Unknown names are ignored; missing types stay missing.
    assert_eq!(usage.0.len(), 3 + 1);
    assert_eq!(usage.get(ResourceType::Mr), None);
}

/// The §1.9 summary, re-emitted with the limits a kernel with
/// `RES_SUMMARY_ENTRY_MAX` adds (none for cm_id and ctx).
#[test]
fn doc_summary_fixture_with_entry_max() {
    use restop::nldev::attr::attrs;
    use restop::nldev::msg::messages;
    let limit = |name: &[u8]| match name {
        b"qp" => Some(1_048_560),
        b"cq" | b"pd" => Some(1_048_576),
        b"mr" => Some(524_287),
        b"srq" => Some(917_503),
        _ => None,
    };
    let doc = hex(SUMMARY_HEX);
    let m = messages(&doc).next().unwrap().unwrap();
    let mut top = Attrs::new();
    for at in attrs(m.payload).map(Result::unwrap) {
        if at.kind != attr::RES_SUMMARY {
            top = top.bytes(at.kind, at.payload);
            continue;
        }
        let mut table = Attrs::new();
        for entry in at.nested().map(Result::unwrap) {
            let name = entry
                .nested()
                .map(Result::unwrap)
                .find(|a| a.kind == attr::RES_SUMMARY_ENTRY_NAME)
                .unwrap()
                .str_bytes();
            let mut e = Attrs::new().raw(entry.payload);
            if let Some(max) = limit(name) {
                e = e.u64(attr::RES_SUMMARY_ENTRY_MAX, max);
            }
            table = table.nest(attr::RES_SUMMARY_ENTRY, e);
        }
        top = top.nest(attr::RES_SUMMARY, table);
    }
    let s = client(vec![doit_reply(cmd::RES_GET, &top)])
        .summaries()
        .unwrap();
    let usage = &s[0].usage;
    let got = |t| usage.get(t).map(|e| (e.current, e.max, e.max_source));
    let kernel = Some(LimitSource::Kernel);
    assert_eq!(got(ResourceType::Qp), Some((3, Some(1_048_560), kernel)));
    assert_eq!(got(ResourceType::Cq), Some((4, Some(1_048_576), kernel)));
    assert_eq!(got(ResourceType::Mr), Some((0, Some(524_287), kernel)));
    assert_eq!(got(ResourceType::Srq), Some((2, Some(917_503), kernel)));
    assert_eq!(got(ResourceType::CmId), Some((0, None, None)));
    assert_eq!(got(ResourceType::Ctx), Some((0, None, None)));
    assert_eq!(
        usage.get(ResourceType::Qp).unwrap().ratio(),
        Some(3.0 / 1_048_560.0)
    );
}

#[test]
fn summary_of_several_devices_in_one_dump() {
    let a = dev(0, "mlx5_0").nest(
        attr::RES_SUMMARY,
        Attrs::new().nest(attr::RES_SUMMARY_ENTRY, summary_entry("qp", 1, None)),
    );
    let b = dev(3, "mlx5_1").nest(
        attr::RES_SUMMARY,
        Attrs::new().nest(attr::RES_SUMMARY_ENTRY, summary_entry("qp", 2, None)),
    );
    let mut c = client(vec![dump_reply(cmd::RES_GET, &[a, b])]);
    let s = c.summaries().unwrap();
    let got: Vec<_> = s
        .iter()
        .map(|d| (d.index, d.name.as_str(), d.usage.current(ResourceType::Qp)))
        .collect();
    assert_eq!(got, [(0, "mlx5_0", Some(1)), (3, "mlx5_1", Some(2))]);
    // One dump request, no attributes.
    let sent = &c.transport().sent()[0];
    assert_eq!(sent.len(), 16);
    assert_eq!(u16::from_ne_bytes([sent[4], sent[5]]), 0x1409);
    assert_eq!(u16::from_ne_bytes([sent[6], sent[7]]), 0x301);
}

// ---- tolerance ----

#[test]
fn pad_before_u64_is_skipped() {
    let entry = Attrs::new()
        .u32(attr::RES_MRN, 4)
        .pad()
        .u64(attr::RES_MRLEN, 1 << 33)
        .u32(attr::RES_PDN, 2)
        .u32(attr::RES_PID, 77);
    let msg = dev(0, "mlx5_0")
        .pad()
        .nest(attr::RES_MR, Attrs::new().nest(attr::RES_MR_ENTRY, entry));
    let mrs = objects(dump_reply(cmd::RES_MR_GET, &[msg]), 0, ResourceType::Mr).unwrap();
    let [Object::Mr(mr)] = &mrs[..] else {
        panic!("{mrs:?}")
    };
    assert_eq!((mr.mrn, mr.len, mr.pdn), (Some(4), 1 << 33, Some(2)));
    assert_eq!(mr.keys, None);

    let summary = Attrs::new()
        .string(attr::RES_SUMMARY_ENTRY_NAME, "mr")
        .pad()
        .u64(attr::RES_SUMMARY_ENTRY_CURR, 5)
        .pad()
        .u64(attr::RES_SUMMARY_ENTRY_MAX, 9);
    let msg = dev(0, "x").nest(
        attr::RES_SUMMARY,
        Attrs::new().nest(attr::RES_SUMMARY_ENTRY, summary),
    );
    let s = client(vec![dump_reply(cmd::RES_GET, &[msg])])
        .summaries()
        .unwrap();
    let mr = s[0].usage.get(ResourceType::Mr).unwrap();
    assert_eq!((mr.current, mr.max), (5, Some(9)));
}

#[test]
fn nests_parse_with_or_without_the_nested_flag() {
    let entry = || qp_entry(7, QpState::Rts);
    let plain = qp_table(vec![entry()]);
    let flagged = dev(0, "mlx5_0").nest_flagged(
        attr::RES_QP,
        Attrs::new().nest_flagged(attr::RES_QP_ENTRY, entry()),
    );
    let a = objects(dump_reply(cmd::RES_QP_GET, &[plain]), 0, ResourceType::Qp).unwrap();
    let b = objects(dump_reply(cmd::RES_QP_GET, &[flagged]), 0, ResourceType::Qp).unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(a, b);
}

#[test]
fn unknown_attributes_are_skipped_at_every_level() {
    let entry = qp_entry(9, QpState::Init)
        .u32(117, 5)
        .bytes(200, b"future")
        .nest(attr::RES_QP, Attrs::new().u32(1000, 1)); // not an SRQ: ignored
    let table = Attrs::new()
        .u64(4000, 1)
        .nest(attr::RES_QP_ENTRY, entry)
        .nest(attr::RES_CQ_ENTRY, Attrs::new());
    let msg = dev(0, "mlx5_0")
        .u8(attr::DEV_DIM, 1)
        .nest(attr::RES_QP, table)
        .string(0x3ffe, "newer kernel");
    let qps = objects(dump_reply(cmd::RES_QP_GET, &[msg]), 0, ResourceType::Qp).unwrap();
    assert_eq!(qps.len(), 1);
    assert_eq!(qps[0].id(), Some(9));
}

#[test]
fn entries_without_pid_or_kernel_name_are_missing_owners() {
    let entry = Attrs::new()
        .u32(attr::RES_LQPN, 3)
        .u8(attr::RES_TYPE, 2)
        .u8(attr::RES_STATE, 3)
        .u32(attr::RES_PID, 0); // never sent by the kernel, but means "none"
    let qps = objects(
        dump_reply(cmd::RES_QP_GET, &[qp_table(vec![entry])]),
        0,
        ResourceType::Qp,
    )
    .unwrap();
    let [Object::Qp(qp)] = &qps[..] else {
        panic!("{qps:?}")
    };
    assert_eq!(qp.reported, ReportedOwner::Missing);
    assert_eq!(qp.port, None); // RESET QPs have no port
}

#[test]
fn a_table_split_over_messages_and_datagrams() {
    let m1 = dump_message(
        cmd::RES_QP_GET,
        &qp_table(vec![qp_entry(1, QpState::Rts), qp_entry(2, QpState::Err)]),
    );
    let m2 = dump_message(cmd::RES_QP_GET, &qp_table(vec![qp_entry(3, QpState::Sqe)]));
    let m3 = dump_message(cmd::RES_QP_GET, &qp_table(vec![qp_entry(4, QpState::Rtr)]));
    // m1+m2 in one datagram, m3 and DONE in the next.
    let first = [m1, m2].concat();
    let second = [m3, done(0)].concat();
    let bytes = first.len() + second.len();
    let mut c = NldevClient::new(ReplayTransport::from_datagrams([vec![first, second]]));
    let mut ids = Vec::new();
    let stats = c
        .dump_objects(0, ResourceType::Qp, &mut |o| ids.push(o.id().unwrap()))
        .unwrap();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!((stats.messages, stats.entries, stats.bytes), (3, 4, bytes));
}

#[test]
fn an_empty_dump_is_a_bare_done() {
    let stats = client(vec![done(0)])
        .dump_objects(0, ResourceType::Srq, &mut |_| panic!("no objects"))
        .unwrap();
    assert_eq!((stats.messages, stats.entries), (0, 0));
}

#[test]
fn empty_entries_and_entries_missing_required_fields() {
    // Kernel contexts are empty nests: still counted, without id or owner.
    let ctx = dev(0, "m").nest(
        attr::RES_CTX,
        Attrs::new().nest(attr::RES_CTX_ENTRY, Attrs::new()).nest(
            attr::RES_CTX_ENTRY,
            Attrs::new().u32(attr::RES_CTXN, 5).u32(attr::RES_PID, 10),
        ),
    );
    let ctxs = objects(dump_reply(cmd::RES_CTX_GET, &[ctx]), 0, ResourceType::Ctx).unwrap();
    let got: Vec<_> = ctxs
        .iter()
        .map(|o| (o.id(), o.reported().clone()))
        .collect();
    assert_eq!(
        got,
        [
            (None, ReportedOwner::Missing),
            (Some(5), ReportedOwner::Task(10))
        ]
    );
    // A QP without state cannot be a record: that entry is skipped, the rest stay.
    let no_state = Attrs::new().u32(attr::RES_LQPN, 8).u8(attr::RES_TYPE, 2);
    let msg = qp_table(vec![Attrs::new(), no_state, qp_entry(9, QpState::Rts)]);
    let mut c = client(vec![dump_reply(cmd::RES_QP_GET, &[msg])]);
    let mut ids = Vec::new();
    let stats = c
        .dump_objects(0, ResourceType::Qp, &mut |o| ids.push(o.id()))
        .unwrap();
    assert_eq!(ids, [Some(9)]);
    assert_eq!(stats.entries, 1);
}

#[test]
fn old_kernels_without_object_ids() {
    let cq = Attrs::new()
        .u32(attr::RES_CQE, 63)
        .u64(attr::RES_USECNT, 2)
        .u8(attr::RES_POLL_CTX, 2)
        .string(attr::RES_KERN_NAME, "ib_core");
    let msg = dev(0, "m").nest(attr::RES_CQ, Attrs::new().nest(attr::RES_CQ_ENTRY, cq));
    let cqs = objects(dump_reply(cmd::RES_CQ_GET, &[msg]), 0, ResourceType::Cq).unwrap();
    let [Object::Cq(cq)] = &cqs[..] else {
        panic!("{cqs:?}")
    };
    assert_eq!((cq.cqn, cq.ctxn, cq.cqe, cq.users), (None, None, 63, 2));
    assert_eq!(cq.adaptive_moderation, None);
    assert_eq!(cq.reported, ReportedOwner::Kernel("ib_core".into()));

    let pd = Attrs::new().u64(attr::RES_USECNT, 1).u32(attr::RES_PID, 4);
    let msg = dev(0, "m").nest(attr::RES_PD, Attrs::new().nest(attr::RES_PD_ENTRY, pd));
    let pds = objects(dump_reply(cmd::RES_PD_GET, &[msg]), 0, ResourceType::Pd).unwrap();
    let [Object::Pd(pd)] = &pds[..] else {
        panic!("{pds:?}")
    };
    assert_eq!((pd.pdn, pd.local_dma_lkey, pd.users), (None, None, 1));
}

#[test]
fn mr_keys_need_both_keys() {
    let mr = |keys: Attrs| {
        let entry = keys.u64(attr::RES_MRLEN, 64).u32(attr::RES_MRN, 1);
        let msg = dev(0, "m").nest(attr::RES_MR, Attrs::new().nest(attr::RES_MR_ENTRY, entry));
        match &objects(dump_reply(cmd::RES_MR_GET, &[msg]), 0, ResourceType::Mr).unwrap()[..] {
            [Object::Mr(mr)] => mr.keys,
            other => panic!("{other:?}"),
        }
    };
    let both = mr(Attrs::new()
        .u32(attr::RES_RKEY, 0x10)
        .u32(attr::RES_LKEY, 0x20))
    .unwrap();
    assert_eq!((both.rkey, both.lkey), (0x10, 0x20));
    assert_eq!(mr(Attrs::new().u32(attr::RES_LKEY, 0x20)), None);
    assert_eq!(mr(Attrs::new()), None);
}

#[test]
fn the_requested_device_is_used_when_a_message_has_no_index() {
    let msg = Attrs::new().nest(
        attr::RES_QP,
        Attrs::new().nest(attr::RES_QP_ENTRY, qp_entry(1, QpState::Rts)),
    );
    let qps = objects(dump_reply(cmd::RES_QP_GET, &[msg]), 6, ResourceType::Qp).unwrap();
    assert_eq!(qps[0].device(), 6);
    let msg = dev(2, "m").nest(
        attr::RES_QP,
        Attrs::new().nest(attr::RES_QP_ENTRY, qp_entry(1, QpState::Rts)),
    );
    let qps = objects(dump_reply(cmd::RES_QP_GET, &[msg]), 6, ResourceType::Qp).unwrap();
    assert_eq!(qps[0].device(), 2);
}

#[test]
fn srq_qp_lists_become_ranges() {
    let list = Attrs::new()
        .nest_flagged(
            attr::RES_QP_ENTRY,
            Attrs::new()
                .u32(attr::MIN_RANGE, 19)
                .u32(attr::MAX_RANGE, 22),
        )
        .nest_flagged(attr::RES_QP_ENTRY, Attrs::new().u32(attr::RES_LQPN, 40))
        .nest_flagged(
            attr::RES_QP_ENTRY,
            Attrs::new().u32(attr::MIN_RANGE, 9).u32(attr::MAX_RANGE, 3),
        )
        .nest_flagged(attr::RES_QP_ENTRY, Attrs::new());
    let entry = Attrs::new()
        .u32(attr::RES_SRQN, 2)
        .u8(attr::RES_TYPE, 1)
        .u32(attr::RES_PDN, 9)
        .u32(attr::RES_CQN, 4)
        .nest_flagged(attr::RES_QP, list)
        .u32(attr::RES_PID, 679);
    let msg = dev(0, "m").nest(attr::RES_SRQ, Attrs::new().nest(attr::RES_SRQ_ENTRY, entry));
    let srqs = objects(dump_reply(cmd::RES_SRQ_GET, &[msg]), 0, ResourceType::Srq).unwrap();
    let [Object::Srq(srq)] = &srqs[..] else {
        panic!("{srqs:?}")
    };
    assert_eq!(srq.qp_ranges, [(19, 22), (40, 40)]);
    assert_eq!(
        (srq.srq_type, srq.cqn, srq.pdn),
        (SrqType::Xrc, Some(4), Some(9))
    );
}

#[test]
fn cm_id_addresses() {
    let entry = Attrs::new()
        .u32(attr::RES_PS, 0x0106)
        .u8(attr::RES_STATE, 5)
        .bytes(
            attr::RES_SRC_ADDR,
            &sockaddr_storage("[fe80::1%2]:4791".parse().unwrap()),
        )
        .bytes(attr::RES_DST_ADDR, &[10, 0, 1])
        .u32(attr::RES_CM_IDN, 3);
    let msg = dev(0, "m").nest(
        attr::RES_CM_ID,
        Attrs::new().nest(attr::RES_CM_ID_ENTRY, entry),
    );
    let ids = objects(
        dump_reply(cmd::RES_CM_ID_GET, &[msg]),
        0,
        ResourceType::CmId,
    )
    .unwrap();
    let [Object::CmId(id)] = &ids[..] else {
        panic!("{ids:?}")
    };
    assert_eq!(id.src, Some("[fe80::1%2]:4791".parse().unwrap()));
    assert_eq!(id.dst, None);
    assert_eq!((id.lqpn, id.qp_type, id.port), (None, None, None));
}

#[test]
fn ports_and_devices_tolerate_missing_fields() {
    let port = Attrs::new()
        .u32(attr::DEV_INDEX, 0)
        .u32(attr::PORT_INDEX, 2)
        .u8(attr::PORT_STATE, 1)
        .u8(attr::PORT_PHYS_STATE, 3);
    let no_port = Attrs::new().u32(attr::DEV_INDEX, 0);
    let ports = client(vec![dump_reply(cmd::PORT_GET, &[port, no_port])])
        .ports(0)
        .unwrap();
    assert_eq!(ports.len(), 1);
    assert_eq!(ports[0].port, 2);
    assert_eq!(ports[0].state.map(|s| s.name()), Some("DOWN"));
    assert_eq!(ports[0].netdev, None);

    let full = dev(1, "mlx5_1")
        .u32(attr::PORT_INDEX, 2)
        .string(attr::FW_VERSION, "16.35.2000")
        .u64(attr::NODE_GUID, 0x1122)
        .u8(attr::DEV_NODE_TYPE, 1);
    let nameless = Attrs::new().u32(attr::DEV_INDEX, 2);
    let devices = client(vec![dump_reply(cmd::GET, &[full, nameless])])
        .devices()
        .unwrap();
    assert_eq!(devices.len(), 1);
    let d = &devices[0];
    assert_eq!((d.index, d.port_count), (1, 2));
    assert_eq!(d.fw_version.as_deref(), Some("16.35.2000"));
    assert_eq!(
        (d.node_guid, d.sys_image_guid, d.protocol.as_deref()),
        (Some(0x1122), None, None)
    );
}

#[test]
fn sys_reads_the_netns_mode() {
    use restop::model::NetnsMode;
    let reply = |mode: u8| {
        doit_reply(
            cmd::SYS_GET,
            &Attrs::new().u8(attr::SYS_ATTR_NETNS_MODE, mode).u8(93, 1),
        )
    };
    let mut c = client(vec![reply(0), reply(1), reply(7), error(0)]);
    assert_eq!(c.sys().unwrap().netns_mode, Some(NetnsMode::Exclusive));
    assert_eq!(c.sys().unwrap().netns_mode, Some(NetnsMode::Shared));
    assert_eq!(c.sys().unwrap().netns_mode, None);
    assert_eq!(c.sys().unwrap().netns_mode, None); // a bare ACK
    // A doit asks for the ACK that ends its reply.
    let sent = &c.transport().sent()[0];
    assert_eq!(u16::from_ne_bytes([sent[6], sent[7]]), 0x5);
}

// ---- errors ----

#[test]
fn done_with_an_errno_is_a_kernel_error() {
    let reply = [
        dump_message(cmd::RES_MR_GET, &qp_table(vec![])),
        done(EPERM),
    ]
    .concat();
    let err = objects(reply, 0, ResourceType::Mr).unwrap_err();
    assert!(matches!(
        err,
        NlError::Kernel {
            op: "RES_MR_GET",
            errno: EPERM
        }
    ));
    assert!(err.is_permission());
    assert!(!err.is_no_device());
    let c: CollectError = err.into();
    assert!(matches!(c, CollectError::PermissionDenied { .. }), "{c}");
}

#[test]
fn nlmsg_error_is_a_kernel_error() {
    let err = objects(error(EINVAL), 4, ResourceType::Cq).unwrap_err();
    assert!(matches!(
        err,
        NlError::Kernel {
            op: "RES_CQ_GET",
            errno: EINVAL
        }
    ));
    assert!(err.is_no_device());
    let err = client(vec![error(EINVAL)]).summaries().unwrap_err();
    assert!(!err.is_no_device());
    let err = client(vec![error(ENOENT)]).ports(3).unwrap_err();
    assert!(err.is_no_device());
    assert_eq!(
        err.to_string(),
        "the kernel refused PORT_GET: No such file or directory"
    );
}

#[test]
fn unclassifiable_messages_are_malformed() {
    let overrun = message(consts::NLMSG_OVERRUN, 0, 0, &[]);
    let foreign = message((4 << 10) + 1, 0, 0, &[]);
    for reply in [overrun, foreign] {
        let err = client(vec![reply]).devices().unwrap_err();
        assert!(matches!(err, NlError::Malformed { op: "GET", .. }), "{err}");
    }
    // NOOP is skipped.
    let reply = [message(consts::NLMSG_NOOP, 0, 0, &[]), done(0)].concat();
    assert!(client(vec![reply]).devices().unwrap().is_empty());
}

#[test]
fn garbage_inside_a_nest_is_malformed() {
    let broken = dev(0, "m").nest(
        attr::RES_QP,
        Attrs::new().nest(
            attr::RES_QP_ENTRY,
            Attrs::new().raw(&[200, 0, 21, 0, 1, 0, 0, 0]),
        ),
    );
    let err = objects(dump_reply(cmd::RES_QP_GET, &[broken]), 0, ResourceType::Qp).unwrap_err();
    assert!(
        matches!(
            err,
            NlError::Malformed {
                op: "RES_QP_GET",
                ..
            }
        ),
        "{err}"
    );
    let c: CollectError = err.into();
    assert!(matches!(c, CollectError::Malformed { .. }));
    let short_u32 = dev(0, "m").nest(
        attr::RES_QP,
        Attrs::new().nest(attr::RES_QP_ENTRY, Attrs::new().bytes(attr::RES_LQPN, &[1])),
    );
    assert!(
        objects(
            dump_reply(cmd::RES_QP_GET, &[short_u32]),
            0,
            ResourceType::Qp
        )
        .is_err()
    );
}

// ---- exchanges that end early ----

#[test]
fn a_reply_that_stops_is_a_timeout_and_leaves_nothing_behind() {
    let partial = dump_message(cmd::RES_QP_GET, &qp_table(vec![qp_entry(1, QpState::Rts)]));
    let next = dump_reply(
        cmd::RES_QP_GET,
        &[qp_table(vec![qp_entry(2, QpState::Rts)])],
    );
    let mut c = client(vec![partial, next]);
    let mut ids = Vec::new();
    let err = c
        .dump_objects(0, ResourceType::Qp, &mut |o| ids.push(o.id()))
        .unwrap_err();
    assert!(matches!(
        err,
        NlError::Timeout {
            op: "RES_QP_GET",
            ..
        }
    ));
    let c2: CollectError = err.into();
    assert!(matches!(c2, CollectError::Timeout { .. }));
    ids.clear();
    c.dump_objects(0, ResourceType::Qp, &mut |o| ids.push(o.id()))
        .unwrap();
    assert_eq!(ids, [Some(2)]);
}

#[test]
fn an_abandoned_reply_does_not_leak_into_the_next_request() {
    // The first reply breaks in its first datagram; its second datagram must
    // not be read as the answer to the next request.
    let broken = message(consts::nldev_type(cmd::GET), 2, 0, &[1, 0]);
    let stale = dump_reply(cmd::GET, &[dev(9, "stale")]);
    let fresh = dump_reply(cmd::GET, &[dev(1, "fresh")]);
    let mut c = NldevClient::new(ReplayTransport::from_datagrams([
        vec![broken, stale],
        vec![fresh],
    ]));
    assert!(matches!(c.devices(), Err(NlError::Malformed { .. })));
    let devices = c.devices().unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0].name, "fresh");
}

// ---- the real socket on this host ----

#[test]
fn opening_the_socket_here_fails_cleanly_or_works() {
    match NldevClient::open(Duration::from_millis(200)) {
        Ok(mut c) => {
            // A kernel with RDMA: the device list must come back (maybe empty).
            c.devices().unwrap();
        }
        Err(NlError::Unsupported(e)) => {
            let c: CollectError = NlError::Unsupported(e).into();
            assert!(matches!(c, CollectError::NoRdmaSupport(_)));
        }
        Err(other) => panic!("unexpected error opening NETLINK_RDMA: {other}"),
    }
}
