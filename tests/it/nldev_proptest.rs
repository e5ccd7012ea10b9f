//! No input makes the nldev parser panic: random bytes, random attribute
//! trees in valid framing, and real kernel replies with bytes flipped,
//! dropped, inserted or cut. Any outcome but a panic (or a hang) is fine.

use proptest::prelude::*;
use restop::model::{Object, QpState, ResourceType};
use restop::nldev::consts::{attr, cmd, nldev_type};
use restop::nldev::fixture::{Attrs, done, dump_message, message};
use restop::nldev::replay::{split_messages, split_replies};
use restop::nldev::{NldevClient, ReplayTransport, attr as tlv, msg};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Every reply of every capture in the fixtures.
fn captured_replies() -> &'static [Vec<u8>] {
    static REPLIES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    REPLIES.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/netlink");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".rx.bin"))
            .collect();
        names.sort();
        names
            .iter()
            .flat_map(|p| split_replies(&std::fs::read(p).unwrap()))
            .collect()
    })
}

/// Runs every client call on the same reply bytes, given as `datagrams`.
fn exercise_all(datagrams: &[Vec<u8>]) {
    let client = || NldevClient::new(ReplayTransport::from_datagrams([datagrams.to_vec()]));
    let _ = client().devices();
    let _ = client().ports(0);
    let _ = client().summaries();
    let _ = client().sys();
    for t in ResourceType::ALL {
        let _ = client().dump_objects(0, t, &mut |o: Object| {
            let _ = (o.id(), o.dedup_key(), o.device());
        });
    }
    let whole = datagrams.concat();
    for reply in split_replies(&whole) {
        let _ = split_messages(&reply);
    }
    for m in msg::messages(&whole).flatten() {
        let _ = m.reply();
        for a in tlv::attrs(m.payload).flatten() {
            let _ = (a.u8(), a.u32(), a.u64(), a.string());
            let _ = a.nested().count();
        }
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        value: u8,
    },
    Cut {
        at: usize,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Remove {
        at: usize,
        len: usize,
    },
    /// Overwrite a 16-bit length-sized field: the most productive fault.
    Word {
        at: usize,
        value: u16,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::Flip { at, value }),
        any::<usize>().prop_map(|at| Mutation::Cut { at }),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..12))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Remove { at, len }),
        (any::<usize>(), any::<u16>()).prop_map(|(at, value)| Mutation::Word { at, value }),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    match m {
        Mutation::Flip { at, value } => bytes[at % n] ^= value | 1,
        Mutation::Cut { at } => bytes.truncate(at % n),
        Mutation::Insert { at, bytes: b } => {
            let at = at % n;
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Remove { at, len } => {
            let at = at % n;
            let end = (at + len).min(n);
            bytes.drain(at..end);
        }
        Mutation::Word { at, value } => {
            let at = (at % n) & !1;
            if at + 2 <= n {
                bytes[at..at + 2].copy_from_slice(&value.to_ne_bytes());
            }
        }
    }
}

/// Random attribute trees: known and unknown numbers, any payload, nests
/// with and without the flag.
fn attr_tree() -> impl Strategy<Value = Attrs> {
    let kind = prop_oneof![0u16..120, any::<u16>()];
    let leaf = (kind.clone(), prop::collection::vec(any::<u8>(), 0..20))
        .prop_map(|(k, p)| Attrs::new().bytes(k, &p));
    leaf.prop_recursive(4, 64, 6, move |inner| {
        (
            kind.clone(),
            any::<bool>(),
            prop::collection::vec(inner, 0..6),
        )
            .prop_map(|(k, flagged, children)| {
                let body = children
                    .into_iter()
                    .fold(Attrs::new(), |acc, c| acc.raw(c.as_bytes()));
                if flagged {
                    Attrs::new().nest_flagged(k & 0x3fff, body)
                } else {
                    Attrs::new().nest(k, body)
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        exercise_all(&[bytes]);
    }

    #[test]
    fn random_bytes_after_a_valid_header_never_panic(
        body in prop::collection::vec(any::<u8>(), 0..400),
        op in 0u16..32,
        declared in any::<u32>(),
        use_declared in any::<bool>(),
    ) {
        let mut m = message(nldev_type(op), 2, 0, &body);
        if use_declared {
            m[0..4].copy_from_slice(&declared.to_ne_bytes());
        }
        exercise_all(&[m, done(0)]);
    }

    #[test]
    fn random_attribute_trees_never_panic(
        trees in prop::collection::vec(attr_tree(), 0..4),
        table in prop::sample::select(vec![
            attr::RES_QP, attr::RES_CQ, attr::RES_MR, attr::RES_PD,
            attr::RES_CM_ID, attr::RES_CTX, attr::RES_SRQ, attr::RES_SUMMARY,
        ]),
    ) {
        // Put the random trees where the parser looks: inside a table of entries.
        let entries = trees.iter().fold(Attrs::new(), |acc, t| acc.nest(table + 1, t.clone()));
        let msg = Attrs::new().u32(attr::DEV_INDEX, 0).nest(table, entries);
        let top = trees.iter().fold(Attrs::new(), |acc, t| acc.raw(t.as_bytes()));
        exercise_all(&[dump_message(cmd::RES_QP_GET, &msg), dump_message(cmd::GET, &top), done(0)]);
    }

}

proptest! {
    // Real replies are the richest seeds: give them more cases.
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn mutated_captures_never_panic(
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
        split in any::<prop::sample::Index>(),
    ) {
        let replies = captured_replies();
        let mut bytes = replies[pick.index(replies.len())].clone();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        // Also cut the reply into two datagrams at a random point.
        let at = split.index(bytes.len() + 1);
        exercise_all(&[bytes[..at].to_vec(), bytes[at..].to_vec()]);
    }

    /// Well-formed QP entries come back with the numbers that went in.
    #[test]
    fn well_formed_qps_round_trip(
        qps in prop::collection::vec((any::<u32>(), 0u8..8, any::<Option<u32>>(), any::<bool>()), 0..40),
        per_message in 1usize..8,
    ) {
        let entries: Vec<Attrs> = qps.iter().map(|&(lqpn, state, pid, pad)| {
            let e = Attrs::new().u32(attr::RES_LQPN, lqpn);
            let e = if pad { e.pad() } else { e };
            e.owner(pid, Some("ib_core")).u8(attr::RES_TYPE, 2).u8(attr::RES_STATE, state)
        }).collect();
        let mut reply = Vec::new();
        for chunk in entries.chunks(per_message) {
            let table = chunk.iter().fold(Attrs::new(), |acc, e| acc.nest(attr::RES_QP_ENTRY, e.clone()));
            reply.extend(dump_message(cmd::RES_QP_GET, &Attrs::new().u32(attr::DEV_INDEX, 1).nest(attr::RES_QP, table)));
        }
        reply.extend(done(0));
        let mut got = Vec::new();
        let stats = NldevClient::new(ReplayTransport::new([reply]))
            .dump_objects(1, ResourceType::Qp, &mut |o| if let Object::Qp(q) = o { got.push((q.lqpn, q.state)) })
            .unwrap();
        let want: Vec<_> = qps.iter().map(|&(l, s, _, _)| (l, QpState::from_raw(s))).collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(stats.entries, qps.len());
    }
}
