//! Application state and its one update function. No terminal, no I/O:
//! everything here is driven by `Event`s and tested without a screen.

pub(crate) mod replay;
pub(crate) mod state;
pub(crate) mod update;

pub use crate::interactive::screens::drill;
pub use crate::interactive::screens::main::Focus;
pub use crate::interactive::screens::{Ctx, Screen};
// The plain data screens read too lives below both (`interactive::config`, `event`,
// `signal`); the application offers it under its own name, as before.
pub use crate::interactive::config::{AppConfig, Level, ThemeKind, Thresholds};
pub use crate::interactive::event::{Command, Event};
pub use crate::interactive::signal;
pub use replay::ReplayState;
pub use state::{App, FilterEdit};
