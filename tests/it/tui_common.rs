//! Shared by the TUI tests: a small hand-made host, an app fed with it, and
//! key helpers. Everything is fixed: no clock, no sleeps.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use restop::interactive::app::{App, AppConfig, Command, Event};
use restop::interactive::screens::alerts::AlertsScreen;
use restop::interactive::screens::error_qps::ErrorQpScreen;
use restop::interactive::widgets::table::ObjectTable;
use restop::model::{
    DetailScope, Device, Meta, Mr, Object, OwnerKey, Port, PortState, ProcessInfo, ProcessKey, Qp,
    QpState, QpType, ReportedOwner, ResourceType, Snapshot, SourceKind, Tally, Usage, UsageEntry,
    Warning, WarningKind,
};

/// Unix ms of the fixture's collection, and the "now" the tests use.
pub const COLLECTED_AT_MS: restop::model::UnixMs = restop::model::UnixMs(1_767_225_600_000);
pub const NOW_MS: restop::model::UnixMs = restop::model::UnixMs(COLLECTED_AT_MS.0 + 3_000);

pub fn process_key(pid: u32) -> ProcessKey {
    ProcessKey {
        pid,
        start_time: 1000 + u64::from(pid),
    }
}

pub fn owner(pid: u32) -> OwnerKey {
    OwnerKey::Process(process_key(pid))
}

fn process(pid: u32, comm: &str, cmdline: &[&str], user: &str) -> ProcessInfo {
    ProcessInfo {
        comm: comm.into(),
        cmdline: cmdline.iter().map(|s| s.to_string()).collect(),
        uid: Some(1000),
        user: Some(user.into()),
        ..ProcessInfo::unknown(process_key(pid))
    }
}

fn usage(entries: &[(ResourceType, u64, Option<u64>)]) -> Usage {
    let mut u = Usage::default();
    for (t, current, max) in entries {
        u.set(
            *t,
            UsageEntry {
                current: *current,
                max: *max,
                max_source: None,
            },
        );
    }
    u
}

fn device(index: u32, name: &str, pf: Option<&str>, netdev: &str, usage: Usage) -> Device {
    let mut d = Device::new(index, name);
    d.pf = pf.map(String::from);
    d.ports = vec![Port {
        index: 1,
        state: Some(PortState::Active),
        phys_state: None,
        netdev: Some(netdev.into()),
        netdev_index: None,
        counters: None,
    }];
    d.usage = usage;
    d
}

fn tally(
    owner: OwnerKey,
    device: u32,
    counts: &[(ResourceType, u64)],
    mr_bytes: u64,
    states: &[(QpState, u64)],
) -> Tally {
    let mut t = Tally::new(owner, device);
    for (ty, n) in counts {
        t.counts.add(*ty, *n);
    }
    t.mr_bytes = mr_bytes;
    for (s, n) in states {
        t.qp_states.add(*s, *n);
    }
    t
}

pub fn qp(device: u32, lqpn: u32, state: QpState, owner: OwnerKey) -> Object {
    Object::Qp(Qp {
        device,
        port: Some(1),
        lqpn,
        rqpn: Some(lqpn + 1000),
        qp_type: QpType::Rc,
        state,
        pdn: Some(3),
        sq_psn: None,
        rq_psn: None,
        reported: ReportedOwner::Missing,
        owner,
    })
}

fn mr(device: u32, mrn: u32, len: u64, owner: OwnerKey) -> Object {
    Object::Mr(Mr {
        device,
        mrn: Some(mrn),
        len,
        pdn: Some(3),
        keys: None,
        reported: ReportedOwner::Missing,
        owner,
    })
}

