//! Where everything goes on screen, as a pure function of the terminal size
//! and the state. Drawing and mouse hit-testing both use it, so a click lands
//! on what was drawn there.

use ratatui::layout::Rect;

/// Below this the screen only says that the terminal is too small.
pub(crate) const MIN_WIDTH: u16 = 40;
pub(crate) const MIN_HEIGHT: u16 = 10;

pub(crate) const HEADER_HEIGHT: u16 = 2;
pub(crate) const FOOTER_HEIGHT: u16 = 1;

pub(crate) fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameLayout {
    pub header: Rect,
    pub body: Rect,
    pub footer: Rect,
}

pub(crate) fn frame_layout(area: Rect) -> FrameLayout {
    let header_h = HEADER_HEIGHT.min(area.height);
    let footer_h = FOOTER_HEIGHT.min(area.height.saturating_sub(header_h));
    let body_h = area.height.saturating_sub(header_h + footer_h);
    FrameLayout {
        header: Rect::new(area.x, area.y, area.width, header_h),
        body: Rect::new(area.x, area.y + header_h, area.width, body_h),
        footer: Rect::new(area.x, area.y + header_h + body_h, area.width, footer_h),
    }
}

/// A titled table: a title line, a column-header line, then rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableArea {
    pub title: Rect,
    pub header: Rect,
    pub rows: Rect,
}

impl TableArea {
    pub fn new(area: Rect) -> TableArea {
        let title_h = 1.min(area.height);
        let header_h = 1.min(area.height.saturating_sub(title_h));
        TableArea {
            title: Rect::new(area.x, area.y, area.width, title_h),
            header: Rect::new(area.x, area.y + title_h, area.width, header_h),
            rows: Rect::new(
                area.x,
                area.y + title_h + header_h,
                area.width,
                area.height.saturating_sub(title_h + header_h),
            ),
        }
    }

    /// The row index (before scrolling) under screen line `y`.
    pub fn row_at(&self, y: u16) -> Option<usize> {
        contains_y(self.rows, y).then(|| usize::from(y - self.rows.y))
    }

    pub fn area(&self) -> Rect {
        Rect::new(
            self.title.x,
            self.title.y,
            self.title.width,
            self.title.height + self.header.height + self.rows.height,
        )
    }
}

pub(crate) fn contains_y(r: Rect, y: u16) -> bool {
    y >= r.y && y < r.y.saturating_add(r.height)
}

pub(crate) fn contains(r: Rect, x: u16, y: u16) -> bool {
    contains_y(r, y) && x >= r.x && x < r.x.saturating_add(r.width)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MainLayout {
    /// The problems strip (no rows without problems).
    pub strip: Rect,
    pub devices: TableArea,
    pub consumers: TableArea,
    /// The ERROR QPs under the consumers (no rows on small terminals or
    /// without ERROR QPs).
    pub error_qps: TableArea,
}

/// What the main screen's panes have to show, in lines: the problems strip's
/// entries and the height its share rule gives it, the device rows, the
/// consumer rows and the ERROR QPs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MainWants {
    pub problems: usize,
    pub strip: u16,
    pub devices: usize,
    pub consumers: usize,
    pub error_qps: usize,
}

/// Terminal rows from which the ERROR QPs have a pane on the main screen.
pub(crate) const ERROR_PANE_MIN_ROWS: u16 = 40;

/// Splits the main screen: the devices table takes what its devices need, up to
/// about half the body, so the consumers table always keeps some rows.
#[cfg(test)]
pub(crate) fn main_layout(body: Rect, device_rows: usize) -> MainLayout {
    main_panes(
        body,
        MainWants {
            devices: device_rows,
            // The consumers take whatever the devices leave.
            consumers: usize::MAX,
            ..MainWants::default()
        },
    )
}

