//! How a port's state is written wherever a port is shown (the device screen,
//! the counters screen), so both read the same.

use crate::interactive::widgets::theme::Theme;
use crate::model::PortState;
use ratatui::text::Span;

/// A port's state and netdev (`ACTIVE ens1f0np0`), coloured by the state.
pub(crate) fn port_state<'a>(
    state: Option<PortState>,
    netdev: Option<&str>,
    theme: &Theme,
) -> Span<'a> {
    let name = state.map(|s| s.name()).unwrap_or("?");
    let netdev = netdev.map(|n| format!(" {n}")).unwrap_or_default();
    Span::styled(format!("{name}{netdev}"), theme.port(state))
}