/// A host with a PF and its VF, two processes, a kernel owner and the
/// unattributed bucket. pid 100 (`train.py`, alice) holds the most QPs and one
/// ERR QP; nvme_rdma holds an SQE QP. The objects of pid 100 are only listed
/// when `details` asks for them, as a real source would.
pub fn fixture(details: &DetailScope) -> Snapshot {
    use ResourceType::*;
    let devices = vec![
        device(
            0,
            "mlx5_0",
            None,
            "ens1f0",
            usage(&[
                (Qp, 14, Some(1000)),
                (Cq, 6, Some(1000)),
                (Mr, 7, Some(1000)),
                (Pd, 4, Some(100)),
                (CmId, 2, None),
                (Ctx, 2, None),
                (Srq, 0, Some(100)),
            ]),
        ),
        device(
            1,
            "mlx5_1",
            Some("mlx5_0"),
            "ens1f0v0",
            usage(&[
                (Qp, 90, Some(100)),
                (Cq, 2, Some(100)),
                (Mr, 97, Some(100)),
                (Pd, 1, Some(10)),
                (CmId, 0, None),
                (Ctx, 1, None),
                (Srq, 0, Some(10)),
            ]),
        ),
    ];
    let processes = vec![
        process(
            100,
            "pt_main_thread",
            &["python3", "train.py", "--epochs", "3"],
            "alice",
        ),
        process(200, "ib_write_bw", &["ib_write_bw", "-d", "mlx5_1"], "bob"),
    ];
    let tallies = vec![
        tally(
            owner(100),
            0,
            &[(Qp, 10), (Cq, 4), (Mr, 5), (Pd, 1), (Ctx, 1), (CmId, 2)],
            5 << 30,
            &[(QpState::Rts, 9), (QpState::Err, 1)],
        ),
        tally(
            owner(200),
            1,
            &[(Qp, 3), (Cq, 2), (Mr, 1), (Pd, 1), (Ctx, 1)],
            64 << 20,
            &[(QpState::Rts, 3)],
        ),
        tally(
            OwnerKey::Kernel("nvme_rdma".into()),
            0,
            &[(Qp, 2), (Cq, 2), (Pd, 1)],
            0,
            &[(QpState::Rts, 1), (QpState::Sqe, 1)],
        ),
        tally(OwnerKey::Unattributed, 0, &[(Mr, 1)], 4096, &[]),
    ];
    let mut objects = vec![
        qp(0, 17, QpState::Err, owner(100)),
        qp(0, 40, QpState::Sqe, OwnerKey::Kernel("nvme_rdma".into())),
    ];
    let covers_100 = match details {
        DetailScope::All => true,
        DetailScope::Processes(pids) => pids.contains(&100),
        DetailScope::ErrorsOnly => false,
    };
    if covers_100 {
        for lqpn in 18..27 {
            objects.push(qp(0, lqpn, QpState::Rts, owner(100)));
        }
        for mrn in 1..=5 {
            objects.push(mr(0, mrn, 1 << 30, owner(100)));
        }
    }
    let mut meta = Meta::new(SourceKind::Demo, COLLECTED_AT_MS);
    meta.host = "gpu-test-01".into();
    meta.kernel = "6.8.0-test".into();
    meta.collect_us = 37_000;
    meta.hidden_fields = vec!["mr.rkey".into()];
    meta.warnings = vec![Warning::new(
        WarningKind::Permission,
        "MR keys hidden: needs CAP_NET_ADMIN",
    )];
    Snapshot {
        meta,
        devices,
        processes,
        tallies,
        objects,
    }
}

pub fn snapshot_event(snapshot: Snapshot, details: DetailScope) -> Event {
    Event::Snapshot {
        result: Ok(Box::new(snapshot)),
        details,
    }
}

/// An app of the given size that has received the fixture (errors-only detail).
pub fn app_sized(w: u16, h: u16) -> App {
    let mut app = App::new(AppConfig::default(), SourceKind::Demo);
    app.update(Event::Resize(w, h));
    app.update(Event::Tick(NOW_MS));
    let details = DetailScope::ErrorsOnly;
    app.update(snapshot_event(fixture(&details), details));
    app
}

pub fn app() -> App {
    app_sized(80, 24)
}

/// Feeds a fixture snapshot collected with whatever the app last asked for.
pub fn collect_as_asked(app: &mut App, details: DetailScope) -> Vec<Command> {
    app.update(snapshot_event(fixture(&details), details))
}

pub fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ch(c: char) -> Event {
    key(KeyCode::Char(c))
}

pub fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(ch(c));
    }
}

pub fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Event {
    Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })
}

pub fn click(column: u16, row: u16) -> Event {
    mouse(MouseEventKind::Down(MouseButton::Left), column, row)
}

/// Names of the consumer rows, in order.
pub fn names(app: &App) -> Vec<String> {
    app.main.consumers.iter().map(|c| c.name.clone()).collect()
}

pub fn selected_name(app: &App) -> Option<String> {
    app.selected_consumer().map(|c| c.name.clone())
}

/// The open ERROR-QP pane's table.
pub fn error_pane(app: &App) -> &ObjectTable {
    &app.find_screen::<ErrorQpScreen>()
        .expect("the ERROR-QP pane is open")
        .table
}

/// The open alerts panel's table.
pub fn alerts_pane(app: &App) -> &ObjectTable {
    &app.find_screen::<AlertsScreen>()
        .expect("the alerts panel is open")
        .table
}
