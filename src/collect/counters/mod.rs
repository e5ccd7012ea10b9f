//! NIC counters of every port, read on every collection on their own: one
//! `STAT_GET` doit per port (cheap, unlike object dumps), sysfs `counters/`
//! for the PMA counters and `rate` for the link speed, and sysfs
//! `hw_counters/` when the kernel has no `STAT_GET`.
//!
//! The reader remembers each port's previous read so the snapshot carries
//! both and rates come from the reads' own timestamps (`model::counters`).
//! Read-only: restop never sends `STAT_SET`/`STAT_DEL`. Each port's netdev
//! is read alongside (`collect::netdev`).

pub(crate) mod sysfs;

use crate::collect::netdev::NetdevReader;
use crate::model::counters::bound::BoundCounter;
use crate::model::counters::{CounterRead, CounterSource, PortCounters, parse_link_rate_mbps};
use crate::model::{Device, Warning, WarningKind};
use crate::nldev::stat::QpCounter;
use crate::nldev::{NldevClient, Transport};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use sysfs::{port_dir, read_counter_dir, read_rate};

/// A port, told apart from a re-created device of the same name.
type PortKey = (u32, String, u32);

/// Reads counters and keeps the previous read of every port.
#[derive(Debug)]
pub(crate) struct CounterReader {
    sys_root: PathBuf,
    previous: HashMap<PortKey, CounterRead>,
    /// The kernel answered EOPNOTSUPP: it has no `STAT_GET`; use sysfs only.
    netlink_unsupported: bool,
    /// The kernel refused the QP-counter dump as unsupported: not asked again.
    bound_unsupported: Option<String>,
    netdev: NetdevReader,
}

impl CounterReader {
    pub(crate) fn new(sys_root: PathBuf) -> CounterReader {
        CounterReader {
            netdev: NetdevReader::new(sys_root.clone()),
            sys_root,
            previous: HashMap::new(),
            netlink_unsupported: false,
            bound_unsupported: None,
        }
    }

    /// Reads the counters of every port of `device` into its ports.
    pub(crate) fn read_device<T: Transport>(
        &mut self,
        client: &mut NldevClient<T>,
        device: &mut Device,
        warnings: &mut Vec<Warning>,
    ) {
        let (index, name) = (device.index, device.name.clone());
        for port in &mut device.ports {
            let mut counters = self.read_port(client, index, &name, port.index, warnings);
            let netdev = self
                .netdev
                .netdev_of(&name, port.index, port.netdev.as_deref());
            counters.netdev = netdev.map(|n| self.netdev.read(&n, port.netdev_index));
            port.counters = Some(counters);
        }
        self.read_bound(client, device, warnings);
    }

    /// The QP-bound counters of `device` (one dump per device), into its
    /// ports; where the kernel cannot list them, each port says why.
    fn read_bound<T: Transport>(
        &mut self,
        client: &mut NldevClient<T>,
        device: &mut Device,
        warnings: &mut Vec<Warning>,
    ) {
        let result = match &self.bound_unsupported {
            Some(why) => Err(why.clone()),
            None => match client.qp_counters(device.index) {
                Ok(counters) => Ok(counters),
                Err(e) if e.is_no_device() => Err(e.to_string()),
                Err(e) if e.is_stat_unsupported() => {
                    let why = format!("the kernel lists no QP counters: {e}");
                    self.bound_unsupported = Some(why.clone());
                    Err(why)
                }
                Err(e) => {
                    warnings.push(Warning::new(
                        WarningKind::Other,
                        format!("QP counters of {}: {e}", device.name),
                    ));
                    Err(e.to_string())
                }
            },
        };
        for port in &mut device.ports {
            let Some(c) = port.counters.as_mut() else {
                continue;
            };
            match &result {
                Ok(all) => {
                    c.bound = all
                        .iter()
                        .filter(|q| q.port == port.index)
                        .map(bound_counter)
                        .collect();
                }
                Err(why) => c.bound_note = Some(why.clone()),
            }
        }
    }

    /// Forgets ports that are no longer there (after a collection).
    pub(crate) fn retain(&mut self, devices: &[Device]) {
        let netdevs: HashSet<String> = devices
            .iter()
            .flat_map(|d| &d.ports)
            .filter_map(|p| p.counters.as_ref()?.netdev.as_ref())
            .map(|n| n.name.clone())
            .collect();
        self.netdev.retain(&netdevs);
        self.previous.retain(|(index, name, port), _| {
            devices.iter().any(|d| {
                d.index == *index && &d.name == name && d.ports.iter().any(|p| p.index == *port)
            })
        });
    }

    fn read_port<T: Transport>(
        &mut self,
        client: &mut NldevClient<T>,
        index: u32,
        name: &str,
        port: u32,
        warnings: &mut Vec<Warning>,
    ) -> PortCounters {
        let mut out = PortCounters::default();
        let mut read = CounterRead::default();
        let dir = port_dir(&self.sys_root, name, port);
        let mut netlink_refused = None;
        if !self.netlink_unsupported {
            read.at_ms = crate::model::time::now();
            match client.port_stats(index, port) {
                Ok(stats) if !stats.counters.is_empty() => {
                    read.hw = stats.counters.into_iter().collect();
                    out.source = Some(CounterSource::Netlink);
                }
                Ok(_) => netlink_refused = Some("STAT_GET returned no counters".to_string()),
                Err(e) if e.is_no_device() => {
                    // The device went away; the port listing says so.
                    netlink_refused = Some(e.to_string());
                }
                Err(e) if e.is_stat_unsupported() => {
                    if e.errno() == Some(nix::errno::Errno::EOPNOTSUPP as i32) {
                        self.netlink_unsupported = true;
                    }
                    netlink_refused = Some(e.to_string());
                }
                Err(e) => {
                    warnings.push(Warning::new(
                        WarningKind::Other,
                        format!("counters of {name} port {port}: {e}"),
                    ));
                    netlink_refused = Some(e.to_string());
                }
            }
        } else {
            netlink_refused = Some("the kernel has no STAT_GET".to_string());
        }
        if out.source.is_none() {
            read.at_ms = crate::model::time::now();
            let hw = read_counter_dir(&dir.join("hw_counters"));
            self.report(&hw.problems, name, port, warnings);
            if hw.present && !hw.values.is_empty() {
                read.hw = hw.values;
                out.source = Some(CounterSource::Sysfs);
            } else {
                out.notes.push(format!(
                    "no driver counters: {} and no hw_counters in sysfs",
                    netlink_refused.unwrap_or_else(|| "STAT_GET failed".into())
                ));
            }
        }
        let pma = read_counter_dir(&dir.join("counters"));
        self.report(&pma.problems, name, port, warnings);
        read.pma = pma.values;
        out.link_rate = read_rate(&dir);
        out.link_rate_mbps = out.link_rate.as_deref().and_then(parse_link_rate_mbps);
        let key = (index, name.to_string(), port);
        out.previous = self.previous.insert(key, read.clone());
        out.read = read;
        out
    }

    fn report(&self, problems: &[String], name: &str, port: u32, warnings: &mut Vec<Warning>) {
        for p in problems {
            warnings.push(Warning::new(
                WarningKind::Other,
                format!("a counter of {name} port {port} is unreadable: {p}"),
            ));
        }
    }
}

fn bound_counter(q: &QpCounter) -> BoundCounter {
    BoundCounter {
        id: q.id,
        mode: q.mode.map(|m| m.name()),
        reported: q.owner.clone(),
        qps: q.qps.clone(),
        counters: q.counters.iter().cloned().collect(),
    }
}
