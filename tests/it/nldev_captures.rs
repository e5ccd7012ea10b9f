//! The parser against real kernel replies (Debian 6.1, Soft-RoCE), checked
//! field by field against what iproute2's `rdma -j` printed for the same
//! bytes. Captures live in `tests/fixtures/netlink/` (see its README).

use restop::model::{
    CmState, NetnsMode, Object, OwnerKey, PhysState, PortState, QpState, QpType, ReportedOwner,
    ResourceType,
};
use restop::nldev::consts::{NLM_F_ACK, NLMSG_DONE, NLMSG_ERROR};
use restop::nldev::fixture;
use restop::nldev::msg::messages;
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{NlError, NldevClient, ReplayTransport};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/netlink")
        .join(name)
}

/// The replies in `NN-*.rx.bin`, one per request iproute2 made.
fn replies(capture: &str) -> Vec<Vec<u8>> {
    let rx = std::fs::read(fixture_path(&format!("{capture}.rx.bin"))).unwrap();
    split_replies(&rx)
}

/// What `rdma` printed for the capture.
fn printed(capture: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture_path(&format!("{capture}.out"))).unwrap();
    match serde_json::from_str(&text).unwrap() {
        Value::Array(rows) => rows,
        other => panic!("expected an array, got {other}"),
    }
}

/// A client answering its requests with the chosen replies, in order, one
/// message per datagram as the kernel sent them.
fn client(replies: &[&[u8]]) -> NldevClient<ReplayTransport> {
    NldevClient::new(ReplayTransport::from_datagrams(
        replies.iter().map(|r| split_messages(r)),
    ))
}

fn dump(reply: &[u8], device: u32, t: ResourceType) -> Vec<Object> {
    let mut out = Vec::new();
    client(&[reply])
        .dump_objects(device, t, &mut |o| out.push(o))
        .unwrap();
    out
}

fn num(row: &Value, key: &str) -> Option<u64> {
    row.get(key).map(|v| v.as_u64().unwrap())
}

fn text<'a>(row: &'a Value, key: &str) -> Option<&'a str> {
    row.get(key).map(|v| v.as_str().unwrap())
}

/// iproute2 prints keys as hex without `0x`.
fn hex(row: &Value, key: &str) -> Option<u32> {
    text(row, key).map(|s| u32::from_str_radix(s, 16).unwrap())
}

/// `pid` for user objects, `comm` = module name for kernel ones.
fn assert_owner(reported: &ReportedOwner, row: &Value) {
    match reported {
        ReportedOwner::Task(pid) => assert_eq!(num(row, "pid"), Some(u64::from(*pid)), "{row}"),
        ReportedOwner::Kernel(name) => {
            assert_eq!(num(row, "pid"), None, "{row}");
            assert_eq!(text(row, "comm"), Some(name.as_str()), "{row}");
        }
        ReportedOwner::Missing => panic!("no owner parsed for {row}"),
    }
}

fn u32s(row: &Value, key: &str) -> Option<u32> {
    num(row, key).map(|n| u32::try_from(n).unwrap())
}

fn by_ifindex(rows: &[Value], ifindex: u64) -> Vec<&Value> {
    rows.iter()
        .filter(|r| num(r, "ifindex") == Some(ifindex))
        .collect()
}

#[test]
fn devices_match_rdma_dev_show() {
    let r = replies("02-dev-show-d-json");
    let devices = client(&[&r[0]]).devices().unwrap();
    let rows = printed("02-dev-show-d-json");
    assert_eq!(devices.len(), rows.len());
    for (d, row) in devices.iter().zip(&rows) {
        assert_eq!(Some(u64::from(d.index)), num(row, "ifindex"));
        assert_eq!(Some(d.name.as_str()), text(row, "ifname"));
        let guid = d.node_guid.unwrap();
        let printed_guid = format!(
            "{:04x}:{:04x}:{:04x}:{:04x}",
            guid >> 48,
            (guid >> 32) & 0xffff,
            (guid >> 16) & 0xffff,
            guid & 0xffff
        );
        assert_eq!(Some(printed_guid.as_str()), text(row, "node_guid"));
        assert_eq!(d.sys_image_guid, d.node_guid);
        assert_eq!(d.node_type, Some(1)); // "ca"
        assert_eq!(text(row, "node_type"), Some("ca"));
        assert_eq!(d.port_count, 1);
        assert_eq!(d.protocol.as_deref(), Some("roce"));
        assert_eq!(d.fw_version, None); // rxe has none
    }
    assert_eq!(devices[1].node_guid, Some(0xd00d_82ff_fe1d_d7fb));
}

