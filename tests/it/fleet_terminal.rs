//! The full-screen fleet view in a real terminal (tmux), over the real Prometheus of
//! `fleet_prometheus` (the same server and exporters: called from that test, not a second
//! fixture): the troubled hosts first, `/` filters, Enter opens a host with its Prometheus and
//! live exporter detail, Esc goes back, a killed exporter is marked down. Skipped where tmux is
//! missing.

use crate::tui_terminal::{Session, restop_under};
use std::time::{Duration, Instant};

/// The fleet view running in a tmux session.
pub struct FleetTerminal {
    session: Session,
}

impl FleetTerminal {
    /// Starts `restop fleet` on the Prometheus at `prom_port`, refreshing every `interval`.
    pub fn open(prom_port: u16, interval: &str) -> Option<FleetTerminal> {
        let session = Session::start(160, 50)?;
        let bin = env!("CARGO_BIN_EXE_restop");
        session.type_text(&format!(
            "{bin} fleet --prometheus http://127.0.0.1:{prom_port} --host-label node -d {interval} \
             --http-timeout 20s"
        ));
        session.send(&["Enter"]);
        session.wait_for("the fleet view's hosts table", |s| {
            s.contains("restop fleet") && s.contains("Hosts (20")
        });
        let shell: i32 = session.query("#{pane_pid}").parse().expect("pane pid");
        session
            .restop
            .set(Some(restop_under(shell).expect("restop under the shell")));
        Some(FleetTerminal { session })
    }

    /// The hosts table's rows as the screen shows them (status first).
    fn rows(screen: &str) -> Vec<String> {
        screen
            .lines()
            .skip_while(|l| !l.starts_with("STATUS"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    /// `troubled` are listed before every `ok` row.
    pub fn check_worst_first(&self, troubled: &[&str]) {
        let screen = self
            .session
            .wait_for("every troubled host before the healthy ones", |s| {
                let rows = Self::rows(s);
                let first_ok = rows.iter().position(|r| r.starts_with("ok "));
                first_ok.is_some_and(|ok| {
                    troubled
                        .iter()
                        .all(|name| rows[..ok].iter().any(|r| r.contains(name)))
                })
            });
        assert!(!screen.contains("panicked"), "{screen}");
    }

    /// `/` with `text` leaves only `host`; Esc clears the filter again.
    pub fn check_filter(&self, text: &str, host: &str) {
        self.session.send(&["/"]);
        self.session.type_text(text);
        self.session.send(&["Enter"]);
        self.session.wait_for("the filtered table", |s| {
            let rows = Self::rows(s);
            rows.len() == 1 && rows[0].contains(host)
        });
        self.session.send(&["Escape"]);
        self.session
            .wait_for("the whole table again", |s| Self::rows(s).len() == 20);
    }

    /// Enter on the first row opens its detail, from Prometheus and live from its exporter.
    pub fn check_enter_opens_the_host(&self) {
        self.session.send(&["Home"]);
        let host = Self::rows(&self.session.screen())
            .first()
            .and_then(|r| r.split_whitespace().nth(1).map(str::to_string))
            .expect("a first row");
        self.session.send(&["Enter"]);
        self.session
            .wait_for("the host's detail from Prometheus", |s| {
                s.contains(&format!("Host {host}"))
                    && s.contains("From Prometheus (read")
                    && s.contains("Devices (")
            });
        // The live part is under it: End scrolls to the page's end.
        self.session.send(&["End"]);
        self.session
            .wait_for("the host's detail live from its exporter", |s| {
                s.contains("Live from the exporter 127.0.0.1:")
                    && s.split("Live from the exporter")
                        .nth(1)
                        .is_some_and(|live| live.contains("Problems"))
            });
        self.session.send(&["Escape"]);
        self.session
            .wait_for("the hosts table again", |s| s.contains("Hosts (20"));
    }

    /// `host` shows as DOWN within `within`.
    pub fn check_down(&self, host: &str, within: Duration) {
        let start = Instant::now();
        let screen = self
            .session
            .wait_for("the killed exporter's host DOWN", |s| {
                Self::rows(s)
                    .iter()
                    .any(|r| r.starts_with("DOWN") && r.contains(host))
            });
        assert!(
            start.elapsed() <= within,
            "DOWN only after {:?}:\n{screen}",
            start.elapsed()
        );
    }

    /// `q` ends the view and gives the shell back.
    pub fn quit(self) {
        self.session.send(&["q"]);
        self.session.wait_for("the shell prompt", |s| {
            s.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| l.starts_with(crate::tui_terminal::PROMPT))
        });
        self.session.restop.set(None);
    }
}
