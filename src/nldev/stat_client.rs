//! The statistics requests: read-only `STAT_GET` (restop never sends
//! `STAT_SET`/`STAT_DEL` and never changes counter modes).

use super::client::NldevClient;
use super::consts::attr as a;
use super::consts::cmd;
use super::error::NlError;
use super::request::Kind;
use super::stat::{PortStats, QpCounter, StatError, parse_port_stats, parse_qp_counters};
use super::transport::Transport;
use nix::errno::Errno;

impl<T: Transport> NldevClient<T> {
    /// One port's hardware counters (`STAT_GET` doit with `DEV_INDEX` and
    /// `PORT_INDEX`, as `rdma statistic show link D/P`).
    pub fn port_stats(&mut self, device: u32, port: u32) -> Result<PortStats, NlError> {
        let op = "STAT_GET";
        let mut out = PortStats {
            device,
            port,
            counters: Vec::new(),
        };
        let attrs = [(a::DEV_INDEX, device), (a::PORT_INDEX, port)];
        self.exchange(op, cmd::STAT_GET, Kind::Doit, &attrs, |m| {
            out = parse_port_stats(m.payload, device, port).map_err(|e| malformed(op, e))?;
            Ok(())
        })?;
        Ok(out)
    }

    /// The QP-bound counters of one device (`STAT_GET` dump with
    /// `STAT_RES = RES_QP`, as `rdma statistic qp show`). Empty unless an
    /// admin bound QPs to counters.
    pub fn qp_counters(&mut self, device: u32) -> Result<Vec<QpCounter>, NlError> {
        let op = "STAT_GET";
        let mut out = Vec::new();
        let attrs = [(a::DEV_INDEX, device), (a::STAT_RES, u32::from(a::RES_QP))];
        self.exchange(op, cmd::STAT_GET, Kind::Dump, &attrs, |m| {
            out.extend(parse_qp_counters(m.payload, device).map_err(|e| malformed(op, e))?);
            Ok(())
        })?;
        Ok(out)
    }
}

fn malformed(op: &'static str, e: StatError) -> NlError {
    NlError::Malformed {
        op,
        detail: e.to_string(),
    }
}

impl NlError {
    /// The kernel cannot give statistics for this request: no `STAT_GET`
    /// (before ~5.3: EOPNOTSUPP), or a device/port without hardware
    /// counters (EINVAL, EOPNOTSUPP).
    pub fn is_stat_unsupported(&self) -> bool {
        self.errno()
            .is_some_and(|e| e == Errno::EOPNOTSUPP as i32 || e == Errno::EINVAL as i32)
    }
}
