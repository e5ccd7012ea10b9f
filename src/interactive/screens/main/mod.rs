//! The main screen: the problems strip (what is wrong, most severe first),
//! the devices table, then the top-consumers table and, on terminals of 40
//! rows or more, the ERROR QPs whenever there are any (`e` opens them as a
//! screen of their own). The panes share the rows as `layout::main_panes`
//! says: none stays empty while another is cut. Tab moves the focus
//! between them; Enter opens a consumer's drill-down, a group's processes, a
//! device screen or what a problem is about. `o` groups the consumers by
//! container or pod.

pub(crate) mod devices_grid;
pub(crate) mod draw_consumers;
pub(crate) mod draw_devices;
pub(crate) mod problems_strip;
pub(crate) mod trouble;

use crate::interactive::config::default_direction;
use crate::interactive::keys::{Action, Command, table};
use crate::interactive::layout::{
    MainLayout, MainWants, TableArea, contains, contains_y, main_panes,
};
use crate::interactive::rows::consumer_columns::{
    ConsumerColumn, PlacedColumn, fit_consumer_columns_keeping,
};
use crate::interactive::rows::devices::{DeviceRow, device_rows};
use crate::interactive::rows::owner_trends::{baseline_deltas, group_deltas, sort_by_delta};
use crate::interactive::screens::device::DeviceScreen;
use crate::interactive::screens::drill::DrillScreen;
use crate::interactive::screens::error_qps::ErrorQpScreen;
use crate::interactive::screens::group::GroupScreen;
use crate::interactive::screens::table::{TableScreen, settle_table};
use crate::interactive::screens::{
    CountersPick, Ctx, Gesture, Outcome, Screen, gesture, page_of, selection_step,
};
use crate::interactive::widgets::cursor::{Cursor, visible_offset};
use crate::interactive::widgets::paint::title_line;
use crate::interactive::widgets::table::draw as table_draw;
use crate::interactive::widgets::theme::Theme;
use crate::model::OwnerKey;
use crate::model::consumers::{Consumer, SortDirection, SortKey, consumers, sort_consumers};
use crate::model::history::BaselineDelta;
use crate::model::owner_group::{OwnerGroup, OwnerGroupRow, group_consumers};
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use std::any::Any;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

/// Which part of the main screen the movement keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The problems strip (only while it lists something).
    Problems,
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
    /// The selected entry of the problems strip.
    pub problem_cursor: Cursor,
    /// How many problems the strip has to show (its height follows).
    problems_len: usize,
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
    /// PFs whose VFs `v` opened in the devices pane (`trouble::arrange`).
    open_pfs: BTreeSet<String>,
    /// The ERROR QPs the pane under the consumers lists (on tall terminals).
    pub error_pane: ErrorQpScreen,
}

/// The width NAME asked for at a table width, grouping and sparkline choice.
type NameWanted = ((u16, OwnerGroup, bool), u16);

