//! The COUNTERS section of the `--once` report: by default one line per
//! port with what matters (state, traffic, error total, what moved); with
//! `--counters all`, every port's counters with their totals, and
//! per-second rates when the snapshot has a previous read (`--rates`).
//! Error/congestion counters that moved are named on the port line, so a
//! glance tells a healthy port from a sick one.
//!
//! The `--json` document's port keys are `output/json/port_counters.rs`: the
//! same reading of a port's counters in the other format, hence the same name
//! (as `interactive/rows/port_counters.rs` is the full-screen view's).

use super::layout::{clean, truncate, words, wrap_units};
use crate::model::counters::netdev::{NetdevCounters, Priority};
use crate::model::counters::{CounterClass, Direction, PortCounters, describe};
use crate::model::{Device, Port};
use crate::units;

const NAME_WIDTH: usize = 32;

pub(super) fn counters(devices: &[&Device], width: usize) -> Vec<String> {
    let mut lines = vec!["COUNTERS".to_string()];
    let mut any = false;
    for device in devices {
        for port in &device.ports {
            let Some(c) = &port.counters else { continue };
            any = true;
            lines.extend(port_block(&device.name, port.index, c, width));
        }
    }
    // Snapshots without counters (recordings from before they were read)
    // get no section at all.
    if !any {
        return Vec::new();
    }
    lines
}

/// One line per port (wrapped between words when what moved does not fit):
/// `mlx5_1/1 ACTIVE  tx 3.1 GB/s rx 4.2 GB/s  3% of link  errors 1389  moved: out_of_sequence +360`.
pub(super) fn summary(devices: &[&Device], width: usize) -> Vec<String> {
    let mut lines =
        vec!["COUNTERS (one line per port; --counters all for every counter)".to_string()];
    let mut any = false;
    for device in devices {
        for port in &device.ports {
            let Some(c) = &port.counters else { continue };
            any = true;
            lines.extend(port_line(&device.name, port, c, width));
        }
    }
    if !any {
        return Vec::new();
    }
    lines
}

fn port_line(device: &str, port: &Port, c: &PortCounters, width: usize) -> Vec<String> {
    let mut parts = vec![format!(
        "{}/{} {}",
        truncate(&clean(device), NAME_WIDTH),
        port.index,
        port.state
            .map(|s| s.to_string())
            .unwrap_or_else(|| "?".into())
    )];
    let rates = c.rates().filter(|r| r.note.is_none());
    match c.throughput().filter(|_| rates.is_some()) {
        Some(t) => {
            if let (Some(tx), Some(rx)) = (t.tx_bytes, t.rx_bytes) {
                parts.push(format!(
                    "tx {} rx {}",
                    units::bytes_per_s(tx),
                    units::bytes_per_s(rx)
                ));
            } else if let (Some(tx), Some(rx)) = (t.tx_packets, t.rx_packets) {
                parts.push(format!(
                    "tx {} rx {}",
                    units::packets_per_s(tx),
                    units::packets_per_s(rx)
                ));
            }
            if let Some(u) = t.utilisation {
                parts.push(format!("{} of link", units::percent(u)));
            }
        }
        None => {
            let words = |name: &str| c.read.pma.get(name).map(|w| w.saturating_mul(4));
            if let (Some(tx), Some(rx)) = (words("port_xmit_data"), words("port_rcv_data")) {
                parts.push(format!(
                    "sent {} received {}",
                    units::bytes(tx),
                    units::bytes(rx)
                ));
            }
        }
    }
    let errors: u64 = c
        .read
        .hw
        .iter()
        .chain(c.read.pma.iter())
        .filter(|(name, _)| {
            describe(name).is_some_and(|d| d.class == CounterClass::Error)
                && name.as_str() != "link_downed"
        })
        .map(|(_, v)| *v)
        .fold(0u64, u64::saturating_add);
    parts.push(format!("errors {}", units::count(errors)));
    // Each part stays whole, two spaces from the next; what moved may wrap.
    let last_part = parts.len() - 1;
    let mut words: Vec<String> = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| if i < last_part { format!("{p} ") } else { p })
        .collect();
    if let (Some(_), Some(prev)) = (&rates, &c.previous) {
        let moved = c.moved();
        if !moved.is_empty() {
            words.push(" moved:".into());
            // (the leading space keeps two between it and the errors)
            let last = moved.len() - 1;
            for (i, name) in moved.iter().enumerate() {
                let before = prev
                    .hw
                    .get(name)
                    .or(prev.pma.get(name))
                    .copied()
                    .unwrap_or(0);
                let now = c
                    .read
                    .hw
                    .get(name)
                    .or(c.read.pma.get(name))
                    .copied()
                    .unwrap_or(0);
                let comma = if i < last { "," } else { "" };
                words.push(format!(
                    "{}{}",
                    clean(name),
                    format_args!(" +{}{comma}", units::count(now.saturating_sub(before)))
                ));
            }
        }
    }
    // The netdev's signals (pause storm, discards, errors, flap), when any moved.
    if let Some((name, h)) = c
        .netdev
        .as_ref()
        .and_then(|n| Some((n.name.as_str(), n.health()?)))
        .filter(|(_, h)| !h.is_quiet())
    {
        words.push(format!(" netdev {}:", clean(name)));
        let said = h.words();
        let last = said.len().saturating_sub(1);
        for (i, w) in said.into_iter().enumerate() {
            words.push(if i < last { format!("{w},") } else { w });
        }
    }
    let words: Vec<String> = words.into_iter().filter(|w| !w.is_empty()).collect();
    wrap_units("  ", "    ", &words, " ", width)
}