#[test]
fn ports_match_rdma_link_show() {
    // iproute2 asks per port with a doit; the reply is the port message and an ACK.
    let r = replies("03-link-show-d-json");
    let rows = printed("03-link-show-d-json");
    for (device, row) in [(0u32, &rows[0]), (1, &rows[1])] {
        let ports = client(&[&r[1 + device as usize]]).ports(device).unwrap();
        assert_eq!(ports.len(), 1);
        let p = &ports[0];
        assert_eq!(u64::from(p.device), num(row, "ifindex").unwrap());
        assert_eq!(Some(p.port), u32s(row, "port"));
        assert_eq!(p.state, Some(PortState::Active));
        assert_eq!(p.state.map(|s| s.name()), text(row, "state"));
        assert_eq!(p.phys_state, Some(PhysState::LinkUp));
        assert_eq!(p.phys_state.map(|s| s.name()), text(row, "physical_state"));
        assert_eq!(p.netdev.as_deref(), text(row, "netdev"));
        assert_eq!(p.netdev_index, u32s(row, "netdev_index"));
    }
}

#[test]
fn summaries_match_rdma_res_show() {
    // iproute2 asked each device with a doit; the kernel answers a dump with
    // the same messages, so replay both data messages followed by DONE.
    let r = replies("05-res-show-d-json");
    let mut dump = Vec::new();
    for reply in &r[1..=2] {
        for m in messages(reply) {
            let m = m.unwrap();
            if m.header.kind != NLMSG_ERROR {
                dump.extend(fixture::message(m.header.kind, 2, 0, m.payload));
            }
        }
    }
    dump.extend(fixture::done(0));
    let summaries = client(&[&dump]).summaries().unwrap();
    let rows = printed("05-res-show-d-json");
    assert_eq!(summaries.len(), 2);
    for (s, row) in summaries.iter().zip(&rows) {
        assert_eq!(Some(u64::from(s.index)), num(row, "ifindex"));
        assert_eq!(Some(s.name.as_str()), text(row, "ifname"));
        for t in ResourceType::ALL {
            let e = s.usage.get(t).unwrap();
            assert_eq!(Some(e.current), num(row, t.name()), "{} {t}", s.name);
            assert_eq!((e.max, e.max_source), (None, None)); // a 6.1 kernel sends no max
        }
    }
    // A single doit reply (data + ACK) parses too.
    let one = client(&[&r[1]]).summaries().unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].usage.current(ResourceType::Qp), Some(25));
}

