//! The device screen (Enter on a device row): the device's ports with their
//! traffic and health, its limits and the rdma cgroup quotas on it, its
//! ERROR QPs, and every owner's objects on this device alone. Tab moves
//! between the ports and the consumers; Enter on a port (or `c`) opens its
//! counters, Enter on a consumer its drill-down.

pub(crate) mod draw;

use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{TableArea, contains, contains_y};
use crate::interactive::rows::devices::PortSummary;
use crate::interactive::screens::device::draw::{
    draw_error_qps, draw_ports, identity_line, limits_line, port_line, quotas_line,
};
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::port_counters::PortCountersScreen;
use crate::interactive::screens::table::{
    click_table, move_table, settle_table, sort_step, wheel_table,
};
use crate::interactive::screens::{
    CountersPick, Ctx, Gesture, Outcome, Screen, gesture, page_of, selection_step,
};
use crate::interactive::widgets::fit::{wrap_parts, wrap_spans};
use crate::interactive::widgets::paint::{put_spans, title_line};
use crate::interactive::widgets::table::draw as table_draw;
use crate::interactive::widgets::table::{Cell, Column, ObjectTable, Row};
use crate::interactive::widgets::theme::Theme;
use crate::model::consumers::{SortDirection, consumers};
use crate::model::filter::Filter;
use crate::model::history::ErrorQpInsight;
use crate::model::{Device, ResourceType, Snapshot};
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;

/// Ports shown, one line each at least.
pub const MAX_PORTS: usize = 4;
/// Lines one port's line may wrap onto.
const PORT_LINES_MAX: u16 = 3;

/// The QP column, sorted on by default.
const QP_COLUMN: usize = 2;

/// Which part the movement keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceFocus {
    Ports,
    Consumers,
}

