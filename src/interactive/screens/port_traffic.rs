//! A port's traffic on one line (rates, link use, the counters that
//! moved), as the counters screen and the device screen both show it. Among
//! the screens, not the widgets: it draws a row of `rows/`, which widgets never read.

use crate::interactive::rows::devices::{PortSummary, Traffic};
use crate::interactive::widgets::theme::Theme;
use crate::model::counters::Throughput;
use crate::units::percent;
use crate::units::{bytes_per_s, packets_per_s};
use ratatui::text::Span;

/// `TX 3.8 GB/s 931 kp/s  RX 5.2 GB/s 1.3 Mp/s  LINK 21%  moved out_of_sequence ...`,
/// or why there are no rates.
pub(crate) fn traffic_line<'a>(port: &PortSummary, theme: &Theme) -> Vec<Span<'a>> {
    let t = match &port.traffic {
        Traffic::Unavailable(why) => {
            return vec![Span::styled(format!("no counters: {why}"), theme.dim())];
        }
        Traffic::FirstRead => {
            return vec![Span::styled(
                "first read: totals only; rates from the next read on",
                theme.dim(),
            )];
        }
        Traffic::NoRates(why) => return vec![Span::styled(why.clone(), theme.dim())],
        Traffic::Rates(t) => t,
    };
    let mut spans = vec![Span::raw(throughput_text(t))];
    if port.moved.is_empty() {
        spans.push(Span::styled(
            "  no error or congestion counter moved",
            theme.dim(),
        ));
    } else {
        let style = if port.alerting.is_empty() {
            theme.warning()
        } else {
            theme.alert()
        };
        spans.push(Span::styled(
            format!("  moved: {}", port.moved.join(" ")),
            style,
        ));
    }
    spans
}

/// `TX 3.8 GB/s 931 kp/s  RX 5.2 GB/s 1.3 Mp/s  LINK 21%`.
pub(crate) fn throughput_text(t: &Throughput) -> String {
    let dir = |label: &str, bytes: Option<f64>, packets: Option<f64>| {
        let mut parts = vec![label.to_string()];
        parts.extend(bytes.map(bytes_per_s));
        parts.extend(packets.map(packets_per_s));
        if parts.len() == 1 {
            parts.push("-".to_string());
        }
        parts.join(" ")
    };
    let mut text = format!(
        "{}  {}",
        dir("TX", t.tx_bytes, t.tx_packets),
        dir("RX", t.rx_bytes, t.rx_packets)
    );
    if let Some(u) = t.utilisation {
        text.push_str(&format!("  LINK {}", percent(u)));
    }
    text
}
