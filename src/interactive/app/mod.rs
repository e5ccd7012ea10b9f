//! Application state and its one update function. No terminal, no I/O:
//! everything here is driven by `Event`s and tested without a screen.

pub mod config;
pub mod event;
pub mod replay;
pub mod state;
pub mod update;

pub use crate::interactive::screens::drill;
pub use crate::interactive::screens::main::Focus;
pub use crate::interactive::screens::{Ctx, Pane};
pub use config::{AppConfig, Level, ThemeKind, Thresholds};
pub use event::{Command, Event};
pub use replay::ReplayState;
pub use state::{App, FilterEdit};
