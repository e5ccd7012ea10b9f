//! Rendering snapshots for `--once`, `--json` and `--batch`. Pure functions from a
//! snapshot and the filters to text or a serializable document; the caller
//! writes them out.

pub(crate) mod batch;
pub(crate) mod json;
pub(crate) mod problems;
pub mod rfc3339;
pub(crate) mod selection;
pub mod text;
pub mod trends;

pub use json::{
    JsonDocument, render_json, render_json_grouped, render_json_report, render_json_with,
};
pub use selection::{Selection, unknown_device_warning};
pub use text::{OnceOptions, render_once, render_once_with};