fn port_block(device: &str, port: u32, c: &PortCounters, width: usize) -> Vec<String> {
    let name = truncate(&clean(device), NAME_WIDTH);
    let mut head = format!("{name} port {port}");
    if let Some(source) = c.source {
        head.push_str(&format!(" ({})", source.name()));
    }
    if let Some(rate) = &c.link_rate {
        head.push_str(&format!("  link {}", truncate(&clean(rate), 24)));
    }
    let mut lines = vec![head];
    if let Some(n) = &c.netdev {
        lines.extend(netdev_lines(n, width));
    }
    let rates = c.rates().filter(|r| r.note.is_none());
    if let Some(r) = &rates {
        lines.push(format!("  rates over {:.1} s", r.interval_s));
        if let Some(t) = c.throughput() {
            let mut parts = Vec::new();
            if let (Some(tx), Some(rx)) = (t.tx_bytes, t.rx_bytes) {
                parts.push(format!(
                    "tx {} rx {}",
                    units::bytes_per_s(tx),
                    units::bytes_per_s(rx)
                ));
            }
            if let (Some(tx), Some(rx)) = (t.tx_packets, t.rx_packets) {
                parts.push(format!("tx {} pkt/s rx {} pkt/s", rate(tx), rate(rx)));
            }
            if let Some(u) = t.utilisation {
                parts.push(format!("{} of link", units::percent(u)));
            }
            if !parts.is_empty() {
                lines.push(format!("  {}", parts.join("  ")));
            }
        }
        let moved = c.moved();
        if moved.is_empty() {
            lines.push("  no error or congestion counter moved".to_string());
        } else {
            lines.extend(listed("  moved: ", &moved, width));
        }
        if !r.resets.is_empty() {
            lines.extend(listed("  reset (went down): ", &r.resets, width));
        }
    }
    for note in &c.notes {
        lines.extend(wrap_units("  ", "  ", &words(&clean(note)), " ", width));
    }
    let all: Vec<(&String, &u64)> = c.read.hw.iter().chain(c.read.pma.iter()).collect();
    match &rates {
        Some(r) => {
            for (name, total) in all {
                let per_s = r
                    .get(name)
                    .map(|v| format!("{}/s", rate(v)))
                    .unwrap_or_else(|| "-".to_string());
                lines.push(format!(
                    "  {:<34} {:>20} {:>16}",
                    truncate(&clean(name), 34),
                    total,
                    per_s
                ));
            }
        }
        None => lines.extend(two_columns(&all, width)),
    }
    lines
}