/// Splits the main screen, top to bottom: the problems strip, the devices,
/// the consumers and, with at least [`ERROR_PANE_MIN_ROWS`] terminal rows and
/// ERROR QPs to list, their pane (as many rows as they need, up to a quarter
/// of what is under the strip). Each part starts at its own rule (the strip's
/// share, the devices up to about half, the consumers the rest); then the rows
/// the consumers cannot fill go to the parts that cannot show all their lines
/// (strip, devices, ERROR QPs, in that order), so no pane stays empty while
/// another is cut.
pub(crate) fn main_panes(body: Rect, wants: MainWants) -> MainLayout {
    let strip_h = wants.strip.min(body.height);
    let rest = body.height - strip_h;
    let device_want = lines(wants.devices.max(1)).saturating_add(2);
    let cap = (rest / 2).max(4);
    let mut devices_h = device_want.min(cap).min(rest);
    if rest.saturating_sub(devices_h) < 4 {
        devices_h = rest.saturating_sub(4).max(rest.min(3));
    }
    let terminal_rows = body.height + HEADER_HEIGHT + FOOTER_HEIGHT;
    let error_want = if wants.error_qps > 0 && terminal_rows >= ERROR_PANE_MIN_ROWS {
        lines(wants.error_qps).saturating_add(2)
    } else {
        0
    };
    let consumer_min = 6;
    let mut error_h = error_want
        .min((rest / 4).max(3))
        .min(rest.saturating_sub(devices_h + consumer_min));
    if error_h < 3 {
        error_h = 0;
    }
    let mut consumers_h = rest.saturating_sub(devices_h + error_h);
    let mut strip_h = strip_h;
    // Rows the consumers leave empty go to whoever is cut.
    let consumer_want = lines(wants.consumers.max(1)).saturating_add(2);
    let mut spare = consumers_h.saturating_sub(consumer_want);
    let problem_lines = lines(wants.problems);
    let error_want = if error_h > 0 { error_want } else { 0 };
    for (got, want) in [
        (&mut strip_h, problem_lines),
        (&mut devices_h, device_want),
        (&mut error_h, error_want),
    ] {
        let more = want.saturating_sub(*got).min(spare);
        *got += more;
        spare -= more;
        consumers_h -= more;
    }
    let strip = Rect::new(body.x, body.y, body.width, strip_h);
    let devices = Rect::new(body.x, body.y + strip_h, body.width, devices_h);
    let consumers = Rect::new(
        body.x,
        body.y + strip_h + devices_h,
        body.width,
        consumers_h,
    );
    let error_qps = Rect::new(
        body.x,
        body.y + strip_h + devices_h + consumers_h,
        body.width,
        error_h,
    );
    MainLayout {
        strip,
        devices: TableArea::new(devices),
        consumers: TableArea::new(consumers),
        error_qps: TableArea::new(error_qps),
    }
}

/// A count of lines as a height.
fn lines(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrillLayout {
    /// Who this is: pid, name, user, container, devices.
    pub info: Rect,
    /// Its share of the devices' objects and limits, and its cgroup quota
    /// (empty on short screens).
    pub limits: Rect,
    /// How its counts moved over the trend window; the leak verdict.
    pub trend: Rect,
    pub tabs: Rect,
    pub table: TableArea,
    pub totals: Rect,
}

/// Below this body height the limits line gives its row to the table.
const DRILL_LIMITS_MIN_HEIGHT: u16 = 10;

/// Lines each text part of the drill-down needs at this width (wrapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DrillLines {
    pub info: u16,
    pub limits: u16,
    pub trend: u16,
    pub totals: u16,
}

impl DrillLines {
    pub(crate) const ONE: DrillLines = DrillLines {
        info: 1,
        limits: 1,
        trend: 1,
        totals: 1,
    };
}

/// The drill-down with one line per text part.
pub(crate) fn drill_layout(body: Rect) -> DrillLayout {
    drill_layout_for(body, DrillLines::ONE)
}

/// The drill-down with each text part given up to the lines it wants, as
/// long as the table keeps half the body (and at least a few rows): the
/// trend (the leak verdict) first, then totals, share and who.
pub(crate) fn drill_layout_for(body: Rect, wanted: DrillLines) -> DrillLayout {
    let info_h = 1.min(body.height);
    let limits_h = u16::from(body.height >= DRILL_LIMITS_MIN_HEIGHT);
    let trend_h = 1.min(body.height.saturating_sub(info_h + limits_h));
    let totals_h = 1.min(body.height.saturating_sub(info_h + limits_h + trend_h));
    let mut h = [trend_h, totals_h, limits_h, info_h];
    let want = [wanted.trend, wanted.totals, wanted.limits, wanted.info];
    let table_min = (body.height / 2).max(6);
    let mut spare = body
        .height
        .saturating_sub(h.iter().sum::<u16>())
        .saturating_sub(table_min);
    let mut grew = true;
    while spare > 0 && grew {
        grew = false;
        for (got, want) in h.iter_mut().zip(want) {
            if spare > 0 && *got > 0 && *got < want {
                *got += 1;
                spare -= 1;
                grew = true;
            }
        }
    }
    let [trend_h, totals_h, limits_h, info_h] = h;
    let top_h = info_h + limits_h + trend_h;
    let table = TableArea::new(Rect::new(
        body.x,
        body.y + top_h,
        body.width,
        body.height.saturating_sub(top_h + totals_h),
    ));
    DrillLayout {
        info: Rect::new(body.x, body.y, body.width, info_h),
        limits: Rect::new(body.x, body.y + info_h, body.width, limits_h),
        trend: Rect::new(body.x, body.y + info_h + limits_h, body.width, trend_h),
        // The tab bar is the table's title line.
        tabs: table.title,
        table,
        totals: Rect::new(
            body.x,
            body.y + body.height.saturating_sub(totals_h),
            body.width,
            totals_h,
        ),
    }
}

