//! Kernel enumerations carried in nldev replies, with the names iproute2 prints.
//!
//! Each enum keeps unknown raw values (`Unknown(n)`) so a newer kernel never
//! turns into a parse failure.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Declares a `u8`-coded kernel enum with its iproute2 spelling.
macro_rules! kernel_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $value:literal => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant,)+
            Unknown(u8),
        }

        impl $name {
            pub fn from_raw(raw: u8) -> Self {
                match raw {
                    $($value => $name::$variant,)+
                    other => $name::Unknown(other),
                }
            }

            pub fn raw(self) -> u8 {
                match self {
                    $($name::$variant => $value,)+
                    $name::Unknown(v) => v,
                }
            }

            /// The name iproute2 prints (`UNKNOWN` for values it does not know).
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                    $name::Unknown(_) => "UNKNOWN",
                }
            }

            /// Parses the iproute2 spelling, case-insensitively.
            pub fn from_name(text: &str) -> Option<Self> {
                let upper = text.trim().to_ascii_uppercase();
                match upper.as_str() {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $name::Unknown(v) => write!(f, "UNKNOWN({v})"),
                    known => f.write_str(known.name()),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $name::Unknown(v) => s.serialize_str(&format!("UNKNOWN({v})")),
                    known => s.serialize_str(known.name()),
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                if let Some(v) = $name::from_name(&text) {
                    return Ok(v);
                }
                let raw = text
                    .strip_prefix("UNKNOWN(")
                    .and_then(|rest| rest.strip_suffix(')'))
                    .and_then(|n| n.parse::<u8>().ok());
                raw.map($name::Unknown)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown value {text:?}")))
            }
        }
    };
}

kernel_enum! {
    /// `enum ib_qp_state`.
    QpState {
        Reset = 0 => "RESET",
        Init = 1 => "INIT",
        Rtr = 2 => "RTR",
        Rts = 3 => "RTS",
        Sqd = 4 => "SQD",
        Sqe = 5 => "SQE",
        Err = 6 => "ERR",
    }
}

impl QpState {
    /// The states shown in the per-state columns, in lifecycle order.
    pub const KNOWN: [QpState; 7] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Err,
    ];

    /// ERR and SQE both mean the QP no longer moves data and needs attention.
    pub fn is_error(self) -> bool {
        matches!(self, QpState::Err | QpState::Sqe)
    }
}

kernel_enum! {
    /// `enum ib_qp_type` (iproute2 `qp_types_to_str`).
    QpType {
        Smi = 0 => "SMI",
        Gsi = 1 => "GSI",
        Rc = 2 => "RC",
        Uc = 3 => "UC",
        Ud = 4 => "UD",
        RawIpv6 = 5 => "RAW_IPV6",
        RawEthertype = 6 => "RAW_ETHERTYPE",
        RawPacket = 8 => "RAW_PACKET",
        XrcIni = 9 => "XRC_INI",
        XrcTgt = 10 => "XRC_TGT",
        Driver = 255 => "DRIVER",
    }
}

kernel_enum! {
    /// `enum rdma_cm_state`.
    CmState {
        Idle = 0 => "IDLE",
        AddrQuery = 1 => "ADDR_QUERY",
        AddrResolved = 2 => "ADDR_RESOLVED",
        RouteQuery = 3 => "ROUTE_QUERY",
        RouteResolved = 4 => "ROUTE_RESOLVED",
        Connect = 5 => "CONNECT",
        Disconnect = 6 => "DISCONNECT",
        AddrBound = 7 => "ADDR_BOUND",
        Listen = 8 => "LISTEN",
        DeviceRemoval = 9 => "DEVICE_REMOVAL",
        Destroying = 10 => "DESTROYING",
    }
}

kernel_enum! {
    /// `enum ib_port_state`.
    PortState {
        Nop = 0 => "NOP",
        Down = 1 => "DOWN",
        Init = 2 => "INIT",
        Armed = 3 => "ARMED",
        Active = 4 => "ACTIVE",
        ActiveDefer = 5 => "ACTIVE_DEFER",
    }
}

