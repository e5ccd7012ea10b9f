//! How much one recorded snapshot may hold. A recording is untrusted input:
//! a few megabytes of deflate can inflate to millions of JSON entries, and
//! each entry costs far more memory as a struct than as text. These limits
//! sit far above any real host (docs/recording.md) and are checked while the
//! JSON is parsed, so a hostile file is refused before it is held in memory.

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::io::{self, Read};
use std::marker::PhantomData;

/// RDMA devices on one host.
pub(crate) const MAX_DEVICES: usize = 4096;
/// Processes owning RDMA objects at once.
pub(crate) const MAX_PROCESSES: usize = 100_000;
/// (owner, device) pairs.
pub(crate) const MAX_TALLIES: usize = MAX_ENTRIES;
/// Objects kept in detail.
pub(crate) const MAX_OBJECTS: usize = MAX_ENTRIES;
/// Devices, processes, tallies and objects of one snapshot together: a host
/// with 10,000 RDMA processes on 16 devices has 160,000 tallies. Every
/// stage of a replay is linear in these, and a snapshot at this bound gives
/// a JSON document of a few hundred MB (docs/performance.md).
pub(crate) const MAX_ENTRIES: usize = 500_000;

/// A command line, all arguments with their separators: what the live
/// collector reads of `/proc/<pid>/cmdline` at most.
pub(crate) const MAX_CMDLINE_BYTES: usize = 64 << 10;
/// A comm: the kernel's is 15 bytes (`TASK_COMM_LEN`); escaped, a few more.
pub(crate) const MAX_COMM_BYTES: usize = 64;
/// A device name: the kernel's `IB_DEVICE_NAME_MAX`.
pub(crate) const MAX_DEVICE_NAME_BYTES: usize = 64;
/// Any other label (user, host, kernel, container id, pod and Kubernetes
/// names, firmware, PCI address): Kubernetes names stop at 253 bytes.
pub(crate) const MAX_LABEL_BYTES: usize = 256;
/// Threads that created objects, per process.
pub(crate) const MAX_CREATOR_THREADS: usize = 4096;
/// Warnings on one snapshot, and the length of each.
pub(crate) const MAX_WARNINGS: usize = 1024;
pub(crate) const MAX_WARNING_BYTES: usize = 4096;

fn too_long(what: &str, len: usize, max: usize) -> String {
    format!(
        "{what} is {len} bytes, more than the {max} a real host gives: not a recording of a real host"
    )
}

fn label(what: &str, text: &str, max: usize) -> Result<(), String> {
    if text.len() > max {
        return Err(too_long(what, text.len(), max));
    }
    Ok(())
}

/// Every process's strings within what a kernel (and the live collector)
/// can produce, so that no output built from a recording is larger than a
/// real host's would be.
pub(crate) fn check_processes(processes: &[crate::model::ProcessInfo]) -> Result<(), String> {
    for p in processes {
        let pid = p.key.pid;
        label(&format!("the comm of pid {pid}"), &p.comm, MAX_COMM_BYTES)?;
        let cmdline: usize = p.cmdline.iter().map(|a| a.len() + 1).sum();
        if cmdline > MAX_CMDLINE_BYTES + 1 {
            return Err(too_long(
                &format!("the command line of pid {pid}"),
                cmdline,
                MAX_CMDLINE_BYTES,
            ));
        }
        if let Some(user) = &p.user {
            label(&format!("the user of pid {pid}"), user, MAX_LABEL_BYTES)?;
        }
        if let Some(c) = &p.container {
            label(
                &format!("the container of pid {pid}"),
                &c.id,
                MAX_LABEL_BYTES,
            )?;
            if let Some(pod) = &c.pod {
                label(&format!("the pod of pid {pid}"), pod, MAX_LABEL_BYTES)?;
            }
            if let Some(k) = &c.kube {
                for name in [&k.namespace, &k.pod, &k.container] {
                    label(
                        &format!("a Kubernetes name of pid {pid}"),
                        name,
                        MAX_LABEL_BYTES,
                    )?;
                }
            }
        }
        if p.creator_threads.len() > MAX_CREATOR_THREADS {
            return Err(format!(
                "pid {pid} has {} creator threads, more than {MAX_CREATOR_THREADS}: not a recording of a real host",
                p.creator_threads.len()
            ));
        }
        for (_, name) in &p.creator_threads {
            label(&format!("a thread name of pid {pid}"), name, MAX_COMM_BYTES)?;
        }
    }
    Ok(())
}

