//! One host of the fleet (Enter on a row): its detail as Prometheus has it (every device's
//! usage, its ports, its problems, its consumers) and, when its exporter's address answers from
//! here, the same read live from the exporter by the direct scraper. The feed reads both at
//! every refresh while the screen is open; the screen keeps the last of each.

pub(crate) mod draw;

use crate::fleet::feed::DetailTarget;
use crate::fleet::model::{FleetReading, HostRow};
use crate::model::UnixMs;

/// A host's detail screen.
#[derive(Clone, Debug, PartialEq)]
pub struct HostScreen {
    pub target: DetailTarget,
    /// The host's row in the hosts table when it was opened (status, reasons), kept current by
    /// each refresh.
    pub row: Option<HostRow>,
    /// Prometheus' detail, or why it failed; `None` until the first answer.
    pub detail: Option<Result<FleetReading, String>>,
    /// The exporter read directly, or why it was not reached.
    pub live: Option<Result<FleetReading, String>>,
    /// When the last detail arrived.
    pub read_at: Option<UnixMs>,
    /// First line shown.
    pub scroll: usize,
}

impl HostScreen {
    /// The screen for `row`'s host. Its exporter is read live when the row names one that looks
    /// like an address (`instance` is `host:port` unless relabelled).
    pub fn new(row: &HostRow) -> HostScreen {
        let instance = row
            .exporters
            .first()
            .filter(|e| looks_like_address(e))
            .cloned();
        HostScreen {
            target: DetailTarget {
                host: row.host.clone(),
                instance,
            },
            row: Some(row.clone()),
            detail: None,
            live: None,
            read_at: None,
            scroll: 0,
        }
    }

    /// A detail the feed read.
    pub fn receive(
        &mut self,
        detail: Result<FleetReading, String>,
        live: Option<Result<FleetReading, String>>,
        at: UnixMs,
    ) {
        // A failed read keeps the last good one on screen, with the failure beside it.
        match (&self.detail, &detail) {
            (Some(Ok(_)), Err(_)) => {}
            _ => self.detail = Some(detail.clone()),
        }
        self.live = live;
        self.read_at = Some(at);
        if let Err(e) = detail {
            self.live = self.live.take().or(Some(Err(format!("Prometheus: {e}"))));
        }
    }

    pub fn scroll_by(&mut self, delta: isize, lines: usize, height: usize) {
        let max = lines.saturating_sub(height.max(1));
        self.scroll = self.scroll.saturating_add_signed(delta).min(max);
    }
}

/// `host:port`, `[v6]:port` or a URL: something the direct scraper can reach.
fn looks_like_address(text: &str) -> bool {
    if text.starts_with("http://") || text.starts_with("https://") {
        return true;
    }
    text.rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_address_is_scraped_live() {
        assert!(looks_like_address("10.0.0.7:9879"));
        assert!(looks_like_address("[::1]:9879"));
        assert!(looks_like_address("https://node/metrics"));
        assert!(!looks_like_address("gpu-node-07"));
        assert!(!looks_like_address("node:http"));
    }
}
