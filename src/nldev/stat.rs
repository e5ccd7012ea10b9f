//! `STAT_GET` replies: a port's hardware counters (`rdma statistic show`)
//! and the QP-bound counters an admin created (`rdma statistic qp show`).
//!
//! Counter names are driver strings (rxe `sent_pkts`, mlx5
//! `out_of_sequence`); they are kept as the kernel spells them, so every
//! output can use `rdma -j statistic show`'s keys. A table entry without a
//! name or a value is a typed error, never a zero.

use super::attr::{Attr, TlvError, attrs};
use super::consts::attr as a;

use crate::model::ReportedOwner;
use std::fmt;

/// A counter table that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatError {
    /// Bad framing inside the reply.
    Tlv(TlvError),
    /// A `STAT_HWCOUNTER_ENTRY` without a name.
    UnnamedCounter { position: usize },
    /// A named entry without a value.
    MissingValue { name: String },
    /// The reply names no port.
    NoPort,
}

impl fmt::Display for StatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatError::Tlv(e) => e.fmt(f),
            StatError::UnnamedCounter { position } => {
                write!(f, "counter entry {position} has no name")
            }
            StatError::MissingValue { name } => write!(f, "counter {name} has no value"),
            StatError::NoPort => write!(f, "the statistics reply names no port"),
        }
    }
}

impl From<TlvError> for StatError {
    fn from(e: TlvError) -> StatError {
        StatError::Tlv(e)
    }
}

/// One port's counters, in the kernel's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortStats {
    pub device: u32,
    pub port: u32,
    pub counters: Vec<(String, u64)>,
}

/// `rdma_nl_counter_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterMode {
    None,
    Auto,
    Manual,
    Other(u32),
}

impl CounterMode {
    pub fn from_raw(v: u32) -> CounterMode {
        match v {
            0 => CounterMode::None,
            1 => CounterMode::Auto,
            2 => CounterMode::Manual,
            other => CounterMode::Other(other),
        }
    }

    /// iproute2's spelling.
    pub fn name(self) -> String {
        match self {
            CounterMode::None => "none".into(),
            CounterMode::Auto => "auto".into(),
            CounterMode::Manual => "manual".into(),
            CounterMode::Other(v) => format!("mode{v}"),
        }
    }
}

/// One QP-bound counter (`rdma statistic qp show`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QpCounter {
    pub device: u32,
    pub port: u32,
    pub id: u32,
    pub mode: Option<CounterMode>,
    /// The task the counter was allocated for (auto mode with the pid mask).
    pub owner: ReportedOwner,
    /// Local QP numbers bound to this counter.
    pub qps: Vec<u32>,
    pub counters: Vec<(String, u64)>,
}

/// The `STAT_HWCOUNTERS` table: `(name, value)` pairs.
pub(crate) fn parse_hwcounters(table: &Attr<'_>) -> Result<Vec<(String, u64)>, StatError> {
    let mut out = Vec::new();
    for (position, item) in table.nested().enumerate() {
        let entry = item?;
        if entry.kind != a::STAT_HWCOUNTER_ENTRY {
            continue;
        }
        let (mut name, mut value) = (None, None);
        for field in entry.nested() {
            let field = field?;
            match field.kind {
                a::STAT_HWCOUNTER_ENTRY_NAME => name = Some(field.string()),
                a::STAT_HWCOUNTER_ENTRY_VALUE => value = Some(field.u64()?),
                _ => {}
            }
        }
        let name = match name {
            Some(n) if !n.is_empty() => n,
            _ => return Err(StatError::UnnamedCounter { position }),
        };
        let Some(value) = value else {
            return Err(StatError::MissingValue { name });
        };
        out.push((name, value));
    }
    Ok(out)
}

/// A port statistics doit reply. The device and port fall back to the ones
/// asked for; a reply without a counter table is a port without counters.
pub fn parse_port_stats(payload: &[u8], device: u32, port: u32) -> Result<PortStats, StatError> {
    let mut stats = PortStats {
        device,
        port,
        counters: Vec::new(),
    };
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::DEV_INDEX => stats.device = at.u32()?,
            a::PORT_INDEX => stats.port = at.u32()?,
            a::STAT_HWCOUNTERS => stats.counters = parse_hwcounters(&at)?,
            _ => {}
        }
    }
    Ok(stats)
}