/// Where each part of the view goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLayout {
    pub identity: Rect,
    pub ports: Rect,
    /// Lines each of the first ports takes in `ports`: more than one where
    /// its line wraps onto rows the table leaves empty.
    pub port_lines: [u16; MAX_PORTS],
    pub limits: Rect,
    pub quotas: Rect,
    pub errors_title: Rect,
    pub errors: Rect,
    pub table: TableArea,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeviceScreen {
    pub name: String,
    pub ports: Vec<PortSummary>,
    pub port_cursor: usize,
    pub focus: DeviceFocus,
    /// Every owner holding objects on this device, with its counts here.
    pub table: ObjectTable,
    /// The device's QPs in ERR/SQE.
    pub error_qps: usize,
    /// How wide the limits line is whole: it wraps onto the rows the
    /// consumers table leaves empty rather than lose its last types.
    pub limits_width: usize,
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
            ports: Vec::new(),
            port_cursor: 0,
            focus: DeviceFocus::Consumers,
            table: ObjectTable::new(columns, QP_COLUMN, SortDirection::Descending),
            error_qps: 0,
            limits_width: 0,
        }
    }

    /// Lines for each part: ports as many as there are (up to 4), the
    /// ERROR QPs a few when there is room; the table takes the rest.
    pub fn layout(&self, body: Rect) -> DeviceLayout {
        let mut y = body.y;
        let bottom = body.y + body.height;
        let ports = u16::try_from(self.ports.len().clamp(1, 4)).unwrap_or(4);
        let quotas_h = u16::from(body.height >= 16);
        let error_rows = match body.height {
            h if self.error_qps == 0 || h < 16 => 0,
            h if h < 30 => 2,
            _ => 5,
        };
        let errors_h = u16::from(self.error_qps > 0 && body.height >= 12)
            + error_rows.min(u16::try_from(self.error_qps).unwrap_or(5));
        // Rows the consumers table would leave empty go to the limits line.
        let table_want = u16::try_from(self.table.rows.len().max(1))
            .unwrap_or(u16::MAX)
            .saturating_add(2);
        let spare = body
            .height
            .saturating_sub(1 + ports + 1 + quotas_h + errors_h)
            .saturating_sub(table_want);
        let width = usize::from(body.width.max(1));
        let limits_want = u16::try_from(self.limits_width.div_ceil(width).clamp(1, 3)).unwrap_or(1);
        let limits_extra = (limits_want - 1).min(spare);
        // What the limits leave goes to port lines that wrap, first port first.
        let mut spare_ports = spare - limits_extra;
        let mut port_lines = [0u16; MAX_PORTS];
        for (n, p) in port_lines.iter_mut().zip(&self.ports) {
            let want = wrap_spans(
                port_line(p, body.width, &Theme::new(false)),
                width,
                usize::from(PORT_LINES_MAX),
            )
            .len();
            let extra = u16::try_from(want.saturating_sub(1))
                .unwrap_or(0)
                .min(spare_ports);
            spare_ports -= extra;
            *n = 1 + extra;
        }
        let ports = ports + port_lines.iter().map(|n| n.saturating_sub(1)).sum::<u16>();
        let mut take = |h: u16| {
            let h = h.min(bottom - y);
            let r = Rect::new(body.x, y, body.width, h);
            y += h;
            r
        };
        let identity = take(1);
        let ports = take(ports);
        let limits = take(1 + limits_extra);
        let quotas = take(quotas_h);
        let errors_title = take(u16::from(self.error_qps > 0 && body.height >= 12));
        let errors = take(error_rows.min(u16::try_from(self.error_qps).unwrap_or(5)));
        let table = TableArea::new(take(u16::MAX));
        DeviceLayout {
            identity,
            ports,
            port_lines,
            limits,
            quotas,
            errors_title,
            errors,
            table,
        }
    }

    fn device<'a>(&self, snapshot: Option<&'a Snapshot>) -> Option<&'a Device> {
        snapshot?.devices.iter().find(|d| d.name == self.name)
    }

    fn errors<'a>(&self, ctx: &Ctx<'a>) -> Vec<&'a ErrorQpInsight> {
        ctx.insights
            .error_qps
            .iter()
            .filter(|e| e.qp.device == self.name)
            .collect()
    }

    fn move_selection(&mut self, delta: isize) {
        match self.focus {
            DeviceFocus::Ports => {
                let last = self.ports.len().saturating_sub(1);
                self.port_cursor = self.port_cursor.saturating_add_signed(delta).min(last);
            }
            DeviceFocus::Consumers => move_table(&mut self.table, delta),
        }
    }

    /// Enter: the selected port's counters, or a consumer's drill-down.
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        if self.focus == DeviceFocus::Ports {
            let (device, port) = self.counters_port()?.ok()?;
            return Some(Box::new(PortCountersScreen::new(device, port)));
        }
        let owner = self.table.selected()?.owner.clone()?;
        Some(Box::new(DrillScreen::new(owner, ctx.filter)))
    }

    /// `c`: the selected port (the first one before any is selected).
    fn counters_port(&self) -> Option<CountersPick> {
        let port = self.selected_port().or(self.ports.first())?;
        Some(Ok((self.name.clone(), port.index)))
    }

    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if !contains(ctx.body, x, y) {
            return;
        }
        let layout = self.layout(ctx.body);
        if contains_y(layout.ports, y) {
            let row = y - layout.ports.y;
            let mut top = 0u16;
            let at = layout.port_lines.iter().position(|n| {
                top += n;
                row < top
            });
            if let Some(i) = at.filter(|i| *i < self.ports.len()) {
                self.focus = DeviceFocus::Ports;
                self.port_cursor = i;
            }
        } else if contains(layout.table.area(), x, y) {
            self.focus = DeviceFocus::Consumers;
            click_table(&mut self.table, &layout.table, x, y);
        }
    }

    fn selected_port(&self) -> Option<&PortSummary> {
        self.ports.get(self.port_cursor)
    }
}

