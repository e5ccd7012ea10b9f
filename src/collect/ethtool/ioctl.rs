//! The driver's named statistics (`ethtool -S`: mlx5's `rx_prio3_pause`,
//! `rx_discards_phy`, ...) through the `SIOCETHTOOL` ioctl:
//! `ETHTOOL_GSSET_INFO` for their number, `ETHTOOL_GSTRINGS` for their
//! names (kept while the number stays the same) and `ETHTOOL_GSTATS` for
//! their values. None of the three needs a privilege.
//!
//! By hand because no crate offers it: the netlink families have no
//! equivalent (the kernel never moved the driver's private statistics to
//! ethtool netlink), and the `ethtool` crates speak netlink only. The
//! unsafe part is the one `ioctl` call on buffers restop owns; the kernel
//! writes as many entries as the driver counts *at the time of the call*,
//! so every buffer has room for more than the count asked just before
//! (channels added in between), and a reply claiming more than the room is
//! refused.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GSTATS: u32 = 0x1d;
const ETHTOOL_GSSET_INFO: u32 = 0x37;
const ETH_SS_STATS: u32 = 1;
const ETH_GSTRING_LEN: usize = 32;
/// More statistics than any driver has (mlx5 with 128 channels: ~8,000).
const MAX_STATS: usize = 65_536;

/// `struct ifreq` with the `ifr_data` member: 16 bytes of name, then a
/// 24-byte union on 64-bit targets (16 on 32-bit; the tail pad covers both).
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    pad: [u8; 24],
}

/// Room for `n` entries and some more: the driver may count more by the
/// time the next call reaches it.
fn room(n: usize) -> usize {
    n + n / 4 + 64
}

/// An `AF_INET` datagram socket to issue the ioctls on (any socket of the
/// network namespace would do).
pub(crate) fn socket() -> io::Result<OwnedFd> {
    use nix::sys::socket::{AddressFamily, SockFlag, SockType, socket};
    socket(
        AddressFamily::Inet,
        SockType::Datagram,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .map_err(io::Error::from)
}

/// One `SIOCETHTOOL` on `buf` (a command structure starting with its u32
/// command).
fn ethtool(fd: &OwnedFd, netdev: &str, buf: &mut [u64]) -> io::Result<()> {
    let bytes = netdev.as_bytes();
    if bytes.is_empty() || bytes.len() >= libc::IFNAMSIZ || bytes.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a netdev name",
        ));
    }
    let mut ifr = IfReq {
        name: [0; libc::IFNAMSIZ],
        data: buf.as_mut_ptr().cast(),
        pad: [0; 24],
    };
    for (dst, &src) in ifr.name.iter_mut().zip(bytes) {
        *dst = src as libc::c_char;
    }
    // SAFETY: `ifr` and the buffer it points to live across the call; the
    // buffer is sized by the caller for the command (with room to spare,
    // see `room`); the kernel reads the command from its first u32.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), SIOCETHTOOL as _, &mut ifr) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Two native u32 fields (`cmd` and the next) as the buffer's first word.
fn head(first: u32, second: u32) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&first.to_ne_bytes());
    bytes[4..].copy_from_slice(&second.to_ne_bytes());
    u64::from_ne_bytes(bytes)
}

fn as_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// How many named statistics the driver has; `None` when it has none.
fn count(fd: &OwnedFd, netdev: &str) -> io::Result<Option<usize>> {
    // struct ethtool_sset_info { u32 cmd; u32 reserved; u64 sset_mask; u32 data[]; }
    let mut buf = [0u64; 3];
    buf[0] = head(ETHTOOL_GSSET_INFO, 0);
    buf[1] = 1u64 << ETH_SS_STATS;
    ethtool(fd, netdev, &mut buf)?;
    if buf[1] & (1u64 << ETH_SS_STATS) == 0 {
        return Ok(None);
    }
    let n = as_bytes(&buf[2..])
        .first_chunk::<4>()
        .map_or(0, |b| u32::from_ne_bytes(*b)) as usize;
    Ok((n > 0).then_some(n.min(MAX_STATS)))
}

/// The names from a `struct ethtool_gstrings` buffer: `len` at bytes 8..12,
/// then `len` NUL-padded 32-byte names. `None` if it claims more than `cap`.
pub(crate) fn decode_strings(bytes: &[u8], cap: usize) -> Option<Vec<String>> {
    let len = bytes.get(8..12)?.try_into().ok().map(u32::from_ne_bytes)? as usize;
    if len > cap {
        return None;
    }
    let data = bytes.get(12..12 + len * ETH_GSTRING_LEN)?;
    Some(
        data.chunks(ETH_GSTRING_LEN)
            .map(|c| {
                let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
                String::from_utf8_lossy(&c[..end]).into_owned()
            })
            .collect(),
    )
}

/// The values from a `struct ethtool_stats` buffer (`n_stats` at bytes
/// 4..8, then the u64 values); `None` if it claims more than `cap`.
pub(crate) fn decode_stats(words: &[u64], cap: usize) -> Option<Vec<u64>> {
    let first = words.first()?.to_ne_bytes();
    let n = u32::from_ne_bytes([first[4], first[5], first[6], first[7]]) as usize;
    if n > cap {
        return None;
    }
    words.get(1..1 + n).map(<[u64]>::to_vec)
}