/// QPs as iproute2 prints them: rows without a port come from the
/// device-only dump, rows with a port from the device+port dump.
fn check_qps(capture: &str, device_dumps: &[(u32, usize, usize)]) {
    let r = replies(capture);
    let rows = printed(capture);
    let mut seen = 0;
    for &(device, whole, by_port) in device_dumps {
        let all = dump(&r[whole], device, ResourceType::Qp);
        let port1 = dump(&r[by_port], device, ResourceType::Qp);
        let dev_rows = by_ifindex(&rows, u64::from(device));
        // The device-only dump already holds every QP.
        let mut lqpns: Vec<u32> = all.iter().map(|o| o.id().unwrap()).collect();
        let mut printed_lqpns: Vec<u32> =
            dev_rows.iter().map(|r| u32s(r, "lqpn").unwrap()).collect();
        lqpns.sort();
        printed_lqpns.sort();
        assert_eq!(lqpns, printed_lqpns, "{capture} device {device}");
        for row in dev_rows {
            let source = if row.get("port").is_some() {
                &port1
            } else {
                &all
            };
            let qp = source
                .iter()
                .find_map(|o| match o {
                    Object::Qp(q) if Some(q.lqpn) == u32s(row, "lqpn") => Some(q),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("no QP for {row}"));
            assert_eq!(qp.device, device);
            assert_eq!(qp.port, u32s(row, "port"), "{row}");
            assert_eq!(qp.rqpn, u32s(row, "rqpn"), "{row}");
            assert_eq!(Some(qp.qp_type.name()), text(row, "type"), "{row}");
            assert_eq!(Some(qp.state.name()), text(row, "state"), "{row}");
            assert_eq!(qp.rq_psn, u32s(row, "rq-psn"), "{row}");
            assert_eq!(qp.sq_psn, u32s(row, "sq-psn"), "{row}");
            assert_eq!(qp.pdn, u32s(row, "pdn"), "{row}");
            assert_eq!(qp.owner, OwnerKey::Unattributed);
            assert_owner(&qp.reported, row);
            seen += 1;
        }
    }
    assert_eq!(seen, rows.len());
}

#[test]
fn qps_match_rdma_res_qp() {
    check_qps("06-res-qp-d-json", &[(0, 1, 2), (1, 3, 4)]);
    let r = replies("06-res-qp-d-json");
    let qps = dump(&r[1], 0, ResourceType::Qp);
    assert_eq!(qps.len(), 25);
    let states = |s: QpState| {
        qps.iter()
            .filter(|o| matches!(o, Object::Qp(q) if q.state == s))
            .count()
    };
    assert_eq!(states(QpState::Err), 2);
    assert_eq!(states(QpState::Reset), 1);
    let gsi = qps
        .iter()
        .find_map(|o| match o {
            Object::Qp(q) if q.lqpn == 1 => Some(q),
            _ => None,
        })
        .unwrap();
    assert_eq!(gsi.qp_type, QpType::Gsi);
    assert_eq!(gsi.reported, ReportedOwner::Kernel("ib_core".into()));
    assert_eq!(gsi.pdn, None);
}

#[test]
fn qps_of_one_device_match_rdma_res_qp_link() {
    check_qps("13-res-qp-rxe0-json", &[(0, 1, 2)]);
}

#[test]
fn kernel_errors_in_a_real_exchange() {
    // `rdma res show qp lqpn 1` tried doits the kernel refused (-EINVAL
    // without a port, -ENOENT for the port-less lookup), then fell back to dumps.
    let r = replies("14-res-qp-lqpn1-json");
    let mut c = client(&[&r[1], &r[3], &r[4]]);
    let err = c
        .dump_objects(0, ResourceType::Qp, &mut |_| {})
        .unwrap_err();
    assert!(matches!(
        err,
        NlError::Kernel {
            op: "RES_QP_GET",
            errno: 22
        }
    ));
    assert!(err.is_no_device());
    let err = c
        .dump_objects(0, ResourceType::Qp, &mut |_| {})
        .unwrap_err();
    assert_eq!(err.errno(), Some(2));
    // The next request still gets its own reply.
    let mut qps = Vec::new();
    c.dump_objects(0, ResourceType::Qp, &mut |o| qps.push(o))
        .unwrap();
    let row = &printed("14-res-qp-lqpn1-json")[0];
    let Some(Object::Qp(q)) = qps.iter().find(|o| o.id() == Some(1)) else {
        panic!("QP 1 missing")
    };
    assert_eq!(q.port, u32s(row, "port"));
    assert_eq!(Some(q.qp_type.name()), text(row, "type"));
    assert_eq!(Some(q.state.name()), text(row, "state"));
    assert_eq!(q.sq_psn, u32s(row, "sq-psn"));
    assert_owner(&q.reported, row);
}

#[test]
fn cqs_match_rdma_res_cq() {
    let r = replies("07-res-cq-d-json");
    let rows = printed("07-res-cq-d-json");
    let mut cqs = dump(&r[1], 0, ResourceType::Cq);
    cqs.extend(dump(&r[2], 1, ResourceType::Cq));
    assert_eq!(cqs.len(), rows.len());
    for (o, row) in cqs.iter().zip(&rows) {
        let Object::Cq(cq) = o else {
            panic!("not a CQ")
        };
        assert_eq!(Some(u64::from(cq.device)), num(row, "ifindex"));
        assert_eq!(cq.cqn, u32s(row, "cqn"));
        assert_eq!(Some(cq.cqe), u32s(row, "cqe"));
        assert_eq!(Some(cq.users), num(row, "users"));
        assert_eq!(cq.poll_ctx.map(|p| p.name()), text(row, "poll-ctx"));
        assert_eq!(
            cq.adaptive_moderation,
            row.get("adaptive-moderation").map(|v| v.as_bool().unwrap())
        );
        assert_eq!(cq.ctxn, u32s(row, "ctxn"));
        assert_owner(&cq.reported, row);
    }
}

#[test]
fn mrs_match_rdma_res_mr() {
    let r = replies("08-res-mr-d-json");
    let rows = printed("08-res-mr-d-json");
    let mut mrs = dump(&r[1], 0, ResourceType::Mr);
    mrs.extend(dump(&r[2], 1, ResourceType::Mr));
    assert_eq!(mrs.len(), rows.len());
    for (o, row) in mrs.iter().zip(&rows) {
        let Object::Mr(mr) = o else {
            panic!("not an MR")
        };
        assert_eq!(Some(u64::from(mr.device)), num(row, "ifindex"));
        assert_eq!(mr.mrn, u32s(row, "mrn"));
        assert_eq!(Some(mr.len), num(row, "mrlen"));
        assert_eq!(mr.pdn, u32s(row, "pdn"));
        // Captured as root: keys are present.
        let keys = mr.keys.unwrap();
        assert_eq!(Some(keys.rkey), hex(row, "rkey"));
        assert_eq!(Some(keys.lkey), hex(row, "lkey"));
        assert_owner(&mr.reported, row);
    }
}

#[test]
fn pds_match_rdma_res_pd() {
    let r = replies("09-res-pd-d-json");
    let rows = printed("09-res-pd-d-json");
    let mut pds = dump(&r[1], 0, ResourceType::Pd);
    pds.extend(dump(&r[2], 1, ResourceType::Pd));
    assert_eq!(pds.len(), rows.len());
    for (o, row) in pds.iter().zip(&rows) {
        let Object::Pd(pd) = o else {
            panic!("not a PD")
        };
        assert_eq!(Some(u64::from(pd.device)), num(row, "ifindex"));
        assert_eq!(pd.pdn, u32s(row, "pdn"));
        assert_eq!(Some(pd.users), num(row, "users"));
        assert_eq!(pd.ctxn, u32s(row, "ctxn"));
        assert_eq!(pd.local_dma_lkey, hex(row, "local_dma_lkey"));
        assert_owner(&pd.reported, row);
    }
}

#[test]
fn cm_ids_match_rdma_res_cm_id() {
    let r = replies("10-res-cm_id-d-json");
    // rxe0 has none: its dump is a bare DONE.
    assert!(dump(&r[1], 0, ResourceType::CmId).is_empty());
    let ids = dump(&r[3], 1, ResourceType::CmId);
    let rows = printed("10-res-cm_id-d-json");
    assert_eq!(ids.len(), rows.len());
    for (o, row) in ids.iter().zip(&rows) {
        let Object::CmId(id) = o else {
            panic!("not a CM_ID")
        };
        assert_eq!(Some(u64::from(id.device)), num(row, "ifindex"));
        assert_eq!(id.port, u32s(row, "port"));
        assert_eq!(id.cm_idn, u32s(row, "cm-idn"));
        assert_eq!(id.lqpn, u32s(row, "lqpn"));
        assert_eq!(id.qp_type.map(|t| t.name()), text(row, "qp-type"));
        assert_eq!(Some(id.state.name()), text(row, "state"));
        assert_eq!(id.ps, Some(0x0106)); // "TCP"
        assert_eq!(text(row, "ps"), Some("TCP"));
        assert_eq!(
            id.src.map(|a| a.to_string()).as_deref(),
            text(row, "src-addr")
        );
        assert_eq!(
            id.dst.map(|a| a.to_string()).as_deref(),
            text(row, "dst-addr")
        );
        assert_owner(&id.reported, row);
    }
    let Object::CmId(listener) = &ids[0] else {
        unreachable!()
    };
    assert_eq!(listener.state, CmState::Listen);
    assert_eq!(listener.src, Some("192.0.2.1:7174".parse().unwrap()));
}

#[test]
fn contexts_match_rdma_res_ctx() {
    let r = replies("11-res-ctx-d-json");
    let rows = printed("11-res-ctx-d-json");
    let mut ctxs = dump(&r[1], 0, ResourceType::Ctx);
    ctxs.extend(dump(&r[2], 1, ResourceType::Ctx));
    assert_eq!(ctxs.len(), rows.len());
    for (o, row) in ctxs.iter().zip(&rows) {
        let Object::Ctx(ctx) = o else {
            panic!("not a CTX")
        };
        assert_eq!(Some(u64::from(ctx.device)), num(row, "ifindex"));
        assert_eq!(ctx.ctxn, u32s(row, "ctxn"));
        assert_owner(&ctx.reported, row);
    }
}

#[test]
fn srqs_match_rdma_res_srq() {
    let r = replies("12-res-srq-d-json");
    let rows = printed("12-res-srq-d-json");
    let srqs = dump(&r[1], 0, ResourceType::Srq);
    assert!(dump(&r[2], 1, ResourceType::Srq).is_empty());
    assert_eq!(srqs.len(), rows.len());
    for (o, row) in srqs.iter().zip(&rows) {
        let Object::Srq(srq) = o else {
            panic!("not an SRQ")
        };
        assert_eq!(srq.srqn, u32s(row, "srqn"));
        assert_eq!(Some(srq.srq_type.name()), text(row, "type"));
        assert_eq!(srq.pdn, u32s(row, "pdn"));
        assert_eq!(srq.cqn, None);
        let printed_ranges: Vec<String> = row["lqpn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let ranges: Vec<String> = srq
            .qp_ranges
            .iter()
            .map(|&(lo, hi)| {
                if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo}-{hi}")
                }
            })
            .collect();
        assert_eq!(ranges, printed_ranges);
        // iproute2 prints the range as `comm` here; the pid is right.
        assert_eq!(srq.reported, ReportedOwner::Task(u32s(row, "pid").unwrap()));
    }
    let Object::Srq(last) = &srqs[2] else {
        unreachable!()
    };
    assert_eq!(last.qp_ranges, vec![(40, 40)]);
}

