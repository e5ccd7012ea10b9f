use super::*;
use crate::interactive::app::{App, AppConfig};
use crate::interactive::signal::SignalOutcome;
use crate::model::SourceKind;
use crate::model::consumers::Consumer;
use crate::model::{ProcessInfo, ProcessKey};

fn consumer(owner: OwnerKey) -> Consumer {
    let process = match &owner {
        OwnerKey::Process(key) => Some(ProcessInfo {
            comm: "ib_write_bw".to_string(),
            cmdline: vec![
                "ib_write_bw".to_string(),
                "-d".to_string(),
                "mlx5_0".to_string(),
            ],
            ..ProcessInfo::unknown(*key)
        }),
        _ => None,
    };
    Consumer {
        owner,
        name: "ib_write_bw".to_string(),
        process,
        counts: Default::default(),
        mr_bytes: 0,
        qp_states: Default::default(),
        devices: Vec::new(),
    }
}

fn dialog() -> SignalScreen {
    let owner = OwnerKey::Process(ProcessKey {
        pid: 4242,
        start_time: 777,
    });
    SignalScreen::for_consumer(&consumer(owner)).unwrap()
}

#[test]
fn the_dialog_names_the_process_and_starts_on_term() {
    let d = dialog();
    assert_eq!((d.pid, d.start_time), (4242, 777));
    assert_eq!(d.comm, "ib_write_bw");
    assert_eq!(d.cmdline, "ib_write_bw -d mlx5_0");
    assert_eq!(d.signal(), SignalKind::Term);
}

fn app() -> App {
    App::new(AppConfig::default(), SourceKind::Live)
}

#[test]
fn enter_asks_for_the_selected_signal_keyed_by_pid_and_start_time() {
    let app = app();
    let ctx = app.ctx();
    let mut d = dialog();
    assert!(matches!(d.on_action(Action::Down, &ctx), Outcome::Handled));
    assert_eq!(d.signal(), SignalKind::Int);
    d.on_action(Action::End, &ctx);
    assert_eq!(d.signal(), SignalKind::Kill);
    d.on_action(Action::Down, &ctx);
    assert_eq!(d.signal(), SignalKind::Kill, "stays on the last");
    match d.on_action(Action::Enter, &ctx) {
        Outcome::Signal(request) => assert_eq!(
            request,
            SignalRequest {
                pid: 4242,
                start_time: 777,
                signal: SignalKind::Kill
            }
        ),
        other => panic!("Enter gave {other:?}"),
    }
}

#[test]
fn esc_q_and_the_key_again_cancel() {
    let app = app();
    let ctx = app.ctx();
    for action in [Action::Back, Action::Quit, Action::Signal] {
        let outcome = dialog().on_action(action, &ctx);
        assert!(matches!(outcome, Outcome::Close), "{action:?}: {outcome:?}");
    }
    // Anything else is swallowed: the dialog is modal.
    let outcome = dialog().on_action(Action::Freeze, &ctx);
    assert!(matches!(outcome, Outcome::Handled), "{outcome:?}");
}

#[test]
fn kernel_owners_unattributed_and_unknown_start_times_get_no_dialog() {
    let unknown = OwnerKey::Process(ProcessKey {
        pid: 9,
        start_time: 0,
    });
    for owner in [
        OwnerKey::Kernel("nvme_rdma".to_string()),
        OwnerKey::Unattributed,
        unknown,
    ] {
        let c = consumer(owner.clone());
        assert!(SignalScreen::for_consumer(&c).is_none(), "{owner:?}");
        assert!(refusal(&c).is_some(), "{owner:?}");
    }
}

#[test]
fn outcomes_say_what_happened() {
    let r = dialog().request();
    assert_eq!(SignalOutcome::Sent.message(&r), "SIGTERM sent to pid 4242");
    assert!(SignalOutcome::Reused.message(&r).contains("nothing sent"));
    assert!(SignalOutcome::Gone.message(&r).contains("gone"));
    assert!(
        SignalOutcome::NotPermitted
            .message(&r)
            .contains("not permitted (run as the process's user or root)")
    );
}
