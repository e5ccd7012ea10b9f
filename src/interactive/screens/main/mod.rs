//! The main screen: the device pane over the top-consumers table. Tab moves
//! the focus between them; Enter opens a consumer's drill-down, a group's
//! processes or a device's view. `o` groups the consumers by container or pod.

pub(crate) mod devices_grid;
pub(crate) mod draw_consumers;
pub(crate) mod draw_devices;
pub(crate) mod trouble;

use crate::interactive::app::config::default_direction;
use crate::interactive::keys::{Command, table};
use crate::interactive::layout::{MainLayout, contains, contains_y, main_layout};
use crate::interactive::rows::consumer_columns::{
    ConsumerColumn, PlacedColumn, fit_consumer_columns_keeping,
};
use crate::interactive::rows::devices::{DeviceRow, device_rows};
use crate::interactive::rows::owner_trends::{baseline_deltas, group_deltas, sort_by_delta};
use crate::interactive::screens::device::DeviceScreen;
use crate::interactive::screens::drill::DrillView;
use crate::interactive::screens::group::GroupScreen;
use crate::interactive::screens::{CountersPick, Ctx, Pane, page_of};
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::theme::Theme;
use crate::model::OwnerKey;
use crate::model::consumers::{Consumer, SortDirection, SortKey, consumers, sort_consumers};
use crate::model::history::BaselineDelta;
use crate::model::owner_group::{OwnerGroup, OwnerGroupRow, group_consumers};
use ratatui::Frame;
use ratatui::layout::Rect;
use std::any::Any;
use std::cell::Cell;
use std::collections::BTreeMap;

/// Which main-screen pane the movement keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Devices,
    Consumers,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MainScreen {
    /// The device pane's rows as shown: the tree, or the most troubled
    /// first when the pane cannot show them all (`trouble::arrange`).
    pub devices: Vec<DeviceRow>,
    /// The devices in PF-then-VF order, as read from the snapshot.
    device_tree: Vec<DeviceRow>,
    pub device_cursor: Cursor,
    /// Every consumer the filters admit, in row order (a group's members together):
    /// the rows themselves when grouping by process.
    pub consumers: Vec<Consumer>,
    /// The consumers table's rows: consumers, or the containers or pods they run in.
    pub rows: Vec<OwnerGroupRow>,
    /// What a row of the consumers table stands for (`o` cycles).
    pub grouping: OwnerGroup,
    pub consumer_cursor: Cursor,
    /// The selected consumer, followed across refreshes, re-sorts and regrouping.
    selected_owner: Option<OwnerKey>,
    pub focus: Focus,
    pub sort: SortKey,
    pub direction: SortDirection,
    /// Per row (under its total's owner), the change since the baseline (empty without one).
    pub deltas: BTreeMap<OwnerKey, BaselineDelta>,
    /// What NAME last asked for, per (width, grouping, sparklines).
    name_wanted: Cell<Option<NameWanted>>,
}

/// The width NAME asked for at a table width, grouping and sparkline choice.
type NameWanted = ((u16, OwnerGroup, bool), u16);

impl MainScreen {
    pub fn new(sort: SortKey, direction: SortDirection, grouping: OwnerGroup) -> MainScreen {
        MainScreen {
            devices: Vec::new(),
            device_tree: Vec::new(),
            device_cursor: Cursor::default(),
            consumers: Vec::new(),
            rows: Vec::new(),
            grouping,
            consumer_cursor: Cursor::default(),
            selected_owner: None,
            focus: Focus::Consumers,
            sort,
            direction,
            deltas: BTreeMap::new(),
            name_wanted: Cell::new(None),
        }
    }

    /// The selected row's consumer: a process, or a group's members summed.
    pub fn selected_consumer(&self) -> Option<&Consumer> {
        self.selected_row().map(|r| &r.total)
    }

    pub fn selected_row(&self) -> Option<&OwnerGroupRow> {
        self.rows.get(self.consumer_cursor.selected)
    }

    /// `o`: the next grouping (process → container → pod), the selection kept on the
    /// row that holds the selected consumer.
    pub fn cycle_grouping(&mut self, ctx: &Ctx) {
        self.grouping = self.grouping.next();
        self.refresh(ctx);
    }

    pub fn layout(&self, body: Rect) -> MainLayout {
        main_layout(body, self.devices.len())
    }

    /// Sorts by the chosen column; with a baseline, counts sort by their change.
    fn resort(&mut self) {
        sort_consumers(&mut self.rows, self.sort, self.direction);
        sort_by_delta(&mut self.rows, &self.deltas, self.sort, self.direction);
        self.consumers = self
            .rows
            .iter()
            .flat_map(|r| r.members.iter().cloned())
            .collect();
        self.restore_selection();
    }