/// One message of a QP-counter dump: every counter entry in its table.
pub(crate) fn parse_qp_counters(payload: &[u8], device: u32) -> Result<Vec<QpCounter>, StatError> {
    let mut device = device;
    let mut port = None;
    let mut out = Vec::new();
    for item in attrs(payload) {
        let at = item?;
        match at.kind {
            a::DEV_INDEX => device = at.u32()?,
            a::PORT_INDEX => port = Some(at.u32()?),
            a::STAT_COUNTER => {
                for entry in at.nested() {
                    let entry = entry?;
                    if entry.kind == a::STAT_COUNTER_ENTRY {
                        out.push(parse_counter_entry(&entry, device, port)?);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn parse_counter_entry(
    entry: &Attr<'_>,
    device: u32,
    port: Option<u32>,
) -> Result<QpCounter, StatError> {
    let mut c = QpCounter {
        device,
        port: port.unwrap_or(0),
        id: 0,
        mode: None,
        owner: ReportedOwner::Missing,
        qps: Vec::new(),
        counters: Vec::new(),
    };
    let mut seen_port = port.is_some();
    let (mut pid, mut kern) = (None, None);
    for field in entry.nested() {
        let field = field?;
        match field.kind {
            a::PORT_INDEX => {
                c.port = field.u32()?;
                seen_port = true;
            }
            a::STAT_COUNTER_ID => c.id = field.u32()?,
            a::STAT_MODE => c.mode = Some(CounterMode::from_raw(field.u32()?)),
            a::RES_PID => pid = Some(field.u32()?),
            a::RES_KERN_NAME => kern = Some(field.string()),
            a::RES_QP => {
                for qp in field.nested() {
                    let qp = qp?;
                    if qp.kind != a::RES_QP_ENTRY {
                        continue;
                    }
                    for f in qp.nested() {
                        let f = f?;
                        if f.kind == a::RES_LQPN {
                            c.qps.push(f.u32()?);
                        }
                    }
                }
            }
            a::STAT_HWCOUNTERS => c.counters = parse_hwcounters(&field)?,
            _ => {}
        }
    }
    if !seen_port {
        return Err(StatError::NoPort);
    }
    c.owner = match (pid, kern) {
        (Some(pid), _) => ReportedOwner::Task(pid),
        (None, Some(k)) if !k.is_empty() => ReportedOwner::Kernel(k),
        _ => ReportedOwner::Missing,
    };
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nldev::fixture::Attrs;

    fn entry(name: &str, value: u64) -> Attrs {
        Attrs::new()
            .string(a::STAT_HWCOUNTER_ENTRY_NAME, name)
            .pad()
            .u64(a::STAT_HWCOUNTER_ENTRY_VALUE, value)
    }

    fn table(entries: Vec<Attrs>) -> Attrs {
        let mut t = Attrs::new();
        for e in entries {
            t = t.nest_flagged(a::STAT_HWCOUNTER_ENTRY, e);
        }
        t
    }

    #[test]
    fn the_command_and_attribute_numbers_are_the_kernels() {
        assert_eq!(
            (
                crate::nldev::consts::cmd::STAT_GET,
                a::STAT_RES,
                a::STAT_COUNTER,
                a::STAT_HWCOUNTERS
            ),
            (17, 75, 77, 80)
        );
        assert_eq!(
            (
                a::STAT_HWCOUNTER_ENTRY,
                a::STAT_HWCOUNTER_ENTRY_NAME,
                a::STAT_HWCOUNTER_ENTRY_VALUE
            ),
            (81, 82, 83)
        );
    }

    #[test]
    fn a_port_table_keeps_names_values_and_order() {
        let msg = Attrs::new()
            .u32(a::DEV_INDEX, 3)
            .string(a::DEV_NAME, "mlx5_0")
            .u32(a::PORT_INDEX, 1)
            .nest_flagged(
                a::STAT_HWCOUNTERS,
                table(vec![
                    entry("out_of_sequence", 7),
                    entry("np_cnp_sent", 1 << 40),
                ]),
            );
        let stats = parse_port_stats(msg.as_bytes(), 0, 9).unwrap();
        assert_eq!((stats.device, stats.port), (3, 1));
        assert_eq!(
            stats.counters,
            vec![
                ("out_of_sequence".to_string(), 7),
                ("np_cnp_sent".to_string(), 1 << 40)
            ]
        );
    }

    #[test]
    fn a_reply_without_a_table_is_a_port_without_counters() {
        let msg = Attrs::new().u32(a::DEV_INDEX, 0).u32(a::PORT_INDEX, 1);
        let stats = parse_port_stats(msg.as_bytes(), 0, 1).unwrap();
        assert!(stats.counters.is_empty());
    }

    #[test]
    fn entries_without_name_or_value_are_typed_errors() {
        let unnamed = Attrs::new().u64(a::STAT_HWCOUNTER_ENTRY_VALUE, 1);
        let msg = Attrs::new().nest(a::STAT_HWCOUNTERS, table(vec![entry("a", 1), unnamed]));
        assert_eq!(
            parse_port_stats(msg.as_bytes(), 0, 1),
            Err(StatError::UnnamedCounter { position: 1 })
        );
        let valueless = Attrs::new().string(a::STAT_HWCOUNTER_ENTRY_NAME, "rcvd_pkts");
        let msg = Attrs::new().nest(a::STAT_HWCOUNTERS, table(vec![valueless]));
        assert_eq!(
            parse_port_stats(msg.as_bytes(), 0, 1),
            Err(StatError::MissingValue {
                name: "rcvd_pkts".into()
            })
        );
        let short = Attrs::new()
            .string(a::STAT_HWCOUNTER_ENTRY_NAME, "x")
            .u32(a::STAT_HWCOUNTER_ENTRY_VALUE, 1);
        let msg = Attrs::new().nest(a::STAT_HWCOUNTERS, table(vec![short]));
        assert!(matches!(
            parse_port_stats(msg.as_bytes(), 0, 1),
            Err(StatError::Tlv(TlvError::BadPayload { .. }))
        ));
    }

    #[test]
    fn a_bound_counter_has_its_id_mode_owner_qps_and_values() {
        let qps = Attrs::new()
            .nest(a::RES_QP_ENTRY, Attrs::new().u32(a::RES_LQPN, 17))
            .nest(a::RES_QP_ENTRY, Attrs::new().u32(a::RES_LQPN, 18));
        let counter = Attrs::new()
            .u32(a::PORT_INDEX, 1)
            .u32(a::STAT_COUNTER_ID, 4)
            .u32(a::STAT_MODE, 1)
            .u32(a::RES_PID, 812)
            .nest_flagged(a::RES_QP, qps)
            .nest_flagged(
                a::STAT_HWCOUNTERS,
                table(vec![entry("rnr_nak_retry_err", 2)]),
            );
        let msg = Attrs::new().u32(a::DEV_INDEX, 2).nest(
            a::STAT_COUNTER,
            Attrs::new().nest(a::STAT_COUNTER_ENTRY, counter),
        );
        let got = parse_qp_counters(msg.as_bytes(), 0).unwrap();
        assert_eq!(
            got,
            vec![QpCounter {
                device: 2,
                port: 1,
                id: 4,
                mode: Some(CounterMode::Auto),
                owner: ReportedOwner::Task(812),
                qps: vec![17, 18],
                counters: vec![("rnr_nak_retry_err".into(), 2)],
            }]
        );
    }

    #[test]
    fn a_bound_counter_without_a_port_is_an_error() {
        let counter = Attrs::new().u32(a::STAT_COUNTER_ID, 4);
        let msg = Attrs::new().nest(
            a::STAT_COUNTER,
            Attrs::new().nest(a::STAT_COUNTER_ENTRY, counter),
        );
        assert_eq!(parse_qp_counters(msg.as_bytes(), 0), Err(StatError::NoPort));
    }
}