#[test]
fn sys_matches_rdma_system_show() {
    let r = replies("16-sys-show");
    let sys = client(&[&r[1]]).sys().unwrap();
    assert_eq!(sys.netns_mode, Some(NetnsMode::Shared));
    let out = std::fs::read_to_string(fixture_path("16-sys-show.out")).unwrap();
    assert!(out.contains("netns shared"));
}

/// A whole capture replays in order: the device list, then each device's dump.
#[test]
fn a_whole_capture_replays_request_by_request() {
    let rx = std::fs::read(fixture_path("07-res-cq-d-json.rx.bin")).unwrap();
    let mut c = NldevClient::new(ReplayTransport::from_capture(&rx));
    let devices = c.devices().unwrap();
    let mut counts = Vec::new();
    for d in &devices {
        let stats = c
            .dump_objects(d.index, ResourceType::Cq, &mut |_| {})
            .unwrap();
        counts.push((d.name.clone(), stats.entries));
    }
    // The summary of the same host: rxe0 cq 14, rxe1 cq 3.
    assert_eq!(counts, [("rxe0".to_string(), 14), ("rxe1".to_string(), 3)]);
    assert_eq!(c.transport().remaining(), 0);
}

/// restop's requests are iproute2's, minus the ACK flag on dumps and the
/// sequence number.
#[test]
fn requests_match_what_iproute2_sent() {
    let tx = std::fs::read(fixture_path("06-res-qp-d-json.tx.bin")).unwrap();
    let sent: Vec<Vec<u8>> = split_messages(&tx);
    let r = replies("06-res-qp-d-json");
    let mut c = client(&[&r[0], &r[1]]);
    c.devices().unwrap();
    c.dump_objects(0, ResourceType::Qp, &mut |_| {}).unwrap();
    let ours = c.transport().sent().to_vec();
    for (mine, theirs) in ours.iter().zip(&sent) {
        let normalise = |b: &[u8]| {
            let mut b = b.to_vec();
            let flags = u16::from_ne_bytes([b[6], b[7]]) & !NLM_F_ACK;
            b[6..8].copy_from_slice(&flags.to_ne_bytes());
            b[8..12].fill(0);
            b
        };
        assert_eq!(normalise(mine), normalise(theirs));
    }
    assert_eq!(ours.len(), 2);
}