    /// The consumers table's columns at `width`, NAME as wide as the
    /// longest name asks (drawing and clicks both use this).
    ///
    /// The set chosen for a width stays for that width: NAME asks for the
    /// names alone (a growth tag that comes and goes takes what room NAME
    /// has, or shrinks to its mark), and never for less than it asked at
    /// this width before, so columns do not jump between refreshes.
    pub fn placed_columns(&self, ctx: &Ctx, width: u16) -> Vec<PlacedColumn> {
        let longest = self
            .rows
            .iter()
            .map(|r| r.cell(ConsumerColumn::Name).chars().count())
            .max()
            .unwrap_or(0);
        let asked = u16::try_from(longest).unwrap_or(u16::MAX);
        let key = (width, self.grouping, ctx.sparklines);
        let name_wanted = match self.name_wanted.get() {
            Some((k, before)) if k == key => before.max(asked),
            _ => asked,
        };
        self.name_wanted.set(Some((key, name_wanted)));
        // Grouped, the group's key tells two rows of one program apart.
        let kept = match self.grouping {
            OwnerGroup::Process => None,
            OwnerGroup::Container => Some(ConsumerColumn::Container),
            OwnerGroup::Pod => Some(ConsumerColumn::Pod),
        };
        fit_consumer_columns_keeping(ctx.filter, width, ctx.sparklines, name_wanted, kept)
    }

    /// The data columns on screen at this width, in screen order: what `s`,
    /// `<` and `>` cycle through.
    pub fn visible_columns(&self, ctx: &Ctx) -> Vec<ConsumerColumn> {
        let width = self.layout(ctx.body).consumers.header.width;
        self.placed_columns(ctx, width)
            .into_iter()
            .map(|p| p.column)
            .filter(|c| !matches!(c, ConsumerColumn::Trend(_)))
            .collect()
    }

    /// Sorts by `key` (the sort menu): the column's usual direction when it
    /// was not the sorted one.
    pub fn sort_to(&mut self, key: SortKey) {
        if self.sort != key {
            self.sort = key;
            self.direction = default_direction(key);
        }
        self.resort();
    }

    /// Sorts the consumers by `key`; choosing the sorted column again reverses it.
    pub fn sort_by(&mut self, key: SortKey) {
        if self.sort == key {
            self.direction = self.direction.reversed();
        } else {
            self.sort = key;
            self.direction = default_direction(key);
        }
        self.resort();
    }

    fn restore_selection(&mut self) {
        if let Some(owner) = &self.selected_owner
            && let Some(i) = self.rows.iter().position(|r| r.holds(owner))
        {
            self.consumer_cursor.selected = i;
        }
        self.remember_consumer();
    }

    fn remember_consumer(&mut self) {
        let len = self.rows.len();
        self.consumer_cursor.selected = self.consumer_cursor.selected.min(len.saturating_sub(1));
        // A group keeps the member it was reached by, so going back to processes
        // lands on that process.
        let selected = self.selected_row();
        let kept = matches!((selected, &self.selected_owner), (Some(r), Some(o)) if r.holds(o));
        if !kept {
            self.selected_owner = selected.map(|r| r.total.owner.clone());
        }
    }

    /// Orders the device rows for the pane's room at this size, the
    /// selected device kept selected.
    fn arrange_devices(&mut self, ctx: &Ctx) {
        let room = usize::from(
            main_layout(ctx.body, self.device_tree.len())
                .devices
                .rows
                .height,
        );
        let selected = self
            .devices
            .get(self.device_cursor.selected)
            .map(|d| d.name.clone());
        self.devices = trouble::arrange(&self.device_tree, room, &ctx.config.thresholds);
        // Followed only while the pane has the focus: unfocused, the pane
        // shows its first (most troubled) rows, not an old selection.
        let selected = selected.filter(|_| self.focus == Focus::Devices);
        match selected.and_then(|n| self.devices.iter().position(|d| d.name == n)) {
            Some(i) => self.device_cursor.selected = i,
            None if self.focus != Focus::Devices => self.device_cursor = Cursor::default(),
            None => {}
        }
    }

    fn click_devices(&mut self, main: &MainLayout, y: u16) {
        self.focus = Focus::Devices;
        if let Some(i) = main.devices.row_at(y) {
            let len = self.devices.len();
            let height = usize::from(main.devices.rows.height);
            let offset = visible_offset(self.device_cursor, len, height);
            if offset + i < len {
                self.device_cursor.selected = offset + i;
            }
        }
    }

    fn click_consumers(&mut self, main: &MainLayout, x: u16, y: u16, ctx: &Ctx) {
        let pane = main.consumers;
        self.focus = Focus::Consumers;
        if contains_y(pane.header, y) {
            let placed = self.placed_columns(ctx, pane.header.width);
            let rel = x.saturating_sub(pane.header.x);
            if let Some(p) = placed.iter().find(|p| rel >= p.x && rel < p.x + p.width) {
                self.sort_by(p.column.sort_key());
            }
        } else if let Some(i) = pane.row_at(y) {
            let len = self.rows.len();
            let height = usize::from(pane.rows.height);
            if self.consumer_cursor.select_visible(i, len, height) {
                self.remember_consumer();
            }
        }
    }
}

