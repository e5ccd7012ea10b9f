//! `restop export`: the session's ticks rendered and handed to either the
//! HTTP server (from a collection thread) or the textfile writer. Messages go
//! to stderr; metrics never do.

use super::collector::{Collector, Latest};
use super::exposition::Format;
use super::health::Health;
use super::http::{Access, Limits, Server};
use super::textfile::{Replace, write_replacing};
use super::top_owners::OwnerOptions;
use super::web_config;
use crate::model::history::HistoryConfig;
use crate::session::{Flow, Session, Stop, stop_on_signals};
use crate::settings::listen::is_loopback;
use crate::settings::{ExportSettings, ExportTarget};
use anyhow::{Context, Result};
use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the exporter on `session` until a termination signal (or once, with
/// `--textfile --once`): the export group says where the metrics go, the
/// trends group how ERROR-QP ages and leak suspects are judged. Returns the
/// exit status: 0, or 1 when a `--once` collection failed.
pub fn run(export: &ExportSettings, trends: &HistoryConfig, session: Session) -> Result<u8> {
    let collector = Collector::new(session.kind(), export.top.into())
        .with_history(trends.clone())
        .with_owners(OwnerOptions {
            group: export.owners_by,
            pid_label: export.pid_label,
        });
    match &export.target {
        ExportTarget::Textfile { path, once, force } => {
            // --force takes over a foreign file once: later writes replace
            // restop's own file, and a foreign one put there since is refused.
            let first = if *force {
                Replace::AnyFile
            } else {
                Replace::OwnFile
            };
            if *once {
                textfile_once(path, first, session, collector)
            } else {
                textfile_loop(path, first, session, collector)
            }
        }
        ExportTarget::Http(listen) => {
            let access = match export.web_config.as_deref().map(web_config::load) {
                None => Access::default(),
                Some(Ok(loaded)) => Access::from_web_config(loaded),
                // A bad web config is a usage error, as a bad config file is.
                Some(Err(error)) => {
                    tell(&error.to_string());
                    return Ok(EXIT_USAGE);
                }
            };
            serve(*listen, access, session, collector)
        }
    }
}

/// The exit status of a file that cannot be used (main.rs's usage status).
const EXIT_USAGE: u8 = 2;

fn serve(
    listen: SocketAddr,
    access: Access,
    mut session: Session,
    mut collector: Collector,
) -> Result<u8> {
    let scheme = if access.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let (tls, auth) = (access.tls.is_some(), access.auth.is_some());
    // Bind before collecting: a taken port is reported at once.
    let server = Server::bind(listen, Limits::default())?.with_access(access);
    let addr = server.local_addr();
    if auth && !tls {
        tell("basic authentication without TLS: passwords cross the network in clear text");
    }
    if !is_loopback(&addr) && !auth && !tls {
        tell(&format!(
            "listening on {addr}: other hosts can read these metrics (process names, users, \
             containers); restrict access with a firewall or --web.config.file (TLS, \
             passwords)"
        ));
    }
    let interval = session.interval();
    let mut status = StatusReport::default();
    // The first scrape already finds a collection.
    let first = collector.render(session.next_tick());
    status.update(collector.health());
    let latest = Arc::new(Latest::new(first));
    tell(&format!(
        "serving {scheme}://{addr}/metrics, collecting every {}",
        human(interval)
    ));

    let stop = Stop::new();
    // As a container's PID 1 no signal has a default action: SIGTERM must be
    // handled. The listener is woken so that it sees the stop at once.
    let _signals = stop_on_signals(Arc::clone(&stop), move || {
        super::http::server::wake(addr);
    })?;
    let sink = Arc::clone(&latest);
    let session_stop = Arc::clone(&stop);
    session.resume_at(Instant::now() + interval);
    std::thread::Builder::new()
        .name("restop-collect".into())
        .spawn(move || {
            session.run(&mut &*session_stop, &mut |tick| {
                sink.set(collector.render(tick));
                status.update(collector.health());
                Flow::Continue
            });
        })
        .context("starting the collection thread")?;
    server.serve(&latest, &stop);
    Ok(0)
}

fn textfile_once(
    path: &Path,
    replace: Replace,
    mut session: Session,
    mut collector: Collector,
) -> Result<u8> {
    let exposition = collector.render(session.next_tick());
    write_replacing(path, exposition.body(Format::Text), replace)
        .with_context(|| format!("writing {}", path.display()))?;
    let health = collector.health();
    if health.up && !health.without_rdma() {
        return Ok(0);
    }
    // A host without RDMA has nothing to monitor: the file says so, and that is no failure.
    if health.without_rdma() {
        tell(&format!(
            "no RDMA on this host ({} written with restop_rdma_present 0): {}",
            path.display(),
            health.last_error.as_deref().unwrap_or("no RDMA device")
        ));
        return Ok(0);
    }
    tell(&format!(
        "collection failed ({} written with restop_up 0): {}",
        path.display(),
        health.last_error.as_deref().unwrap_or("unknown error")
    ));
    Ok(1)
}

fn textfile_loop(
    path: &Path,
    first: Replace,
    mut session: Session,
    mut collector: Collector,
) -> Result<u8> {
    let stop = Stop::new();
    let _signals = stop_on_signals(Arc::clone(&stop), || {})?;
    let mut status = StatusReport::default();
    let mut first_error: Option<anyhow::Error> = None;
    let mut written = 0u64;
    let mut failing = false;
    tell(&format!(
        "writing {} every {}",
        path.display(),
        human(session.interval())
    ));
    session.run(&mut &*stop, &mut |tick| {
        let exposition = collector.render(tick);
        status.update(collector.health());
        let replace = if written == 0 {
            first
        } else {
            Replace::OwnFile
        };
        match write_replacing(path, exposition.body(Format::Text), replace) {
            Ok(()) => {
                if failing {
                    tell(&format!("writing {} works again", path.display()));
                }
                failing = false;
                written += 1;
                Flow::Continue
            }
            // The first write failing is a setup problem (no such directory,
            // no permission): stop and say so. Later ones are reported once
            // and retried.
            Err(err) if written == 0 => {
                first_error =
                    Some(anyhow::Error::new(err).context(format!("writing {}", path.display())));
                Flow::Stop
            }
            Err(err) => {
                if !failing {
                    tell(&format!("writing {}: {err}; retrying", path.display()));
                }
                failing = true;
                Flow::Continue
            }
        }
    });
    // Ends the signal thread too.
    stop.stop();
    match first_error {
        Some(err) => Err(err),
        None => Ok(0),
    }
}

/// Tells stderr when collection starts failing or works again — once per
/// change, not at every interval.
#[derive(Default)]
struct StatusReport {
    last_up: Option<bool>,
}

impl StatusReport {
    fn update(&mut self, health: &Health) {
        if self.last_up == Some(health.up) {
            return;
        }
        match (&self.last_up, health.up) {
            (_, false) => tell(&format!(
                "collection failed, exporting restop_up 0 and retrying: {}",
                health.last_error.as_deref().unwrap_or("unknown error")
            )),
            (Some(false), true) => tell("collection works again"),
            _ => {}
        }
        self.last_up = Some(health.up);
    }
}

fn human(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

fn tell(message: &str) {
    let _ = writeln!(std::io::stderr(), "restop: {message}");
}
