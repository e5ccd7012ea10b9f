//! Application state and its one update function. No terminal, no I/O:
//! everything here is driven by `Event`s and tested without a screen.

pub mod columns;
pub mod config;
pub mod counters_view;
pub mod cursor;
pub mod devices_view;
pub mod event;
pub mod keys;
pub mod layout;
pub mod object_ages;
pub mod object_rows;
pub mod object_table;
pub mod replay;
pub mod screens;
pub mod state;
pub mod trends_view;
pub mod update;

pub use config::{AppConfig, Level, ThemeKind, Thresholds};
pub use event::{Command, Event};
pub use replay::ReplayState;
pub use screens::drill;
pub use screens::main::Focus;
pub use screens::{Ctx, Pane};
pub use state::{App, FilterEdit};