impl Pane for MainScreen {
    fn selected_process(&self) -> Option<&Consumer> {
        match self.focus {
            Focus::Consumers => self.selected_consumer(),
            Focus::Devices => None,
        }
    }

    fn id(&self) -> &'static str {
        "main"
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        self.device_tree = device_rows(snapshot, ctx.filter, &ctx.history.counters().alerts());
        self.arrange_devices(ctx);
        let consumers = consumers(snapshot, ctx.filter);
        let deltas = baseline_deltas(ctx.history, snapshot, &consumers, ctx.filter);
        self.rows = group_consumers(&consumers, self.grouping);
        self.deltas = group_deltas(&self.rows, &deltas);
        self.resort();
    }

    fn settle(&mut self, ctx: &Ctx) {
        self.arrange_devices(ctx);
        let main = self.layout(ctx.body);
        self.device_cursor
            .settle(self.devices.len(), usize::from(main.devices.rows.height));
        self.consumer_cursor
            .settle(self.rows.len(), usize::from(main.consumers.rows.height));
    }

    fn page_rows(&self, ctx: &Ctx) -> u16 {
        let main = self.layout(ctx.body);
        page_of(match self.focus {
            Focus::Devices => main.devices.rows.height,
            Focus::Consumers => main.consumers.rows.height,
        })
    }

    fn move_selection(&mut self, delta: isize, _ctx: &Ctx) {
        match self.focus {
            Focus::Devices => self.device_cursor.move_by(delta, self.devices.len()),
            Focus::Consumers => {
                self.consumer_cursor.move_by(delta, self.rows.len());
                self.remember_consumer();
            }
        }
    }

    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Pane>> {
        if self.focus == Focus::Devices {
            let device = self.devices.get(self.device_cursor.selected)?;
            return Some(Box::new(DeviceScreen::new(device.name.clone())));
        }
        let row = self.selected_row()?;
        if row.is_group() {
            return Some(Box::new(GroupScreen::new(row, self.grouping)));
        }
        Some(Box::new(DrillView::new(
            row.total.owner.clone(),
            ctx.filter,
        )))
    }

    fn counters_port(&self, _ctx: &Ctx) -> Option<CountersPick> {
        let device = self.devices.get(self.device_cursor.selected)?;
        let port = device.ports.first()?;
        Some(Ok((device.name.clone(), port.index)))
    }

    fn step_sort(&mut self, step: isize, ctx: &Ctx) {
        let cols = self.visible_columns(ctx);
        let n = cols.len() as isize;
        let current = cols.iter().position(|c| c.sort_key() == self.sort);
        let next = match current {
            Some(i) => (i as isize + step).rem_euclid(n) as usize,
            None => 0,
        };
        if let Some(c) = cols.get(next) {
            self.sort = c.sort_key();
            self.direction = default_direction(self.sort);
        }
        self.resort();
    }

    fn reverse_sort(&mut self, _ctx: &Ctx) {
        self.direction = self.direction.reversed();
        self.resort();
    }

    fn next_pane(&mut self, _step: isize, tab_key: bool, _ctx: &Ctx) {
        if tab_key {
            self.focus = match self.focus {
                Focus::Devices => Focus::Consumers,
                Focus::Consumers => Focus::Devices,
            };
        }
    }

    fn wheel(&mut self, x: u16, y: u16, delta: isize, ctx: &Ctx) {
        let main = self.layout(ctx.body);
        if contains(main.devices.area(), x, y) {
            self.device_cursor.scroll_by(
                delta,
                self.devices.len(),
                usize::from(main.devices.rows.height),
            );
        } else {
            self.consumer_cursor.scroll_by(
                delta,
                self.rows.len(),
                usize::from(main.consumers.rows.height),
            );
            self.remember_consumer();
        }
    }

    fn click(&mut self, x: u16, y: u16, ctx: &Ctx) {
        if !contains(ctx.body, x, y) {
            return;
        }
        let main = self.layout(ctx.body);
        if contains(main.devices.area(), x, y) {
            self.click_devices(&main, y);
        } else if contains(main.consumers.area(), x, y) {
            self.click_consumers(&main, x, y, ctx);
        }
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let main = self.layout(ctx.body);
        crate::interactive::screens::main::draw_devices::draw(
            frame,
            &main.devices,
            self,
            ctx,
            theme,
        );
        crate::interactive::screens::main::draw_consumers::draw(
            frame,
            &main.consumers,
            self,
            ctx,
            theme,
        );
    }

    fn hints(&self) -> &'static [&'static Command] {
        // Grouped, the footer says so (and that `o` goes on to the next grouping).
        match self.grouping {
            OwnerGroup::Process => &[
                &table::OPEN_DETAILS,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
            ],
            OwnerGroup::Container => &[
                &table::OPEN,
                &table::BY_CONTAINER,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
            ],
            OwnerGroup::Pod => &[
                &table::OPEN,
                &table::BY_POD,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
            ],
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
