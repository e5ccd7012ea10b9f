//! A selection and scroll position in a list of rows.

/// Selected row and first visible row of a scrolling list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// Moves the selection by `delta` rows, staying inside `len` rows.
    pub fn move_by(&mut self, delta: isize, len: usize) {
        if len == 0 {
            *self = Cursor::default();
            return;
        }
        let target = self.selected.saturating_add_signed(delta);
        self.selected = target.min(len - 1);
    }

    pub fn home(&mut self) {
        self.selected = 0;
    }

    pub fn end(&mut self, len: usize) {
        self.selected = len.saturating_sub(1);
    }

    /// Keeps the selection inside `len` rows and visible in `height` rows.
    pub fn settle(&mut self, len: usize, height: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        self.offset = visible_offset(*self, len, height);
    }

    /// Scrolls the view without moving the selection further than needed to
    /// keep it visible (mouse wheel).
    pub fn scroll_by(&mut self, delta: isize, len: usize, height: usize) {
        let max_offset = len.saturating_sub(height.max(1));
        self.offset = self.offset.saturating_add_signed(delta).min(max_offset);
        let last_visible = self.offset + height.max(1) - 1;
        if self.selected < self.offset {
            self.selected = self.offset;
        } else if self.selected > last_visible {
            self.selected = last_visible;
        }
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// A click on the `i`-th visible row of `len` rows shown `height` high:
    /// selects it where the view is now. False when no row is there.
    pub fn select_visible(&mut self, i: usize, len: usize, height: usize) -> bool {
        let offset = visible_offset(*self, len, height);
        if offset + i >= len {
            return false;
        }
        *self = Cursor {
            selected: offset + i,
            offset,
        };
        true
    }
}

/// The first row to show so that the selection is visible in `height` rows.
/// Pure so that drawing can use it even when the size changed since the last update.
pub(crate) fn visible_offset(cursor: Cursor, len: usize, height: usize) -> usize {
    if height == 0 || len == 0 {
        return 0;
    }
    let selected = cursor.selected.min(len - 1);
    let mut offset = cursor.offset.min(len.saturating_sub(height));
    if selected < offset {
        offset = selected;
    } else if selected >= offset + height {
        offset = selected + 1 - height;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_stay_in_range() {
        let mut c = Cursor::default();
        c.move_by(-3, 10);
        assert_eq!(c.selected, 0);
        c.move_by(25, 10);
        assert_eq!(c.selected, 9);
        c.move_by(1, 0);
        assert_eq!(c, Cursor::default());
    }

    #[test]
    fn offset_follows_the_selection() {
        let c = Cursor {
            selected: 12,
            offset: 0,
        };
        assert_eq!(visible_offset(c, 20, 5), 8);
        let c = Cursor {
            selected: 2,
            offset: 8,
        };
        assert_eq!(visible_offset(c, 20, 5), 2);
        let c = Cursor {
            selected: 3,
            offset: 18,
        };
        assert_eq!(visible_offset(c, 20, 5), 3);
    }

    #[test]
    fn wheel_scroll_drags_the_selection_along() {
        let mut c = Cursor::default();
        c.scroll_by(3, 20, 5);
        assert_eq!(
            c,
            Cursor {
                selected: 3,
                offset: 3
            }
        );
        c.scroll_by(100, 20, 5);
        assert_eq!(c.offset, 15);
    }
}
