//! `STAT_GET` against the real kernel's replies (Debian 6.1, Soft-RoCE,
//! capture 15: `rdma -j statistic show`), and random counter tables.

use proptest::prelude::*;
use restop::nldev::consts::{attr as s, cmd};
use restop::nldev::consts::{attr, nldev_type};
use restop::nldev::fixture::{Attrs, doit_reply, error, message};
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::stat::parse_port_stats;
use restop::nldev::{NldevClient, ReplayTransport};
use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/netlink")
        .join(name)
}

fn client(replies: Vec<Vec<u8>>) -> NldevClient<ReplayTransport> {
    NldevClient::new(ReplayTransport::from_datagrams(
        replies.iter().map(|r| split_messages(r)),
    ))
}

#[test]
fn the_captured_port_counters_are_what_rdma_printed() {
    let rx = std::fs::read(fixture("15-statistic-show-json.rx.bin")).unwrap();
    let replies = split_replies(&rx);
    assert_eq!(replies.len(), 3, "GET dump then one STAT_GET per device");
    let printed: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixture("15-statistic-show-json.out")).unwrap(),
    )
    .unwrap();
    let mut c = client(replies[1..].to_vec());
    for (device, row) in printed.iter().enumerate() {
        let stats = c.port_stats(device as u32, 1).unwrap();
        assert_eq!((stats.device, stats.port), (device as u32, 1));
        let row = row.as_object().unwrap();
        let expected: Vec<(String, u64)> = row
            .iter()
            .filter(|(k, _)| *k != "ifname" && *k != "port")
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        let mut got = stats.counters.clone();
        let mut want = expected;
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", row["ifname"]);
    }
    // rxe reports its 15 counters, in the driver's order.
    let first = client(replies[1..2].to_vec()).port_stats(0, 1).unwrap();
    assert_eq!(first.counters.len(), 15);
    assert_eq!(first.counters[0], ("sent_pkts".to_string(), 2_508_305));
}

#[test]
fn the_requests_are_read_only_stat_get() {
    let rx = std::fs::read(fixture("15-statistic-show-json.rx.bin")).unwrap();
    let replies = split_replies(&rx);
    let mut c = client(replies[1..2].to_vec());
    c.port_stats(0, 1).unwrap();
    let sent = c.transport().sent();
    assert_eq!(sent.len(), 1);
    let t = u16::from_ne_bytes([sent[0][4], sent[0][5]]);
    assert_eq!(t, nldev_type(cmd::STAT_GET));
    // The same request iproute2 sent (sequence number aside).
    let tx = std::fs::read(fixture("15-statistic-show-json.tx.bin")).unwrap();
    let ours = &sent[0];
    let theirs = &tx[16..16 + ours.len()];
    assert_eq!(ours[..8], theirs[..8]);
    assert_eq!(ours[16..], theirs[16..]);
}

#[test]
fn a_kernel_without_stat_get_is_told_apart_from_a_gone_device() {
    for errno in [libc_eopnotsupp(), 22] {
        let mut c = client(vec![error(errno)]);
        let e = c.port_stats(0, 1).unwrap_err();
        assert!(e.is_stat_unsupported(), "{e}");
    }
    let mut c = client(vec![error(19)]);
    let e = c.port_stats(0, 1).unwrap_err();
    assert!(!e.is_stat_unsupported());
    assert!(e.is_no_device());
}

fn libc_eopnotsupp() -> i32 {
    95
}

#[test]
fn an_empty_qp_counter_dump_is_no_counters() {
    let done = restop::nldev::fixture::done(0);
    let mut c = client(vec![done]);
    assert!(c.qp_counters(0).unwrap().is_empty());
}

fn table(entries: &[(String, u64)]) -> Attrs {
    let mut t = Attrs::new();
    for (name, value) in entries {
        t = t.nest_flagged(
            s::STAT_HWCOUNTER_ENTRY,
            Attrs::new()
                .string(s::STAT_HWCOUNTER_ENTRY_NAME, name)
                .u64(s::STAT_HWCOUNTER_ENTRY_VALUE, *value),
        );
    }
    t
}

proptest! {
    #[test]
    fn any_well_formed_table_round_trips(
        entries in proptest::collection::vec(("[a-z_]{1,24}", any::<u64>()), 0..40)
    ) {
        let msg = Attrs::new()
            .u32(attr::DEV_INDEX, 1)
            .u32(attr::PORT_INDEX, 2)
            .nest_flagged(s::STAT_HWCOUNTERS, table(&entries));
        let stats = parse_port_stats(msg.as_bytes(), 0, 0).unwrap();
        prop_assert_eq!(stats.counters, entries);
    }

    #[test]
    fn damaged_tables_never_panic(
        entries in proptest::collection::vec(("[a-z_]{1,12}", any::<u64>()), 1..10),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let msg = Attrs::new()
            .u32(attr::PORT_INDEX, 1)
            .nest_flagged(s::STAT_HWCOUNTERS, table(&entries))
            .into_bytes();
        let mut damaged = msg.clone();
        let i = flip.index(damaged.len());
        damaged[i] = byte;
        let _ = parse_port_stats(&damaged, 0, 1);
        let _ = parse_port_stats(&msg[..cut.index(msg.len())], 0, 1);
        // Also through the client, as one doit reply.
        let reply = doit_reply(cmd::STAT_GET, &Attrs::new().raw(&damaged));
        let _ = client(vec![reply]).port_stats(0, 1);
        let raw = message(nldev_type(cmd::STAT_GET), 0, 0, &damaged);
        let _ = client(vec![raw]).port_stats(0, 1);
    }
}
