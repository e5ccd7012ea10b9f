//! Every trend of one owner over the window.

use super::trend::TypeTrend;
use crate::model::{OwnerKey, ResourceType};
use std::collections::BTreeMap;

/// Every trend of one owner over the window, for the types it held in it.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerTrend {
    pub owner: OwnerKey,
    /// The owner's name as the consumers table shows it.
    pub name: String,
    pub types: BTreeMap<ResourceType, TypeTrend>,
}

impl OwnerTrend {
    pub fn leak_suspect(&self) -> bool {
        self.types.values().any(|t| t.leak_suspect)
    }

    /// The types suspected of leaking, with their explanation.
    pub fn suspects(&self) -> impl Iterator<Item = (ResourceType, &TypeTrend)> {
        self.types
            .iter()
            .filter(|(_, t)| t.leak_suspect)
            .map(|(ty, t)| (*ty, t))
    }

    pub fn get(&self, t: ResourceType) -> Option<&TypeTrend> {
        self.types.get(&t)
    }
}
