//! The drawing blocks every screen composes: the object table (its state in
//! `table/`, its drawing in `table/draw.rs`), cursors, gauges, sparklines,
//! text fitting, counter rates, modal boxes, port states and the theme.
//! Widgets never import a screen.

pub mod cursor;
pub mod fit;
pub mod format;
pub mod gauge;
pub mod modal;
pub mod paint;
pub mod port_state;
pub mod rates;
pub mod sparkline;
pub mod table;
pub mod theme;
