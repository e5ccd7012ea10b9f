//! `restop export`: the collection thread plus either the HTTP server or the
//! textfile writer. Messages go to stderr; metrics never do.

use super::args::ExportArgs;
use super::collector::{Collector, Latest, Stop};
use super::exposition::Format;
use super::health::Health;
use super::http::{Limits, Server};
use super::listen::is_loopback;
use super::textfile::write_atomically;
use crate::settings::Settings;
use crate::source::Source;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the exporter until killed (or once, with `--textfile --once`) on
/// the source the session opened. Returns the exit status: 0, or 1 when a
/// `--once` collection failed.
pub fn run(settings: &Settings, source: Box<dyn Source>) -> Result<u8> {
    let Some(args) = &settings.export else {
        anyhow::bail!("the exporter runs only as `restop export`");
    };
    let interval = settings.source.interval;
    let collector = Collector::new(source, args.top.into())
        .with_history(settings.history.clone())
        .with_owners(args.owner_options());
    match &args.textfile {
        Some(path) if args.once => textfile_once(path, collector),
        Some(path) => textfile_loop(path, collector, interval),
        None => serve(args, collector, interval),
    }
}

fn serve(args: &ExportArgs, mut collector: Collector, interval: Duration) -> Result<u8> {
    // Bind before collecting: a taken port is reported at once.
    let server = Server::bind(args.listen_addr(), Limits::default())?;
    let addr = server.local_addr();
    if !is_loopback(&addr) {
        tell(&format!(
            "listening on {addr}: other hosts can read these metrics (process names, users, \
             containers); restrict access with a firewall"
        ));
    }
    let mut status = StatusReport::default();
    // The first scrape already finds a collection.
    let first = collector.collect();
    status.update(collector.health());
    let latest = Arc::new(Latest::new(first));
    tell(&format!(
        "serving http://{addr}/metrics, collecting every {}",
        human(interval)
    ));

    let stop = Stop::new();
    // As a container's PID 1 no signal has a default action: SIGTERM must be handled.
    let _signals = stop_on_termination(Arc::clone(&stop), Some(addr))?;
    let sink = Arc::clone(&latest);
    let collector_stop = Arc::clone(&stop);
    std::thread::Builder::new()
        .name("restop-collect".into())
        .spawn(move || {
            collector.run(
                Instant::now() + interval,
                interval,
                &collector_stop,
                |exposition, health| {
                    sink.set(exposition);
                    status.update(health);
                },
            );
        })
        .context("starting the collection thread")?;
    server.serve(&latest, &stop);
    Ok(0)
}

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT stop the exporter through `stop` (and wake the
/// listener at `wake`): a clean exit with status 0, also as PID 1 of a container, where
/// signals have no default action and would be ignored.
fn stop_on_termination(
    stop: Arc<Stop>,
    wake: Option<std::net::SocketAddr>,
) -> Result<crate::signals::SignalGuard> {
    let guard = crate::signals::install()?;
    std::thread::Builder::new()
        .name("restop-signals".into())
        .spawn(move || {
            while !stop.is_stopped() {
                if crate::signals::stop_requested() {
                    stop.stop();
                    if let Some(addr) = wake {
                        super::http::server::wake(addr);
                    }
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        })
        .context("starting the signal thread")?;
    Ok(guard)
}

fn textfile_once(path: &Path, mut collector: Collector) -> Result<u8> {
    let exposition = collector.collect();
    write_atomically(path, exposition.body(Format::Text))
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

fn textfile_loop(path: &Path, mut collector: Collector, interval: Duration) -> Result<u8> {
    let stop = Stop::new();
    let _signals = stop_on_termination(Arc::clone(&stop), None)?;
    let mut status = StatusReport::default();
    let mut first_error: Option<anyhow::Error> = None;
    let mut written = 0u64;
    let mut failing = false;
    tell(&format!(
        "writing {} every {}",
        path.display(),
        human(interval)
    ));
    collector.run(Instant::now(), interval, &stop, |exposition, health| {
        status.update(health);
        match write_atomically(path, exposition.body(Format::Text)) {
            Ok(()) => {
                if failing {
                    tell(&format!("writing {} works again", path.display()));
                }
                failing = false;
                written += 1;
            }
            // The first write failing is a setup problem (no such directory,
            // no permission): stop and say so. Later ones are reported once
            // and retried.
            Err(err) if written == 0 => {
                first_error =
                    Some(anyhow::Error::new(err).context(format!("writing {}", path.display())));
                stop.stop();
            }
            Err(err) => {
                if !failing {
                    tell(&format!("writing {}: {err}; retrying", path.display()));
                }
                failing = true;
            }
        }
    });
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
