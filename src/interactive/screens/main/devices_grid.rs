//! Where each column of the devices table goes at a given width.
//!
//! Every column has a narrowest useful width and a priority. Columns are
//! dropped, lowest priority first, until the rest fit at their narrowest;
//! the room left then goes where the information is: the full port text,
//! `used/max` on gauges with a limit, the health cell's counter names, and
//! last the bars of the gauges with a limit. A gauge with a limit always
//! keeps a bar (it is dropped rather than shown without one); a count with
//! no limit takes only the cells its numbers need.

use crate::interactive::rows::devices::{DeviceRow, DeviceTraffic, Traffic, Tree};
use crate::interactive::widgets::gauge::{GaugePlan, gauge_text};
use crate::model::ResourceType;

/// Narrowest bar a gauge with a limit keeps.
const MIN_BAR: usize = 2;
/// A bar this wide before `used/max` is shown next to it.
const FULL_MIN_BAR: usize = 4;
/// Bars stop growing here; wider gauges do not say more.
const MAX_BAR: usize = 24;
/// `12.5 GB/s`, `98.2 kp/s`.
pub(crate) const RATE_WIDTH: u16 = 9;
/// `100%`.
const LINK_WIDTH: u16 = 4;
const HEALTH_MIN: u16 = 6;
/// `no counters`.
const NO_COUNTERS_WIDTH: u16 = 11;
const HEALTH_MAX: u16 = 60;
/// A pod's name is cut here in the NETNS column (the device screen has it whole).
const NETNS_MAX: u16 = 18;
/// What the health cell gets before the gauges show `used/max`: two names.
pub(crate) const HEALTH_FIRST: u16 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Column {
    Name,
    Port,
    /// The device's network namespace, when some device is in another one.
    Netns,
    /// A usage gauge, by index into the table's types.
    Gauge(usize),
    Tx,
    Rx,
    TxPackets,
    RxPackets,
    Link,
    Health,
}

