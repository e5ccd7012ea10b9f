//! A whole live collection over replayed kernel bytes, with a fake /proc
//! and /sys of the captured host: owner resolution, tallies, limits and
//! warnings, then both renderings of the result.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restop::collect::{LiveOptions, LiveSource};
use restop::model::DetailScope;
use restop::model::filter::Filter;
use restop::nldev::{NldevClient, ReplayTransport};
use restop::source::{CollectRequest, Source};
use std::sync::OnceLock;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../../tests/it/support/fake_proc.rs"]
mod fake_proc;

/// The captured host's processes, and a /sys where rxe0 is a software device.
struct FakeHost {
    proc: fake_proc::FakeProc,
    sys: tempfile::TempDir,
}

impl FakeHost {
    fn new() -> FakeHost {
        let sys = tempfile::tempdir().expect("temporary directory");
        let rxe0 = sys.path().join("devices/virtual/infiniband/rxe0");
        std::fs::create_dir_all(&rxe0).expect("fake sysfs");
        std::fs::create_dir_all(sys.path().join("class/infiniband")).expect("fake sysfs");
        std::os::unix::fs::symlink(
            "../../devices/virtual/infiniband/rxe0",
            sys.path().join("class/infiniband/rxe0"),
        )
        .expect("fake sysfs");
        FakeHost {
            proc: fake_proc::FakeProc::captured_host(),
            sys,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    static HOST: OnceLock<FakeHost> = OnceLock::new();
    let host = HOST.get_or_init(FakeHost::new);
    let options = LiveOptions {
        timeout: Duration::ZERO,
        proc_root: host.proc.root().to_path_buf(),
        sys_root: host.sys.path().to_path_buf(),
        verbs: false,
        own_pid: 1,
        ..LiveOptions::default()
    };
    let client = NldevClient::new(ReplayTransport::from_capture(data));
    let mut source = LiveSource::with_client(client, options);
    let requests = [
        CollectRequest::default(),
        CollectRequest {
            details: DetailScope::All,
            ..CollectRequest::default()
        },
    ];
    for request in &requests {
        if let Ok(snapshot) = source.collect(request) {
            let _ = restop::output::render_json(&snapshot, &Filter::default());
            let _ = restop::output::render_once(
                &snapshot,
                &Filter::default(),
                &restop::output::OnceOptions::default(),
            );
        }
    }
});
