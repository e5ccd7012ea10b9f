//! Application state and its one update function. No terminal, no I/O:
//! everything here is driven by `Event`s and tested without a screen.

pub(crate) mod config;
pub(crate) mod event;
pub(crate) mod replay;
pub mod signal;
pub(crate) mod state;
pub(crate) mod update;

pub use crate::interactive::screens::drill;
pub use crate::interactive::screens::main::Focus;
pub use crate::interactive::screens::{Ctx, Screen};
pub use config::{AppConfig, Level, ThemeKind, Thresholds};
pub use event::{Command, Event};
pub use replay::ReplayState;
pub use state::{App, FilterEdit};