impl Column {
    pub(crate) fn title(self, types: &[ResourceType]) -> &'static str {
        match self {
            Column::Name => "DEVICE",
            Column::Port => "PORT",
            Column::Netns => "NETNS",
            Column::Gauge(i) => types.get(i).map(|t| t.label()).unwrap_or("?"),
            Column::Tx => "TX",
            Column::Rx => "RX",
            Column::TxPackets => "TX-PKT",
            Column::RxPackets => "RX-PKT",
            Column::Link => "LINK",
            Column::Health => "HEALTH",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    pub column: Column,
    pub x: u16,
    pub width: u16,
    /// For gauges: how the gauge is laid out in `width`.
    pub gauge: Option<GaugePlan>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    /// In screen order, x relative to the table.
    pub columns: Vec<Placed>,
    /// The port cell has room for state, netdev and `+N`.
    pub port_full: bool,
}

#[cfg(test)]
impl Grid {
    pub(crate) fn has(&self, column: Column) -> bool {
        self.columns.iter().any(|p| p.column == column)
    }
}

/// One column's needs.
#[derive(Clone, Copy, Debug)]
struct Need {
    column: Column,
    /// Starts at the narrowest useful width.
    width: u16,
    /// Gauge text widths (short, full) when the gauge has a bar.
    barred: Option<(u16, u16)>,
}

pub(crate) fn name_text(row: &DeviceRow) -> String {
    match (row.tree, row.fold) {
        (_, Some(f)) if f.open => format!("▾ {}", row.name),
        (_, Some(f)) => format!("▸ {} +{}", row.name, f.vfs),
        _ => tree_name(row),
    }
}

fn tree_name(row: &DeviceRow) -> String {
    match row.tree {
        Tree::Root => row.name.clone(),
        Tree::Vf { last: false } => format!("├ {}", row.name),
        Tree::Vf { last: true } => format!("└ {}", row.name),
    }
}

fn widest(texts: impl Iterator<Item = usize>, at_least: usize) -> u16 {
    u16::try_from(texts.max().unwrap_or(0).max(at_least)).unwrap_or(u16::MAX)
}

fn gauge_need(rows: &[DeviceRow], i: usize, label: &str, sparklines: bool) -> Need {
    let entries: Vec<_> = rows
        .iter()
        .map(|r| r.usage.get(i).and_then(|(_, e)| e.as_ref()))
        .collect();
    let text = |full: bool| {
        widest(
            entries.iter().map(|e| gauge_text(*e, full).chars().count()),
            1,
        )
    };
    let (short, full) = (text(false), text(true));
    let limited = sparklines || entries.iter().any(|e| e.and_then(|e| e.ratio()).is_some());
    let label = widest(std::iter::once(label.chars().count()), 0);
    let column = Column::Gauge(i);
    if !limited {
        let w = short.max(label);
        return Need {
            column,
            width: w,
            barred: None,
        };
    }
    let min = (short + 1 + MIN_BAR as u16).max(label);
    Need {
        column,
        width: min,
        barred: Some((short, full)),
    }
}

/// Drop order: the first columns are kept longest.
fn priority(column: Column, types: &[ResourceType], counters: bool) -> usize {
    let type_rank = |t: ResourceType| match t {
        ResourceType::Qp => 2,
        ResourceType::Mr => 3,
        ResourceType::Cq => 7,
        ResourceType::Srq => 9,
        ResourceType::Pd => 10,
        ResourceType::Ctx => 11,
        ResourceType::CmId => 12,
    };
    match column {
        Column::Name => 0,
        Column::Port => 1,
        Column::Netns => 5,
        Column::Gauge(i) => types.get(i).map_or(13, |t| type_rank(*t)),
        Column::Tx => 4,
        Column::Rx => 5,
        Column::Health if counters => 6,
        Column::Health => 8,
        Column::Link => 8,
        Column::TxPackets => 14,
        Column::RxPackets => 15,
    }
}

/// Plans the devices table's columns for `rows` (with their `traffic`) at `width`.
pub(crate) fn plan_grid(
    rows: &[DeviceRow],
    traffic: &[DeviceTraffic],
    types: &[ResourceType],
    width: u16,
    sparklines: bool,
    health: (u16, u16),
) -> Grid {
    let name = widest(rows.iter().map(|r| name_text(r).chars().count()), 6).min(16);
    let port_full = widest(rows.iter().map(|r| port_text(r).chars().count()), 4).min(22);
    let port_min = port_full.min(6);
    let fixed = |column, w: u16| Need {
        column,
        width: w,
        barred: None,
    };
    let rates = traffic.iter().filter_map(|t| t.traffic.throughput());
    let bytes = rates
        .clone()
        .any(|t| t.tx_bytes.is_some() || t.rx_bytes.is_some());
    let link = rates.clone().any(|t| t.utilisation.is_some());
    let mut needs = vec![fixed(Column::Name, name), fixed(Column::Port, port_min)];
    // A short tag (the pod) of a device of another namespace: as wide as
    // the widest, cut at NETNS_MAX.
    let netns = rows
        .iter()
        .filter_map(|r| r.netns.as_ref().map(|n| n.chars().count()))
        .max();
    if let Some(w) = netns {
        needs.push(fixed(
            Column::Netns,
            widest(std::iter::once(w), 5).min(NETNS_MAX),
        ));
    }
    for (i, t) in types.iter().enumerate() {
        needs.push(gauge_need(rows, i, t.label(), sparklines));
    }
    // No port with counters at all (an old recording, a kernel and sysfs
    // without them): one cell saying so, kept only when there is room.
    let any_counters = traffic
        .iter()
        .any(|t| !matches!(t.traffic, Traffic::Unavailable(_)));
    if !any_counters {
        needs.push(fixed(Column::Health, NO_COUNTERS_WIDTH));
        return fit(needs, width, types, port_full, health, false);
    }
    needs.push(fixed(Column::Tx, RATE_WIDTH));
    needs.push(fixed(Column::Rx, RATE_WIDTH));
    if bytes {
        needs.push(fixed(Column::TxPackets, RATE_WIDTH));
        needs.push(fixed(Column::RxPackets, RATE_WIDTH));
    }
    if link {
        needs.push(fixed(Column::Link, LINK_WIDTH));
    }
    needs.push(fixed(Column::Health, HEALTH_MIN));
    fit(needs, width, types, port_full, health, true)
}

/// Drops columns until the rest fit, then gives them the room left.
fn fit(
    mut needs: Vec<Need>,
    width: u16,
    types: &[ResourceType],
    port_full: u16,
    health: (u16, u16),
    counters: bool,
) -> Grid {
    let priority = |c: Column| priority(c, types, counters);
    let used = |needs: &[Need]| needs.iter().map(|n| n.width + 1).sum::<u16>();
    while used(&needs) > width.saturating_add(1) && needs.len() > 1 {
        let Some(drop) = needs
            .iter()
            .enumerate()
            .max_by_key(|(_, n)| priority(n.column))
            .map(|(i, _)| i)
        else {
            break;
        };
        needs.remove(drop);
    }
    let mut spare = width.saturating_add(1).saturating_sub(used(&needs));
    grow(&mut needs, &mut spare, &priority, port_full, health);
    place(needs, width, port_full)
}

/// Gives the room left to the columns that show more with it.
fn grow(
    needs: &mut [Need],
    spare: &mut u16,
    priority: &dyn Fn(Column) -> usize,
    port_full: u16,
    health: (u16, u16),
) {
    let mut by_priority: Vec<usize> = (0..needs.len()).collect();
    by_priority.sort_by_key(|&i| priority(needs[i].column));
    let take = |need: &mut Need, to: u16, spare: &mut u16| {
        if to > need.width {
            let add = (to - need.width).min(*spare);
            need.width += add;
            *spare -= add;
        }
    };
    for &i in &by_priority {
        // All or nothing: a half-shown netdev says nothing.
        if needs[i].column == Column::Port && port_full - needs[i].width.min(port_full) <= *spare {
            take(&mut needs[i], port_full, spare);
        }
    }
    // The moved counters' names, up to a couple of them.
    let (health_first, health_want) = health;
    let health_want = health_want.clamp(HEALTH_MIN, HEALTH_MAX);
    for need in needs.iter_mut().filter(|n| n.column == Column::Health) {
        take(need, health_first.clamp(HEALTH_MIN, HEALTH_FIRST), spare);
    }
    // `used/max` with a small bar, most important gauge first; all or nothing.
    for &i in &by_priority {
        if let Some((_, full)) = needs[i].barred {
            let to = full + 1 + FULL_MIN_BAR as u16;
            if to - needs[i].width.min(to) <= *spare {
                take(&mut needs[i], to, spare);
            }
        }
    }
    // The rest to the bars, one cell at a time so they grow together.
    loop {
        let mut grew = false;
        for &i in &by_priority {
            let Some((short, full)) = needs[i].barred else {
                continue;
            };
            let text = if needs[i].width > full + FULL_MIN_BAR as u16 {
                full
            } else {
                short
            };
            let bar = needs[i].width.saturating_sub(text + 1);
            if *spare > 0 && usize::from(bar) < MAX_BAR {
                needs[i].width += 1;
                *spare -= 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    for need in needs.iter_mut().filter(|n| n.column == Column::Health) {
        take(need, health_want, spare);
    }
}

fn place(mut needs: Vec<Need>, width: u16, port_full: u16) -> Grid {
    needs.sort_by_key(|n| screen_order(n.column));
    let mut x = 0u16;
    let mut columns = Vec::new();
    let mut full_port = false;
    for n in needs {
        let w = n.width.min(width.saturating_sub(x));
        if w == 0 {
            break;
        }
        if n.column == Column::Port {
            full_port = w >= port_full;
        }
        let gauge = n.barred.map(|(short, full)| {
            let full_fits = w > full + FULL_MIN_BAR as u16;
            let text = if full_fits { full } else { short };
            GaugePlan {
                full: full_fits,
                bar: usize::from(w.saturating_sub(text + 1)),
                text: usize::from(text),
            }
        });
        let gauge = gauge.or(match n.column {
            Column::Gauge(_) => Some(GaugePlan {
                full: true,
                bar: 0,
                text: usize::from(w),
            }),
            _ => None,
        });
        columns.push(Placed {
            column: n.column,
            x,
            width: w,
            gauge,
        });
        x = x.saturating_add(w + 1);
    }
    Grid {
        columns,
        port_full: full_port,
    }
}

fn screen_order(column: Column) -> usize {
    match column {
        Column::Name => 0,
        Column::Port => 1,
        Column::Netns => 5,
        Column::Gauge(i) => 2 + i,
        Column::Tx => 100,
        Column::Rx => 101,
        Column::TxPackets => 102,
        Column::RxPackets => 103,
        Column::Link => 104,
        Column::Health => 105,
    }
}

/// The port column in full: `ACTIVE ens1f0np0 +1`.
pub(crate) fn port_text(row: &DeviceRow) -> String {
    let Some(first) = row.ports.first() else {
        return "-".to_string();
    };
    let state = first.state.map(|s| s.name()).unwrap_or("?");
    let mut text = match &first.netdev {
        Some(n) => format!("{state} {n}"),
        None => state.to_string(),
    };
    if row.ports.len() > 1 {
        text.push_str(&format!(" +{}", row.ports.len() - 1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interactive::rows::devices::{PortSummary, Traffic};
    use crate::model::counters::Throughput;
    use crate::model::{PortState, UsageEntry};

    fn row(name: &str, qp: (u64, u64), ctx: u64) -> DeviceRow {
        let e = |current, max| UsageEntry {
            current,
            max,
            max_source: None,
        };
        DeviceRow {
            name: name.to_string(),
            tree: Tree::Root,
            ports: vec![PortSummary {
                index: 1,
                state: Some(PortState::Active),
                netdev: Some("ens1f0np0".to_string()),
                link_rate: None,
                traffic: Traffic::Rates(Throughput {
                    tx_bytes: Some(1e9),
                    ..Throughput::default()
                }),
                moved: Vec::new(),
                alerting: Vec::new(),
            }],
            usage: vec![
                (ResourceType::Qp, Some(e(qp.0, Some(qp.1)))),
                (ResourceType::Ctx, Some(e(ctx, None))),
            ],
            dump_errors: 0,
            error_qps: 0,
            netns: None,
            fold: None,
        }
    }

    fn plan(width: u16) -> Grid {
        let rows = vec![
            row("mlx5_0", (1713, 2048), 3),
            row("mlx5_1", (1, 131_072), 12),
        ];
        let traffic: Vec<_> = rows.iter().map(DeviceRow::traffic).collect();
        plan_grid(
            &rows,
            &traffic,
            &[ResourceType::Qp, ResourceType::Ctx],
            width,
            false,
            (0, 0),
        )
    }

    fn placed(g: &Grid, c: Column) -> Option<Placed> {
        g.columns.iter().copied().find(|p| p.column == c)
    }

    #[test]
    fn a_gauge_with_a_limit_keeps_a_bar_at_every_width_or_is_dropped() {
        for width in 20..=240 {
            let g = plan(width);
            if let Some(p) = placed(&g, Column::Gauge(0)) {
                assert!(p.gauge.unwrap().bar >= MIN_BAR, "{width}: {p:?}");
            }
            let end = g.columns.last().map(|p| p.x + p.width).unwrap_or(0);
            assert!(end <= width, "{width}: {g:?}");
        }
    }

    #[test]
    fn counts_without_a_limit_take_only_what_their_numbers_need() {
        let g = plan(200);
        let ctx = placed(&g, Column::Gauge(1)).unwrap();
        assert_eq!(ctx.width, 3);
        let qp = placed(&g, Column::Gauge(0)).unwrap();
        assert!(qp.gauge.unwrap().full && qp.width > 20, "{qp:?}");
    }

    #[test]
    fn narrow_tables_drop_columns_by_priority() {
        let g = plan(40);
        assert!(g.has(Column::Name) && g.has(Column::Gauge(0)));
        assert!(g.has(Column::Tx));
        assert!(!g.has(Column::Gauge(1)));
        let g = plan(80);
        assert!(g.has(Column::Rx) && g.has(Column::Health));
    }
}