/// The captures split into the replies their `.msgs.txt` lists.
#[test]
fn captures_split_at_done_and_error() {
    let counts: BTreeMap<&str, usize> = [
        ("02-dev-show-d-json", 3),
        ("06-res-qp-d-json", 5),
        ("10-res-cm_id-d-json", 5),
        ("14-res-qp-lqpn1-json", 5),
        ("16-sys-show", 2),
    ]
    .into();
    for (capture, n) in counts {
        let r = replies(capture);
        assert_eq!(r.len(), n, "{capture}");
        for reply in &r {
            let last = messages(reply).last().unwrap().unwrap();
            assert!(matches!(last.header.kind, NLMSG_DONE | NLMSG_ERROR));
        }
    }
}

fn gunzip(name: &str) -> Vec<u8> {
    use std::io::Read;
    let gz = std::fs::read(fixture_path(&format!("scale/{name}"))).unwrap();
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `counts.txt`: rows per `rdma -j res show <type>` output file.
fn scale_count(file: &str) -> usize {
    let text = std::fs::read_to_string(fixture_path("scale/counts.txt")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(file)?.trim().parse().ok())
        .unwrap()
}

#[test]
fn scale_20000_mrs_stream_through_the_sink() {
    // Replies: device list, rxe0's MRs, rxe1's (none).
    let r = split_replies(&gunzip("netlink-res-mr.rx.bin.gz"));
    let mut c = client(&[&r[1], &r[2]]);
    let (mut n, mut bytes) = (0usize, 0u64);
    let stats = c
        .dump_objects(0, ResourceType::Mr, &mut |o| {
            if let Object::Mr(mr) = o {
                n += 1;
                bytes += mr.len;
            }
        })
        .unwrap();
    let empty = c.dump_objects(1, ResourceType::Mr, &mut |_| {}).unwrap();
    assert_eq!(n + empty.entries, scale_count("mr-1.json"));
    assert_eq!(stats.entries, 20_000);
    assert!(stats.messages > 200, "{stats:?}"); // a table split over many messages
    assert_eq!(stats.bytes, r[1].len());
    assert_eq!((empty.messages, empty.entries), (0, 0));
    assert!(bytes > 0);
}

#[test]
fn scale_5002_qps_with_their_states() {
    // Replies: device list, rxe0, rxe0 port 1, rxe1, rxe1 port 1.
    let r = split_replies(&gunzip("netlink-res-qp.rx.bin.gz"));
    let mut states: BTreeMap<String, usize> = BTreeMap::new();
    let mut total = 0;
    for (device, reply) in [(0, &r[1]), (1, &r[3])] {
        let stats = client(&[reply])
            .dump_objects(device, ResourceType::Qp, &mut |o| {
                if let Object::Qp(q) = o {
                    *states.entry(q.state.name().to_string()).or_default() += 1;
                }
            })
            .unwrap();
        total += stats.entries;
    }
    assert_eq!(total, scale_count("qp-1.json"));
    let text = std::fs::read_to_string(fixture_path("scale/qp-states-count.txt")).unwrap();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        let n: usize = parts.next().unwrap().parse().unwrap();
        let state = parts.next().unwrap();
        assert_eq!(states.get(state), Some(&n), "{state}");
    }
}