/// The port's netdev: its name and carrier changes, then what moved since
/// the previous read (pause frames, discards, errors, flaps), or the pause
/// totals on a first read, and what is not available.
fn netdev_lines(n: &NetdevCounters, width: usize) -> Vec<String> {
    let mut head = format!("  netdev {}", truncate(&clean(&n.name), 16));
    if let Some(changes) = n.read.carrier_changes {
        head.push_str(&format!("  carrier changes {changes}"));
    }
    let mut lines = vec![head];
    let sum = |list: &[(String, f64)]| list.iter().map(|(_, r)| r).sum::<f64>();
    match n.health() {
        Some(h) => {
            let mut line = format!(
                "    pause rx {}/s tx {}/s",
                rate(h.rx_pause_per_s),
                rate(h.tx_pause_per_s)
            );
            let prios: Vec<String> = h
                .pause
                .iter()
                .filter_map(|(p, d, _)| match p {
                    Priority::Pfc(n) => Some(format!("p{n} {}", direction(*d))),
                    Priority::Global => None,
                })
                .collect();
            if !prios.is_empty() {
                line.push_str(&format!(" ({})", prios.join(", ")));
            }
            line.push_str(&format!(
                "  discards {}/s  errors {}/s  carrier +{}",
                rate(sum(&h.discards)),
                rate(sum(&h.errors)),
                h.carrier_changes
            ));
            lines.push(line);
            let rose: Vec<String> = h
                .discards
                .iter()
                .chain(h.errors.iter())
                .map(|(name, _)| name.clone())
                .collect();
            if !rose.is_empty() {
                lines.extend(listed("    rose: ", &rose, width));
            }
        }
        None => {
            let pause = n.read.pause();
            if !pause.is_empty() {
                let total = |d: Direction| -> u64 {
                    pause
                        .iter()
                        .filter(|c| c.direction == d)
                        .map(|c| c.frames)
                        .max()
                        .unwrap_or(0)
                };
                lines.push(format!(
                    "    pause frames rx {} tx {}",
                    total(Direction::Rx),
                    total(Direction::Tx)
                ));
            }
        }
    }
    for note in &n.notes {
        lines.extend(wrap_units("    ", "    ", &words(&clean(note)), " ", width));
    }
    lines
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::Rx => "rx",
        Direction::Tx => "tx",
    }
}

/// Totals only: two `name value` pairs per line, one where a pair would
/// not fit (totals of 14 digits and more).
fn two_columns(all: &[(&String, &u64)], width: usize) -> Vec<String> {
    let cell = |(name, v): &(&String, &u64)| {
        let value = v.to_string();
        // Names stay whole (scripts grep for them) unless a line cannot hold them.
        let room = width.saturating_sub(3 + value.len());
        format!("{:<27} {:>10}", truncate(&clean(name), room), value)
    };
    let mut lines = Vec::new();
    for pair in all.chunks(2) {
        let cells: Vec<String> = pair.iter().map(cell).collect();
        let line = format!("  {}", cells.join("  "));
        if line.chars().count() <= width {
            lines.push(line);
        } else {
            lines.extend(cells.iter().map(|c| format!("  {c}")));
        }
    }
    lines
}

/// A per-second figure: one decimal below 10, then whole (`1.2M` beyond).
fn rate(v: f64) -> String {
    if !v.is_finite() || v <= 0.0 {
        "0".to_string()
    } else if v < 10.0 {
        format!("{v:.1}")
    } else {
        units::count(v.round() as u64)
    }
}

/// `head` and comma-separated names, wrapped to `width`.
fn listed(head: &str, names: &[String], width: usize) -> Vec<String> {
    let last = names.len().saturating_sub(1);
    let units: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let n = truncate(&clean(n), width.saturating_sub(12));
            if i < last { format!("{n},") } else { n }
        })
        .collect();
    wrap_units(head, "    ", &units, " ", width)
}
