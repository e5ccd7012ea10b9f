//! The device view (Enter on a device row): the device's ports and limits,
//! and every owner's objects on this device alone; Enter opens an owner.

use super::Ctx;
use super::table::TableScreen;
use crate::app::layout::TablePane;
use crate::app::object_table::{Cell, Column, ObjectTable, Row};
use crate::model::consumers::{SortDirection, consumers};
use crate::model::filter::Filter;
use crate::model::{Device, ResourceType, Snapshot};
use crate::ui::object_table;
use crate::ui::paint::{put_spans, title_line};
use crate::ui::theme::Theme;
use crate::units::{count, percent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;

/// Lines above the table: ports, then limits.
const INFO_LINES: u16 = 2;
/// The QP column, sorted on by default.
const QP_COLUMN: usize = 2;

#[derive(Clone, Debug, PartialEq)]
pub struct DeviceScreen {
    pub name: String,
    /// Every owner holding objects on this device, with its counts here.
    pub table: ObjectTable,
    /// The device's QPs in ERR/SQE.
    pub error_qps: usize,
}

impl DeviceScreen {
    pub fn new(name: String) -> DeviceScreen {
        let columns = vec![
            Column::right("PID", 7),
            Column::left("NAME", 18),
            Column::right("QP", 6),
            Column::right("CQ", 6),
            Column::right("MR", 6),
            Column::right("MR-BYTES", 9),
            Column::right("PD", 6),
            Column::right("ERR", 4),
        ];
        DeviceScreen {
            name,
            table: ObjectTable::new(columns, QP_COLUMN, SortDirection::Descending),
            error_qps: 0,
        }
    }

    fn pane(body: Rect) -> TablePane {
        let info = INFO_LINES.min(body.height);
        TablePane::new(Rect::new(
            body.x,
            body.y + info,
            body.width,
            body.height - info,
        ))
    }

    fn device<'a>(&self, snapshot: Option<&'a Snapshot>) -> Option<&'a Device> {
        snapshot?.devices.iter().find(|d| d.name == self.name)
    }
}

impl TableScreen for DeviceScreen {
    const ID: &'static str = "device";

    fn table(&self) -> &ObjectTable {
        &self.table
    }

    fn table_mut(&mut self) -> &mut ObjectTable {
        &mut self.table
    }

    fn table_pane(&self, body: Rect) -> TablePane {
        Self::pane(body)
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        // Counts on this device only, whatever device the filters name.
        let here = Filter {
            device: Some(self.name.clone()),
            ..ctx.filter.clone()
        };
        let rows = consumers(snapshot, &here)
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let n = |t: ResourceType| Cell::Num(Some(c.counts.get(t)));
                Row {
                    id: (0, u64::try_from(i).unwrap_or(u64::MAX)),
                    cells: vec![
                        Cell::Num(c.pid().map(u64::from)),
                        Cell::Text(c.name.clone()),
                        n(ResourceType::Qp),
                        n(ResourceType::Cq),
                        n(ResourceType::Mr),
                        Cell::Bytes(c.mr_bytes),
                        n(ResourceType::Pd),
                        Cell::Num(Some(c.error_qps())),
                    ],
                    alert: c.error_qps() > 0,
                    owner: Some(c.owner),
                }
            })
            .collect();
        self.table.set_rows(rows);
        self.error_qps = ctx
            .insights
            .error_qps
            .iter()
            .filter(|e| e.qp.device == self.name)
            .count();
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let body = ctx.body;
        let buf = frame.buffer_mut();
        let line = |i: u16| Rect::new(body.x, body.y + i, body.width, u16::from(i < body.height));
        let Some(device) = self.device(ctx.snapshot) else {
            let gone = Span::styled(
                format!("{}: not in this snapshot (Esc goes back)", self.name),
                theme.dim(),
            );
            put_spans(buf, line(0), &[gone]);
            return;
        };
        put_spans(buf, line(0), &ports_line(device, theme));
        put_spans(buf, line(1), &limits_line(device, ctx, theme));
        let pane = Self::pane(body);
        let errors = if self.error_qps > 0 {
            Span::styled(
                format!("  {} ERROR QPs here (e lists them)", self.error_qps),
                theme.alert(),
            )
        } else {
            Span::styled("  no ERROR QP here", theme.dim())
        };
        title_line(
            buf,
            pane.title,
            Span::styled(
                format!("Consumers on {} ({})", self.name, self.table.rows.len()),
                theme.title(),
            ),
            &[errors],
            theme.dim(),
        );
        object_table::draw(buf, &pane, &self.table, "no objects on this device", theme);
    }
}

/// `mlx5_0  port 1 ACTIVE ens1f0np0  port 2 DOWN  0000:17:00.0  VF of mlx5_0`.
fn ports_line<'a>(device: &Device, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = vec![Span::styled(device.name.clone(), theme.bold())];
    for p in &device.ports {
        let state = p.state.map(|s| s.name()).unwrap_or("?");
        let netdev = p
            .netdev
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        spans.push(Span::raw(format!("  port {} ", p.index)));
        spans.push(Span::styled(
            format!("{state}{netdev}"),
            theme.port(p.state),
        ));
    }
    if let Some(pci) = &device.pci {
        spans.push(Span::raw(format!("  {pci}")));
    }
    if let Some(pf) = &device.pf {
        spans.push(Span::raw(format!("  VF of {pf}")));
    }
    spans
}

/// `QP 1713/2048 84%  MR 12/16.8M <0.1%  CTX 3`: usage against the limits,
/// coloured by the thresholds.
fn limits_line<'a>(device: &Device, ctx: &Ctx, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = vec![Span::styled("limits ", theme.bold())];
    for t in ctx.filter.visible_types() {
        let Some(entry) = device.usage.get(t) else {
            continue;
        };
        let (text, style) = match (entry.max, entry.ratio()) {
            (Some(max), Some(ratio)) => (
                format!(
                    "{} {}/{} {}  ",
                    t.label(),
                    count(entry.current),
                    count(max),
                    percent(ratio)
                ),
                theme.level(ctx.config.thresholds.level(ratio)),
            ),
            _ => (
                format!("{} {}  ", t.label(), count(entry.current)),
                theme.plain(),
            ),
        };
        spans.push(Span::styled(text, style));
    }
    spans
}
