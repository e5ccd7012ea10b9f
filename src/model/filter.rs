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
    pub(crate) fn shows_type(&self, t: ResourceType) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }

    pub(crate) fn shows_device(&self, name: &str) -> bool {
        self.device.as_deref().is_none_or(|d| d == name)
    }

    /// Types to show, in display order.
    pub(crate) fn visible_types(&self) -> Vec<ResourceType> {
        ResourceType::ALL
            .into_iter()
            .filter(|t| self.shows_type(*t))
            .collect()
    }

    /// The filter as it applies to a host with these devices: a free text
    /// that is a device's whole name (`/mlx5_3`, any case) scopes every
    /// count to that device, as `--dev mlx5_3` does, instead of only
    /// selecting the rows that mention it. `--dev` wins over the text.
    pub(crate) fn scoped_to_devices<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Filter {
        let mut out = self.clone();
        if out.device.is_some() {
            return out;
        }
        let Some(text) = self
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        else {
            return out;
        };
        out.device = names
            .into_iter()
            .find(|name| name.eq_ignore_ascii_case(text))
            .map(String::from);
        out
    }

    /// What every count under this filter covers: `on mlx5_3` or `all devices`.
    pub(crate) fn scope_label(&self) -> String {
        match &self.device {
            Some(name) => format!("on {name}"),
            None => "all devices".to_string(),
        }
    }

    /// Case-insensitive substring test over a row's searchable fields.
    pub(crate) fn text_matches<'a>(&self, fields: impl IntoIterator<Item = &'a str>) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Filter {
        Filter {
            text: Some(t.into()),
            ..Filter::default()
        }
    }

    #[test]
    fn a_text_naming_a_device_scopes_the_counts_to_it() {
        let names = ["mlx5_0", "mlx5_3"];
        let scoped = text("MLX5_3 ").scoped_to_devices(names);
        assert_eq!(scoped.device.as_deref(), Some("mlx5_3"));
        assert_eq!(scoped.scope_label(), "on mlx5_3");
    }

    #[test]
    fn other_texts_and_dev_keep_their_scope() {
        let names = ["mlx5_0", "mlx5_3"];
        assert_eq!(text("mlx5").scoped_to_devices(names).device, None);
        assert_eq!(
            text("train").scoped_to_devices(names).scope_label(),
            "all devices"
        );
        let dev = Filter {
            device: Some("mlx5_0".into()),
            ..text("mlx5_3")
        };
        assert_eq!(
            dev.scoped_to_devices(names).device.as_deref(),
            Some("mlx5_0")
        );
    }
}