impl Screen for DeviceScreen {
    fn id(&self) -> &'static str {
        "device"
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        let alerts = ctx.history.counters().alerts();
        self.ports = self
            .device(Some(snapshot))
            .map(|d| {
                d.ports
                    .iter()
                    .map(|p| PortSummary::new(p, &d.name, &alerts))
                    .collect()
            })
            .unwrap_or_default();
        self.port_cursor = self.port_cursor.min(self.ports.len().saturating_sub(1));
        // Only the text's width is read: the colours do not change it.
        self.limits_width = self
            .device(Some(snapshot))
            .map(|d| {
                let spans = limits_line(d, ctx, &Theme::new(false));
                crate::interactive::widgets::fit::spans_width(&spans)
            })
            .unwrap_or(0);
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
        self.error_qps = self.errors(ctx).len();
    }

    fn settle(&mut self, ctx: &Ctx) {
        let area = self.layout(ctx.body).table;
        settle_table(&mut self.table, &area);
    }

    fn on_action(&mut self, action: Action, ctx: &Ctx) -> Outcome {
        let page = page_of(self.layout(ctx.body).table.rows.height);
        if let Some(delta) = selection_step(action, page) {
            self.move_selection(delta);
            return Outcome::Handled;
        }
        match action {
            Action::Enter => match self.enter(ctx) {
                Some(screen) => Outcome::Open(screen),
                None => Outcome::Handled,
            },
            Action::Counters => match self.counters_port() {
                Some(pick) => pick.into(),
                None => Outcome::Pass,
            },
            Action::SortNext => sort_step(&mut self.table, 1),
            Action::SortPrev => sort_step(&mut self.table, -1),
            Action::Reverse => {
                self.table.reverse();
                Outcome::Handled
            }
            // Tab switches between the ports and the consumers.
            Action::NextPart | Action::PrevPart => {
                self.focus = match self.focus {
                    DeviceFocus::Ports => DeviceFocus::Consumers,
                    DeviceFocus::Consumers => DeviceFocus::Ports,
                };
                Outcome::Handled
            }
            _ => Outcome::Pass,
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, ctx: &Ctx) -> Outcome {
        match gesture(mouse) {
            Some(Gesture::Wheel { rows, .. }) => {
                let area = self.layout(ctx.body).table;
                wheel_table(&mut self.table, &area, rows);
            }
            Some(Gesture::Click { x, y }) => self.click(x, y, ctx),
            None => return Outcome::Pass,
        }
        Outcome::Handled
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let layout = self.layout(ctx.body);
        let buf = frame.buffer_mut();
        let Some(device) = self.device(ctx.snapshot) else {
            let gone = Span::styled(
                format!("{}: not in this snapshot (Esc goes back)", self.name),
                theme.dim(),
            );
            put_spans(buf, layout.identity, &[gone]);
            return;
        };
        put_spans(buf, layout.identity, &identity_line(device, theme));
        let selected = (self.focus == DeviceFocus::Ports).then_some(self.port_cursor);
        draw_ports(buf, &layout, &self.ports, selected, theme);
        let parts = limits_line(device, ctx, theme)
            .into_iter()
            .map(|span| vec![span])
            .collect();
        let lines = wrap_parts(
            parts,
            usize::from(layout.limits.width),
            usize::from(layout.limits.height),
        );
        for (i, line) in lines.iter().enumerate() {
            let y = layout.limits.y + u16::try_from(i).unwrap_or(0);
            put_spans(
                buf,
                Rect::new(layout.limits.x, y, layout.limits.width, 1),
                line,
            );
        }
        if let Some(snapshot) = ctx.snapshot {
            put_spans(
                buf,
                layout.quotas,
                &quotas_line(snapshot, &self.name, ctx, theme),
            );
        }
        if layout.errors_title.height > 0 {
            let errors = self.errors(ctx);
            draw_error_qps(buf, layout.errors_title, layout.errors, &errors, theme);
        }
        let area = layout.table;
        let errors = if self.error_qps > 0 {
            Span::styled(
                format!("  {} ERROR QPs here (e lists them)", self.error_qps),
                theme.alert(),
            )
        } else {
            Span::styled("  no ERROR QP here", theme.dim())
        };
        let title_style = if self.focus == DeviceFocus::Consumers {
            theme.title()
        } else {
            theme.bold()
        };
        title_line(
            buf,
            area.title,
            Span::styled(
                format!("Consumers on {} ({})", self.name, self.table.rows.len()),
                title_style,
            ),
            &[errors],
            theme.dim(),
        );
        table_draw::draw(buf, &area, &self.table, "no objects on this device", theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        &[
            &table::BACK,
            &table::OPEN,
            &table::PORTS_OR_CONSUMERS,
            &table::COUNTERS,
            &table::SORT_NEXT,
        ]
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