kernel_enum! {
    /// `enum ib_port_phys_state` (iproute2 prints 4 as ARMED; we use the IB name).
    PhysState {
        Sleep = 1 => "SLEEP",
        Polling = 2 => "POLLING",
        Disabled = 3 => "DISABLED",
        Training = 4 => "PORT_CONFIGURATION_TRAINING",
        LinkUp = 5 => "LINK_UP",
        LinkErrorRecovery = 6 => "LINK_ERROR_RECOVERY",
        PhyTest = 7 => "PHY_TEST",
        OpaOffline = 9 => "OPA_OFFLINE",
        OpaTest = 11 => "OPA_TEST",
    }
}

kernel_enum! {
    /// SRQ type (`enum ib_srq_type`).
    SrqType {
        Basic = 0 => "BASIC",
        Xrc = 1 => "XRC",
        Tm = 2 => "TM",
    }
}

kernel_enum! {
    /// CQ poll context (`enum ib_poll_context`), kernel CQs only.
    PollContext {
        Direct = 0 => "DIRECT",
        Softirq = 1 => "SOFTIRQ",
        Workqueue = 2 => "WORKQUEUE",
        UnboundWorkqueue = 3 => "UNBOUND_WORKQUEUE",
    }
}

/// QP counts per state; index by [`QpState`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateCounts(std::collections::BTreeMap<QpState, u64>);

impl StateCounts {
    pub fn get(&self, s: QpState) -> u64 {
        self.0.get(&s).copied().unwrap_or(0)
    }

    pub fn add(&mut self, s: QpState, n: u64) {
        let slot = self.0.entry(s).or_insert(0);
        *slot = slot.saturating_add(n);
    }

    /// QPs in ERR or SQE.
    pub fn errors(&self) -> u64 {
        self.0
            .iter()
            .filter(|(s, _)| s.is_error())
            .map(|(_, n)| *n)
            .sum()
    }

    pub fn iter(&self) -> impl Iterator<Item = (QpState, u64)> + '_ {
        self.0.iter().map(|(s, n)| (*s, *n))
    }

    pub fn merge(&mut self, other: &StateCounts) {
        for (s, n) in other.iter() {
            self.add(s, n);
        }
    }
}

impl Serialize for StateCounts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (state, n) in &self.0 {
            map.serialize_entry(&state.to_string(), n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for StateCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<QpStateKey, u64>::deserialize(d)?;
        let mut out = StateCounts::default();
        for (k, n) in map {
            out.add(k.0, n);
        }
        Ok(out)
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct QpStateKey(QpState);

impl<'de> Deserialize<'de> for QpStateKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        QpState::deserialize(d).map(QpStateKey)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_state_names_match_iproute2() {
        let names: Vec<&str> = (0..=7).map(|r| QpState::from_raw(r).name()).collect();
        assert_eq!(
            names,
            [
                "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"
            ]
        );
    }

    #[test]
    fn unknown_values_survive_a_round_trip() {
        let t = QpType::from_raw(7);
        assert_eq!(t, QpType::Unknown(7));
        assert_eq!(t.raw(), 7);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#""UNKNOWN(7)""#);
        assert_eq!(serde_json::from_str::<QpType>(&json).unwrap(), t);
    }

    #[test]
    fn state_names_parse_case_insensitively() {
        assert_eq!(QpState::from_name("err"), Some(QpState::Err));
        assert_eq!(QpState::from_name("Rts"), Some(QpState::Rts));
        assert_eq!(QpState::from_name("broken"), None);
    }

    #[test]
    fn state_counts_count_err_and_sqe_as_errors() {
        let mut c = StateCounts::default();
        c.add(QpState::Err, 2);
        c.add(QpState::Sqe, 1);
        c.add(QpState::Rts, 5);
        assert_eq!(c.errors(), 3);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, r#"{"RTS":5,"SQE":1,"ERR":2}"#);
        assert_eq!(serde_json::from_str::<StateCounts>(&json).unwrap(), c);
    }
}