/// Device names and labels within the kernel's limits.
pub(crate) fn check_devices(devices: &[crate::model::Device]) -> Result<(), String> {
    for d in devices {
        label("a device name", &d.name, MAX_DEVICE_NAME_BYTES)?;
        for text in [&d.fw_version, &d.node_type, &d.protocol, &d.pci, &d.pf]
            .into_iter()
            .flatten()
        {
            label(&format!("a label of {}", d.name), text, MAX_LABEL_BYTES)?;
        }
    }
    Ok(())
}

/// The snapshot's own labels and warnings.
pub(crate) fn check_meta(meta: &crate::model::Meta) -> Result<(), String> {
    label("the host name", &meta.host, MAX_LABEL_BYTES)?;
    label("the kernel release", &meta.kernel, MAX_LABEL_BYTES)?;
    if meta.warnings.len() > MAX_WARNINGS || meta.hidden_fields.len() > MAX_WARNINGS {
        return Err(format!(
            "more than {MAX_WARNINGS} warnings in one snapshot: not a recording of a real host"
        ));
    }
    for w in &meta.warnings {
        label("a warning", &w.message, MAX_WARNING_BYTES)?;
    }
    for f in &meta.hidden_fields {
        label("a hidden field's name", f, MAX_LABEL_BYTES)?;
    }
    Ok(())
}

/// The four lists of one snapshot (devices, processes, tallies, objects)
/// hold at most `MAX_ENTRIES` entries together.
pub(crate) fn check_entries(lengths: [usize; 4]) -> Result<(), String> {
    let total: usize = lengths.iter().sum();
    if total > MAX_ENTRIES {
        let [d, p, t, o] = lengths;
        return Err(format!(
            "{total} entries in one snapshot ({d} devices, {p} processes, {t} tallies, {o} objects), \
             more than the {MAX_ENTRIES} of the largest real host: not a recording of a real host"
        ));
    }
    Ok(())
}

/// Stops reading after `limit` bytes, remembering that there was more.
pub(crate) struct CountingReader<R> {
    inner: R,
    left: u64,
    over: bool,
}

impl<R: Read> CountingReader<R> {
    pub(crate) fn new(inner: R, limit: u64) -> Self {
        CountingReader {
            inner,
            left: limit,
            over: false,
        }
    }

    /// Whether the input went on past the limit.
    pub(crate) fn over_limit(&self) -> bool {
        self.over
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? > 0 {
                self.over = true;
                return Err(io::Error::other("record too large"));
            }
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let Some(window) = buf.get_mut(..want) else {
            return Ok(0);
        };
        let n = self.inner.read(window)?;
        self.left = self.left.saturating_sub(n as u64);
        Ok(n)
    }
}

struct Bounded<T> {
    max: usize,
    what: &'static str,
    item: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Bounded<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of at most {} {}", self.max, self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // The size hint comes from the input: never trusted for allocation.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element()? {
            if out.len() == self.max {
                return Err(serde::de::Error::custom(format!(
                    "more than {} {} in one snapshot: not a recording of a real host",
                    self.max, self.what
                )));
            }
            out.push(item);
        }
        Ok(out)
    }
}

fn bounded<'de, D, T>(d: D, max: usize, what: &'static str) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_seq(Bounded {
        max,
        what,
        item: PhantomData,
    })
    .map(Some)
}

pub(crate) fn devices<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    bounded(d, MAX_DEVICES, "devices")
}

pub(crate) fn processes<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    bounded(d, MAX_PROCESSES, "processes")
}

pub(crate) fn tallies<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    bounded(d, MAX_TALLIES, "tallies")
}

pub(crate) fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    bounded(d, MAX_OBJECTS, "objects")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Three {
        #[serde(default, deserialize_with = "three")]
        list: Option<Vec<u8>>,
    }

    fn three<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        bounded(d, 3, "things")
    }

    #[test]
    fn a_list_up_to_its_limit_is_read_and_one_more_is_refused() {
        let ok: Three = serde_json::from_str(r#"{"list":[1,2,3]}"#).unwrap();
        assert_eq!(ok.list, Some(vec![1, 2, 3]));
        let missing: Three = serde_json::from_str("{}").unwrap();
        assert_eq!(missing.list, None);
        let err = serde_json::from_str::<Three>(r#"{"list":[1,2,3,4]}"#)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("more than 3 things in one snapshot"),
            "{err}"
        );
    }

    #[test]
    fn the_reader_stops_at_its_limit_and_says_so() {
        let mut r = CountingReader::new(&b"abcdef"[..], 4);
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
        assert!(r.over_limit());
        let mut r = CountingReader::new(&b"abcd"[..], 4);
        out.clear();
        r.read_to_end(&mut out).unwrap();
        assert!(!r.over_limit());
        assert_eq!(out, b"abcd");
    }
}
