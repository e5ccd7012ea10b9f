//! The filters every mode shares (`--dev`, `--pid`, `--type`, `--state`, and
//! the TUI's free-text filter).

use super::enums::QpState;
use super::resource::ResourceType;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filter {
    /// Only this device (by name).
    pub device: Option<String>,
    /// Only this process (pid; a thread id also matches its process).
    pub pid: Option<u32>,
    /// Only these resource types (empty: all).
    pub types: Vec<ResourceType>,
    /// Only QPs in this state, and the consumers that hold such QPs.
    pub state: Option<QpState>,
    /// Free text matched against name, comm, cmdline, pid, user, container and devices.
    pub text: Option<String>,
}

impl Filter {
    pub fn shows_type(&self, t: ResourceType) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }

    pub fn shows_device(&self, name: &str) -> bool {
        self.device.as_deref().is_none_or(|d| d == name)
    }

    /// Types to show, in display order.
    pub fn visible_types(&self) -> Vec<ResourceType> {
        ResourceType::ALL
            .into_iter()
            .filter(|t| self.shows_type(*t))
            .collect()
    }

    /// Case-insensitive substring test over a row's searchable fields.
    pub fn text_matches<'a>(&self, fields: impl IntoIterator<Item = &'a str>) -> bool {
        let Some(needle) = self
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        else {
            return true;
        };
        let needle = needle.to_lowercase();
        fields
            .into_iter()
            .any(|f| f.to_lowercase().contains(&needle))
    }
}