/// Label of each drill-down tab and where it sits on the tab line.
pub(crate) fn tab_spans(labels: &[String], tabs: Rect) -> Vec<(u16, u16)> {
    let mut x = tabs.x;
    let mut out = Vec::with_capacity(labels.len());
    for label in labels {
        let w = u16::try_from(label.chars().count()).unwrap_or(u16::MAX);
        out.push((x, w));
        x = x.saturating_add(w).saturating_add(1);
    }
    out
}

/// Places generic table columns in `width`: fixed widths, the last
/// left-aligned column stretched, columns that do not fit dropped from the right.
pub(crate) fn fit_columns(widths: &[u16], stretch: Option<usize>, width: u16) -> Vec<(u16, u16)> {
    let total: u32 = widths.iter().map(|w| u32::from(*w) + 1).sum();
    let spare = u32::from(width).saturating_sub(total);
    let mut x: u16 = 0;
    let mut out = Vec::new();
    for (i, w) in widths.iter().enumerate() {
        let mut w = *w;
        if Some(i) == stretch {
            w = w.saturating_add(u16::try_from(spare.min(40)).unwrap_or(0));
        }
        if x >= width {
            break;
        }
        out.push((x, w.min(width - x)));
        x = x.saturating_add(w).saturating_add(1);
    }
    out
}

/// A centred box of at most `w`×`h` inside `area`.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_parts_never_exceed_the_area() {
        for (w, h) in [(1, 1), (10, 3), (80, 24), (0, 0)] {
            let l = frame_layout(Rect::new(0, 0, w, h));
            assert!(l.header.height + l.body.height + l.footer.height <= h);
        }
    }

    #[test]
    fn consumers_keep_rows_with_many_devices() {
        let l = main_layout(Rect::new(0, 2, 80, 21), 40);
        assert!(l.consumers.rows.height >= 2);
        assert_eq!(l.devices.area().height + l.consumers.area().height, 21);
    }

    #[test]
    fn few_devices_take_only_their_rows() {
        let l = main_layout(Rect::new(0, 2, 160, 47), 3);
        assert_eq!(l.devices.rows.height, 3);
    }

    fn wants(
        problems: usize,
        strip: u16,
        devices: usize,
        consumers: usize,
        err: usize,
    ) -> MainWants {
        MainWants {
            problems,
            strip,
            devices,
            consumers,
            error_qps: err,
        }
    }

    #[test]
    fn error_qps_get_a_pane_from_40_rows() {
        let at_40 = main_panes(Rect::new(0, 2, 120, 37), wants(3, 3, 5, 16, 3));
        assert_eq!(at_40.error_qps.rows.height, 3);
        let at_24 = main_panes(Rect::new(0, 2, 80, 21), wants(3, 1, 5, 16, 3));
        assert_eq!(at_24.error_qps.area().height, 0);
        let none = main_panes(Rect::new(0, 2, 120, 37), wants(3, 3, 5, 16, 0));
        assert_eq!(none.error_qps.area().height, 0);
    }

    #[test]
    fn rows_the_consumers_leave_empty_go_to_a_cut_pane() {
        // Two consumers, a strip held to its share with twenty problems.
        let l = main_panes(Rect::new(0, 2, 120, 37), wants(20, 7, 3, 2, 0));
        assert_eq!(l.strip.height, 20);
        assert_eq!(l.consumers.rows.height, 37 - 20 - 5 - 2);
        // Forty ERROR QPs: their pane grows past its quarter.
        let l = main_panes(Rect::new(0, 2, 220, 57), wants(2, 2, 3, 2, 40));
        assert_eq!(l.error_qps.rows.height, 40);
        assert_eq!(l.consumers.area().height, 57 - 2 - 5 - 42);
    }

    #[test]
    fn the_panes_fill_the_body_exactly() {
        for h in [8, 21, 37, 45, 57] {
            for w in [
                wants(0, 0, 1, 1, 0),
                wants(30, 5, 40, 200, 90),
                wants(2, 2, 5, 3, 1),
            ] {
                let l = main_panes(Rect::new(0, 2, 80, h), w);
                let sum = l.strip.height
                    + l.devices.area().height
                    + l.consumers.area().height
                    + l.error_qps.area().height;
                assert_eq!(sum, h, "{w:?} in {h}");
            }
        }
    }

    #[test]
    fn row_hit_test() {
        let p = TableArea::new(Rect::new(0, 10, 80, 10));
        assert_eq!(p.row_at(11), None, "header line");
        assert_eq!(p.row_at(12), Some(0));
        assert_eq!(p.row_at(20), None);
    }
}