/// Names with their values; a name the driver repeats (some list a counter
/// per queue under one name) keeps its first value.
pub(crate) fn named(names: &[String], values: &[u64]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (name, &v) in names.iter().zip(values) {
        if !name.is_empty() {
            out.entry(name.clone()).or_insert(v);
        }
    }
    out
}

/// Reads a netdev's named statistics, keeping each netdev's names.
#[derive(Default)]
pub(crate) struct DriverStats {
    fd: Option<OwnedFd>,
    names: BTreeMap<String, Vec<String>>,
}

impl std::fmt::Debug for DriverStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DriverStats")
            .field("netdevs", &self.names.len())
            .finish()
    }
}

impl DriverStats {
    /// `ethtool -S <netdev>`; an empty map when the driver has none.
    pub(crate) fn read(&mut self, netdev: &str) -> io::Result<BTreeMap<String, u64>> {
        let fd = match self.fd.take() {
            Some(fd) => fd,
            None => socket()?,
        };
        let result = self.read_on(&fd, netdev);
        self.fd = Some(fd);
        result
    }

    fn read_on(&mut self, fd: &OwnedFd, netdev: &str) -> io::Result<BTreeMap<String, u64>> {
        let Some(n) = count(fd, netdev)? else {
            self.names.remove(netdev);
            return Ok(BTreeMap::new());
        };
        let cap = room(n);
        if self.names.get(netdev).is_none_or(|names| names.len() != n) {
            // struct ethtool_gstrings { u32 cmd; u32 string_set; u32 len; u8 data[]; }
            let mut buf = vec![0u64; (12 + cap * ETH_GSTRING_LEN).div_ceil(8)];
            buf[0] = head(ETHTOOL_GSTRINGS, ETH_SS_STATS);
            ethtool(fd, netdev, &mut buf)?;
            let names = decode_strings(&as_bytes(&buf), cap).ok_or_else(too_many)?;
            self.names.insert(netdev.to_string(), names);
        }
        // struct ethtool_stats { u32 cmd; u32 n_stats; u64 data[]; }
        let mut buf = vec![0u64; 1 + cap];
        buf[0] = head(ETHTOOL_GSTATS, 0);
        ethtool(fd, netdev, &mut buf)?;
        let values = decode_stats(&buf, cap).ok_or_else(too_many)?;
        let names = self.names.get(netdev).map(Vec::as_slice).unwrap_or(&[]);
        if names.len() != values.len() {
            // The driver's list changed between the calls: names again next time.
            self.names.remove(netdev);
            return Err(io::Error::other(
                "the driver's statistics changed while they were read",
            ));
        }
        Ok(named(names, &values))
    }

    /// Forgets netdevs not in `keep`.
    pub(crate) fn retain(&mut self, keep: &[&str]) {
        self.names.retain(|n, _| keep.contains(&n.as_str()));
    }
}

fn too_many() -> io::Error {
    io::Error::other("the driver reported more statistics than it counted")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gstrings(names: &[&str]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&ETHTOOL_GSTRINGS.to_ne_bytes());
        v.extend_from_slice(&ETH_SS_STATS.to_ne_bytes());
        v.extend_from_slice(&(names.len() as u32).to_ne_bytes());
        for n in names {
            let mut cell = [0u8; ETH_GSTRING_LEN];
            cell[..n.len()].copy_from_slice(n.as_bytes());
            v.extend_from_slice(&cell);
        }
        v
    }

    #[test]
    fn names_are_read_up_to_their_nul() {
        let bytes = gstrings(&["rx_prio3_pause", "rx_discards_phy"]);
        assert_eq!(
            decode_strings(&bytes, 10).unwrap(),
            ["rx_prio3_pause", "rx_discards_phy"]
        );
        // A reply claiming more than the room, or cut short, is refused.
        assert!(decode_strings(&bytes, 1).is_none());
        assert!(decode_strings(&bytes[..40], 10).is_none());
    }

    #[test]
    fn values_follow_their_count() {
        let words = [head(ETHTOOL_GSTATS, 2), 7, 9, 0];
        assert_eq!(decode_stats(&words, 3).unwrap(), [7, 9]);
        assert!(decode_stats(&words, 1).is_none());
        assert!(decode_stats(&words[..2], 3).is_none());
    }

    #[test]
    fn repeated_names_keep_the_first_value() {
        let names: Vec<String> = ["a", "b", "a", ""].iter().map(|s| s.to_string()).collect();
        let got = named(&names, &[1, 2, 3, 4]);
        assert_eq!(got.len(), 2);
        assert_eq!(got["a"], 1);
    }

    #[test]
    fn the_loopback_device_has_no_driver_statistics_or_says_why() {
        // Every host has `lo`; it has no ethtool statistics (EOPNOTSUPP) on
        // every kernel restop supports. Sandboxes without sockets skip.
        let mut stats = DriverStats::default();
        match stats.read("lo") {
            Ok(map) => assert!(map.is_empty()),
            Err(e) => assert!(e.raw_os_error().is_some(), "{e}"),
        }
        assert!(stats.read("no/such").is_err());
    }
}