impl MainScreen {
    pub fn new(sort: SortKey, direction: SortDirection, grouping: OwnerGroup) -> MainScreen {
        MainScreen {
            devices: Vec::new(),
            device_tree: Vec::new(),
            problem_cursor: Cursor::default(),
            problems_len: 0,
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
            open_pfs: BTreeSet::new(),
            error_pane: ErrorQpScreen::default(),
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

    /// The problems strip and the panes under it.
    pub fn layout(&self, body: Rect) -> MainLayout {
        main_panes(body, self.wants(body, self.devices.len()))
    }

    /// What each pane has to show, with `devices` device rows.
    fn wants(&self, body: Rect, devices: usize) -> MainWants {
        MainWants {
            problems: self.problems_len,
            strip: problems_strip::strip_height(body.height, self.problems_len),
            devices,
            consumers: self.rows.len(),
            error_qps: self.error_pane.table.rows.len(),
        }
    }

    /// Orders the device rows for the pane's room at this size, the
    /// selected device kept selected while the pane has the focus.
    fn arrange_devices(&mut self, ctx: &Ctx) {
        let wants = self.wants(ctx.body, self.device_tree.len());
        let room = usize::from(main_panes(ctx.body, wants).devices.rows.height);
        let selected = self
            .devices
            .get(self.device_cursor.selected)
            .map(|d| d.name.clone())
            .filter(|_| self.focus == Focus::Devices);
        self.devices = trouble::arrange(
            &self.device_tree,
            room,
            &ctx.config.thresholds,
            &self.open_pfs,
        );
        // Unfocused, the pane shows its first (most troubled) rows, not an
        // old selection.
        match selected.and_then(|n| self.devices.iter().position(|d| d.name == n)) {
            Some(i) => self.device_cursor.selected = i,
            None if self.focus != Focus::Devices => self.device_cursor = Cursor::default(),
            None => {}
        }
    }

    /// `v`: opens or folds the selected PF's VFs, the PF kept selected.
    fn toggle_vfs(&mut self, ctx: &Ctx) -> Outcome {
        if self.focus != Focus::Devices {
            return Outcome::Status("v: select a PF in the devices pane first (Tab)".to_string());
        }
        let Some(pf) = trouble::toggle(
            &self.devices,
            self.device_cursor.selected,
            &mut self.open_pfs,
        ) else {
            return Outcome::Status("no VFs to show or fold here".to_string());
        };
        self.arrange_devices(ctx);
        if let Some(i) = self.devices.iter().position(|d| d.name == pf) {
            self.device_cursor.selected = i;
        }
        Outcome::Handled
    }

    /// Takes in how many problems there are to show; the strip's focus
    /// moves on when it empties.
    fn count_problems(&mut self, ctx: &Ctx) {
        self.problems_len = ctx.insights.problems.len();
        if self.problems_len == 0 && self.focus == Focus::Problems {
            self.focus = Focus::Consumers;
        }
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

    /// Rows a page key moves in the focused table.
    fn page_rows(&self, ctx: &Ctx) -> u16 {
        let main = self.layout(ctx.body);
        page_of(match self.focus {
            Focus::Problems => main.strip.height,
            Focus::Devices => main.devices.rows.height,
            Focus::Consumers => main.consumers.rows.height,
        })
    }

    fn move_selection(&mut self, delta: isize) {
        match self.focus {
            Focus::Problems => self.problem_cursor.move_by(delta, self.problems_len),
            Focus::Devices => self.device_cursor.move_by(delta, self.devices.len()),
            Focus::Consumers => {
                self.consumer_cursor.move_by(delta, self.rows.len());
                self.remember_consumer();
            }
        }
    }

    /// Enter: the selected device's screen, a group's processes or a
    /// consumer's drill-down.
    fn enter(&mut self, ctx: &Ctx) -> Option<Box<dyn Screen>> {
        if self.focus == Focus::Problems {
            let p = ctx.insights.problems.get(self.problem_cursor.selected)?;
            return Some(problems_strip::open(p, ctx.filter));
        }
        if self.focus == Focus::Devices {
            let device = self.devices.get(self.device_cursor.selected)?;
            return Some(Box::new(DeviceScreen::new(device.name.clone())));
        }
        let row = self.selected_row()?;
        if row.is_group() {
            return Some(Box::new(GroupScreen::new(row, self.grouping)));
        }
        Some(Box::new(DrillScreen::new(
            row.total.owner.clone(),
            ctx.filter,
        )))
    }

    /// `c`: the first port of the selected device.
    fn counters_port(&self, ctx: &Ctx) -> Option<CountersPick> {
        if self.focus == Focus::Problems {
            let p = ctx.insights.problems.get(self.problem_cursor.selected)?;
            return problems_strip::counters_of(p, ctx);
        }
        let device = self.devices.get(self.device_cursor.selected)?;
        let port = device.ports.first()?;
        Some(Ok((device.name.clone(), port.index)))
    }

    /// `s`, `>`, `<`: the next (or previous) column shown at this width.
    fn step_sort(&mut self, step: isize, ctx: &Ctx) -> Outcome {
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
        Outcome::Handled
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
        let area = main.consumers;
        self.focus = Focus::Consumers;
        if contains_y(area.header, y) {
            let placed = self.placed_columns(ctx, area.header.width);
            let rel = x.saturating_sub(area.header.x);
            if let Some(p) = placed.iter().find(|p| rel >= p.x && rel < p.x + p.width) {
                self.sort_by(p.column.sort_key());
            }
        } else if let Some(i) = area.row_at(y) {
            let len = self.rows.len();
            let height = usize::from(area.rows.height);
            if self.consumer_cursor.select_visible(i, len, height) {
                self.remember_consumer();
            }
        }
    }
}

impl Screen for MainScreen {
    fn selected_process(&self) -> Option<&Consumer> {
        match self.focus {
            Focus::Consumers => self.selected_consumer(),
            Focus::Devices | Focus::Problems => None,
        }
    }

    fn id(&self) -> &'static str {
        "main"
    }

    fn refresh(&mut self, ctx: &Ctx) {
        let Some(snapshot) = ctx.snapshot else {
            return;
        };
        self.count_problems(ctx);
        TableScreen::refresh(&mut self.error_pane, ctx);
        let consumers = consumers(snapshot, ctx.filter);
        let deltas = baseline_deltas(ctx.history, snapshot, &consumers, ctx.filter);
        self.rows = group_consumers(&consumers, self.grouping);
        self.deltas = group_deltas(&self.rows, &deltas);
        self.resort();
        // The device pane's room depends on what the others need.
        self.device_tree = device_rows(snapshot, ctx.filter, &ctx.history.counters().alerts());
        self.arrange_devices(ctx);
    }

    fn settle(&mut self, ctx: &Ctx) {
        self.count_problems(ctx);
        self.arrange_devices(ctx);
        let main = self.layout(ctx.body);
        self.problem_cursor
            .settle(self.problems_len, usize::from(main.strip.height));
        settle_table(&mut self.error_pane.table, &main.error_qps);
        self.device_cursor
            .settle(self.devices.len(), usize::from(main.devices.rows.height));
        self.consumer_cursor
            .settle(self.rows.len(), usize::from(main.consumers.rows.height));
    }

    fn on_action(&mut self, action: Action, ctx: &Ctx) -> Outcome {
        if let Some(delta) = selection_step(action, self.page_rows(ctx)) {
            self.move_selection(delta);
            return Outcome::Handled;
        }
        match action {
            Action::Enter => match self.enter(ctx) {
                Some(screen) => Outcome::Open(screen),
                None => Outcome::Handled,
            },
            Action::Counters => match self.counters_port(ctx) {
                Some(pick) => pick.into(),
                None => Outcome::Pass,
            },
            Action::Vfs => self.toggle_vfs(ctx),
            Action::SortNext => self.step_sort(1, ctx),
            Action::SortPrev => self.step_sort(-1, ctx),
            Action::Reverse => {
                self.direction = self.direction.reversed();
                self.resort();
                Outcome::Handled
            }
            // Tab: consumers → devices → problems (while there are any);
            // Shift-Tab the other way.
            Action::NextPart | Action::PrevPart => {
                let strip = self.problems_len > 0;
                let forward = action == Action::NextPart;
                self.focus = match (self.focus, forward) {
                    (Focus::Consumers, true) | (Focus::Problems, false) => Focus::Devices,
                    (Focus::Devices, true) if strip => Focus::Problems,
                    (Focus::Consumers, false) if strip => Focus::Problems,
                    (Focus::Consumers, false) => Focus::Devices,
                    _ => Focus::Consumers,
                };
                Outcome::Handled
            }
            _ => Outcome::Pass,
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent, ctx: &Ctx) -> Outcome {
        match gesture(mouse) {
            Some(Gesture::Wheel { x, y, rows }) => self.wheel(x, y, rows, ctx),
            Some(Gesture::Click { x, y }) => self.click(x, y, ctx),
            None => return Outcome::Pass,
        }
        Outcome::Handled
    }

    fn render(&self, frame: &mut Frame, _area: Rect, ctx: &Ctx, theme: &Theme) {
        let main = self.layout(ctx.body);
        problems_strip::draw(
            frame.buffer_mut(),
            main.strip,
            &ctx.insights.problems,
            self.problem_cursor,
            self.focus == Focus::Problems,
            ctx,
            theme,
        );
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
        draw_error_qps(frame, &main.error_qps, &self.error_pane, ctx, theme);
    }

    fn hints(&self) -> &'static [&'static Command] {
        // Grouped, the footer says so (and that `o` goes on to the next grouping).
        match self.grouping {
            OwnerGroup::Process => &[
                &table::OPEN_DETAILS,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
                &table::MAIN_COUNTERS,
                &table::PANES,
            ],
            OwnerGroup::Container => &[
                &table::OPEN,
                &table::BY_CONTAINER,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
                &table::MAIN_COUNTERS,
                &table::PANES,
            ],
            OwnerGroup::Pod => &[
                &table::OPEN,
                &table::BY_POD,
                &table::ERRORS,
                &table::FILTER,
                &table::SORT_MENU,
                &table::MAIN_COUNTERS,
                &table::PANES,
            ],
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The ERROR-QP pane under the consumers: the `e` screen's title and table,
/// its note saying which key acts on them.
fn draw_error_qps(
    frame: &mut Frame,
    area: &TableArea,
    pane: &ErrorQpScreen,
    ctx: &Ctx,
    theme: &Theme,
) {
    if area.area().height == 0 {
        return;
    }
    let buf = frame.buffer_mut();
    let note = Span::styled("  e: open them", theme.dim());
    title_line(
        buf,
        area.title,
        pane.title(ctx, theme),
        &[note],
        theme.dim(),
    );
    table_draw::draw(buf, area, &pane.table, pane.empty_text(ctx), theme);
}
