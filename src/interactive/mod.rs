//! The full-screen interactive view, in one folder:
//!
//! - `terminal/`: the runtime (raw mode, the input thread, signals, job
//!   control, hang-up) and the event loop that feeds a view's update, draws
//!   it, and passes its commands to a data feed (`terminal::View`,
//!   `terminal::Feed`), naming no view;
//! - `local/`: this host as the view's data feed (the collector and
//!   replayer threads, signals sent to its processes) and the application
//!   as the runtime's view; `fleet_view.rs`: the same for the fleet view;
//! - `app/`: the application state and its one update function;
//! - `config.rs`, `event.rs`, `signal.rs`: the plain data the application,
//!   the runtime and the screens all read (the view's configuration, the
//!   events and commands, a signal request), below them so screens need not
//!   name `app/`;
//! - `screens/`: one module per screen, owning its state, keys and drawing;
//! - `frame/`: the header and footer around the top screen;
//! - `rows/`: the rows screens show, read from the snapshot;
//! - `widgets/`: tables, gauges, sparklines, text fitting and the theme,
//!   which never import a screen;
//! - `keys/`: the key table and what is derived from it; `layout.rs`: the
//!   frame's geometry; `walls.rs`: the tests that keep these imports one way.

pub mod app;
pub(crate) mod config;
pub(crate) mod event;
pub mod fleet_view;
pub mod frame;
pub(crate) mod keys;
pub(crate) mod layout;
pub mod local;
pub mod rows;
pub mod screens;
pub mod signal;
pub mod terminal;
#[cfg(test)]
mod walls;
pub mod widgets;
