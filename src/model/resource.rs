//! The seven kinds of RDMA object the kernel tracks, and counts per kind.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{AddAssign, Index, IndexMut};

/// A resource type as `rdma resource show` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceType {
    Qp,
    Cq,
    Mr,
    Pd,
    CmId,
    Ctx,
    Srq,
}

impl ResourceType {
    /// Display order: what an operator looks at first comes first.
    pub const ALL: [ResourceType; 7] = [
        ResourceType::Qp,
        ResourceType::Cq,
        ResourceType::Mr,
        ResourceType::Pd,
        ResourceType::CmId,
        ResourceType::Ctx,
        ResourceType::Srq,
    ];

    /// The kernel's summary-entry name (`qp`, `cm_id`, ...), also used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ResourceType::Qp => "qp",
            ResourceType::Cq => "cq",
            ResourceType::Mr => "mr",
            ResourceType::Pd => "pd",
            ResourceType::CmId => "cm_id",
            ResourceType::Ctx => "ctx",
            ResourceType::Srq => "srq",
        }
    }

    /// Upper-case column label (`QP`, `CM_ID`, ...).
    pub fn label(self) -> &'static str {
        match self {
            ResourceType::Qp => "QP",
            ResourceType::Cq => "CQ",
            ResourceType::Mr => "MR",
            ResourceType::Pd => "PD",
            ResourceType::CmId => "CM_ID",
            ResourceType::Ctx => "CTX",
            ResourceType::Srq => "SRQ",
        }
    }

    /// Parses a kernel summary name or a user-typed name (case-insensitive, `cm-id` accepted).
    pub fn from_name(name: &str) -> Option<ResourceType> {
        let lower = name.trim().to_ascii_lowercase().replace('-', "_");
        ResourceType::ALL.into_iter().find(|t| t.name() == lower)
    }

    fn slot(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ResourceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One number per resource type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypeCounts([u64; 7]);

impl TypeCounts {
    pub fn get(&self, t: ResourceType) -> u64 {
        self.0[t.slot()]
    }

    pub fn add(&mut self, t: ResourceType, n: u64) {
        self.0[t.slot()] = self.0[t.slot()].saturating_add(n);
    }

    pub fn total(&self) -> u64 {
        self.0.iter().fold(0u64, |a, b| a.saturating_add(*b))
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|n| *n == 0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (ResourceType, u64)> + '_ {
        ResourceType::ALL.into_iter().map(|t| (t, self.get(t)))
    }
}

impl Index<ResourceType> for TypeCounts {
    type Output = u64;
    fn index(&self, t: ResourceType) -> &u64 {
        &self.0[t.slot()]
    }
}

impl IndexMut<ResourceType> for TypeCounts {
    fn index_mut(&mut self, t: ResourceType) -> &mut u64 {
        &mut self.0[t.slot()]
    }
}

impl AddAssign<&TypeCounts> for TypeCounts {
    fn add_assign(&mut self, other: &TypeCounts) {
        for t in ResourceType::ALL {
            self.add(t, other.get(t));
        }
    }
}

// Serialized as `{"qp": n, "cq": n, ...}`: the JSON schema's `counts` map.
impl Serialize for TypeCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(7))?;
        for (t, n) in self.iter() {
            map.serialize_entry(t.name(), &n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for TypeCounts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<String, u64>::deserialize(d)?;
        let mut counts = TypeCounts::default();
        for (name, n) in map {
            // Unknown names are ignored so newer files still load.
            if let Some(t) = ResourceType::from_name(&name) {
                counts.add(t, n);
            }
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ResourceType::ALL {
            assert_eq!(ResourceType::from_name(t.name()), Some(t));
        }
        assert_eq!(ResourceType::from_name("CM-ID"), Some(ResourceType::CmId));
        assert_eq!(ResourceType::from_name("counter"), None);
    }

    #[test]
    fn counts_serialize_as_a_name_map() {
        let mut c = TypeCounts::default();
        c.add(ResourceType::Qp, 3);
        c.add(ResourceType::CmId, 1);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"qp":3,"cq":0,"mr":0,"pd":0,"cm_id":1,"ctx":0,"srq":0}"#
        );
        let back: TypeCounts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn add_saturates() {
        let mut c = TypeCounts::default();
        c.add(ResourceType::Mr, u64::MAX);
        c.add(ResourceType::Mr, 5);
        assert_eq!(c[ResourceType::Mr], u64::MAX);
    }
}
