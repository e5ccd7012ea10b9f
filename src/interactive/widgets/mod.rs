//! The drawing blocks every screen composes: the object table (its state in
//! `table/`, its drawing in `table/draw.rs`), cursors, gauges, sparklines,
//! text fitting, modal boxes, port states, sort markers and the theme.
//! Widgets never import a screen.

pub(crate) mod charset;
pub(crate) mod cursor;
pub(crate) mod fit;
pub(crate) mod format;
pub(crate) mod gauge;
pub(crate) mod modal;
pub(crate) mod paint;
pub(crate) mod port_state;
pub(crate) mod sparkline;
pub mod table;
pub mod theme;
