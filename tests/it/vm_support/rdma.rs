//! What iproute2's `rdma` saw in the VM (`rdma -j -d res show <type>` dumps, the
//! `rdma -j res show` summary) plus the thread→process map, turned into the
//! numbers restop must report.
//!
//! The kernel reports the *thread* that created an object (`pid` in rdma's
//! JSON), nothing for objects whose creating thread has exited, and a module
//! name (`comm` without `pid`) for kernel objects. Objects without either are
//! traced here through their PD (QP, MR, SRQ) or context (CQ, PD) to an owner,
//! the way restop attributes them.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

pub const TYPES: [&str; 7] = ["qp", "cq", "mr", "pd", "cm_id", "ctx", "srq"];

/// One object from an `rdma -j -d res show <type>` dump.
#[derive(Clone, Debug)]
pub struct Row {
    pub kind: &'static str,
    pub dev: String,
    pub id: u64,
    /// The creating thread, as the kernel reported it.
    pub pid: Option<u32>,
    pub comm: Option<String>,
    pub pdn: Option<u64>,
    pub ctxn: Option<u64>,
    pub mrlen: u64,
    pub state: Option<String>,
}

impl Row {
    fn from_json(kind: &'static str, v: &Value) -> Result<Row, String> {
        let id_key = match kind {
            "qp" => "lqpn",
            "cq" => "cqn",
            "mr" => "mrn",
            "pd" => "pdn",
            "cm_id" => "cm-idn",
            "ctx" => "ctxn",
            _ => "srqn",
        };
        let num = |k: &str| v.get(k).and_then(Value::as_u64);
        let dev = v.get("ifname").and_then(Value::as_str);
        let (Some(dev), Some(id)) = (dev, num(id_key)) else {
            return Err(format!("{kind} row without ifname/{id_key}: {v}"));
        };
        let mut comm = v.get("comm").and_then(Value::as_str).map(str::to_string);
        // iproute2 prints an SRQ's QP list ("19-22") where `comm` belongs
        if kind == "srq"
            && num("pid").is_none()
            && v.get("lqpn").and_then(Value::as_array).is_some()
        {
            comm = None;
        }
        Ok(Row {
            kind,
            dev: dev.to_string(),
            id,
            pid: num("pid").and_then(|p| u32::try_from(p).ok()),
            comm,
            pdn: if kind == "pd" { None } else { num("pdn") },
            ctxn: if kind == "ctx" { None } else { num("ctxn") },
            mrlen: num("mrlen").unwrap_or(0),
            state: v.get("state").and_then(Value::as_str).map(str::to_string),
        })
    }

    /// `rxe0 qp 17 ERR`, `rxe0 mr 3 4096 B`, for messages.
    pub fn label(&self) -> String {
        match self.kind {
            "qp" => format!(
                "{} qp {} {}",
                self.dev,
                self.id,
                self.state.as_deref().unwrap_or("?")
            ),
            "mr" => format!("{} mr {} {} B", self.dev, self.id, self.mrlen),
            kind => format!("{} {kind} {}", self.dev, self.id),
        }
    }
}

/// Who owns an object, with processes named by their tgid.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Owner {
    Process(u32),
    Kernel(String),
    Unattributed,
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Process(pid) => write!(f, "pid {pid}"),
            Owner::Kernel(name) => write!(f, "[{name}]"),
            Owner::Unattributed => f.write_str("(unattributed)"),
        }
    }
}

/// `tid tgid comm` lines written by the scenario from `/proc/*/task/*`.
#[derive(Clone, Debug, Default)]
pub struct Tasks(HashMap<u32, (u32, String)>);

impl Tasks {
    pub fn load(path: &Path) -> Result<Tasks, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut map = HashMap::new();
        for line in text.lines() {
            let mut f = line.splitn(3, '\t');
            let (Some(tid), Some(tgid)) = (f.next(), f.next()) else {
                continue;
            };
            if let (Ok(tid), Ok(tgid)) = (tid.parse(), tgid.parse()) {
                map.insert(tid, (tgid, f.next().unwrap_or("").to_string()));
            }
        }
        Ok(Tasks(map))
    }

    pub fn tgid(&self, tid: u32) -> Option<u32> {
        self.0.get(&tid).map(|(tgid, _)| *tgid)
    }

    pub fn comm(&self, tid: u32) -> Option<&str> {
        self.0.get(&tid).map(|(_, comm)| comm.as_str())
    }

    pub fn threads_of(&self, tgid: u32) -> Vec<u32> {
        let mut tids: Vec<u32> = self
            .0
            .iter()
            .filter(|(_, (g, _))| *g == tgid)
            .map(|(t, _)| *t)
            .collect();
        tids.sort_unstable();
        tids
    }
}

/// Counts of one owner row (a process, a kernel module, or the unattributed rest).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub counts: BTreeMap<String, u64>,
    pub mr_bytes: u64,
    pub qp_states: BTreeMap<String, u64>,
    pub devices: BTreeSet<String>,
}

impl Tally {
    pub fn count(&self, kind: &str) -> u64 {
        self.counts.get(kind).copied().unwrap_or(0)
    }

    fn add(&mut self, row: &Row) {
        *self.counts.entry(row.kind.to_string()).or_default() += 1;
        self.mr_bytes += row.mrlen;
        if let Some(state) = row.state.as_ref().filter(|_| row.kind == "qp") {
            *self.qp_states.entry(state.clone()).or_default() += 1;
        }
        self.devices.insert(row.dev.clone());
    }
}

/// A QP in ERR/SQE: device, lqpn and the owning process, if any.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ErrorQp {
    pub dev: String,
    pub lqpn: u64,
    pub pid: Option<u32>,
}

/// One moment: every dump of one `rdma-*` folder plus the task map taken with it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub rows: Vec<Row>,
    /// (device, type) → count from `rdma -j res show`.
    pub summary: BTreeMap<(String, String), u64>,
    pub tasks: Tasks,
}

impl Snapshot {
    /// Every type's dump in `dir`, with the task map `tasks`.
    pub fn load(dir: &Path, tasks: &Path) -> Result<Snapshot, String> {
        Snapshot::load_types(dir, tasks, &TYPES)
    }

    /// As [`Snapshot::load`], for a folder holding only the dumps of `types`
    /// (objects of other types are then simply unknown).
    pub fn load_types(
        dir: &Path,
        tasks: &Path,
        types: &[&'static str],
    ) -> Result<Snapshot, String> {
        let read_json = |name: &str| -> Result<Value, String> {
            let path = dir.join(name);
            let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        };
        let mut summary = BTreeMap::new();
        for dev in read_json("summary.json")?.as_array().into_iter().flatten() {
            let name = dev.get("ifname").and_then(Value::as_str).unwrap_or("?");
            for kind in TYPES {
                if let Some(n) = dev.get(kind).and_then(Value::as_u64) {
                    summary.insert((name.to_string(), kind.to_string()), n);
                }
            }
        }
        // iproute2 may dump a QP twice (per device, then per port): keep one
        let mut seen = BTreeSet::new();
        let mut rows = Vec::new();
        for &kind in types {
            for v in read_json(&format!("{kind}.json"))?
                .as_array()
                .into_iter()
                .flatten()
            {
                let row = Row::from_json(kind, v)?;
                if seen.insert((kind, row.dev.clone(), row.id)) {
                    rows.push(row);
                }
            }
        }
        Ok(Snapshot {
            rows,
            summary,
            tasks: Tasks::load(tasks)?,
        })
    }

    fn find(&self, kind: &str, dev: &str, id: u64) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.kind == kind && r.dev == dev && r.id == id)
    }

    /// The owner of `row` and how it was found (for messages).
    pub fn owner(&self, row: &Row) -> (Owner, String) {
        self.owner_at_depth(row, 0)
    }

    fn owner_at_depth(&self, row: &Row, depth: usize) -> (Owner, String) {
        if let Some(tid) = row.pid {
            return match self.tasks.tgid(tid) {
                Some(tgid) if tgid != tid => (
                    Owner::Process(tgid),
                    format!(
                        "thread {tid} ({}) of pid {tgid}",
                        self.tasks.comm(tid).unwrap_or("?")
                    ),
                ),
                Some(_) => (Owner::Process(tid), format!("pid {tid}")),
                None => (Owner::Process(tid), format!("pid {tid} (gone from /proc)")),
            };
        }
        if let Some(name) = &row.comm {
            return (Owner::Kernel(name.clone()), format!("kernel {name}"));
        }
        let parent = match row.kind {
            "qp" | "mr" | "srq" => row.pdn.and_then(|n| self.find("pd", &row.dev, n)),
            "cq" | "pd" => row.ctxn.and_then(|n| self.find("ctx", &row.dev, n)),
            _ => None,
        };
        match parent {
            Some(p) if depth < 3 => {
                let (owner, how) = self.owner_at_depth(p, depth + 1);
                (owner, format!("no pid, {} {} → {how}", p.kind, p.id))
            }
            _ => (Owner::Unattributed, "no pid, no parent".to_string()),
        }
    }

    /// The per-owner tallies, error QPs and totals restop should report.
    pub fn expected(&self) -> Expected {
        self.expected_on(None)
    }

    /// As [`Snapshot::expected`], counting only the objects of one device
    /// (what `restop --dev` reports).
    pub fn expected_on(&self, dev: Option<&str>) -> Expected {
        let mut e = Expected::default();
        for row in self.rows.iter().filter(|r| dev.is_none_or(|d| r.dev == d)) {
            let (owner, how) = self.owner(row);
            let tally = match &owner {
                Owner::Process(pid) => e.processes.entry(*pid).or_default(),
                Owner::Kernel(name) => e.kernel.entry(name.clone()).or_default(),
                Owner::Unattributed => &mut e.unattributed,
            };
            tally.add(row);
            *e.rows_per_type.entry(row.kind.to_string()).or_default() += 1;
            if row.kind == "qp" && matches!(row.state.as_deref(), Some("ERR" | "SQE")) {
                e.error_qps.insert(ErrorQp {
                    dev: row.dev.clone(),
                    lqpn: row.id,
                    pid: match owner {
                        Owner::Process(pid) => Some(pid),
                        _ => None,
                    },
                });
            }
            e.explain
                .entry(owner)
                .or_default()
                .push((row.kind, format!("{} [{how}]", row.label())));
        }
        e
    }
}

#[derive(Clone, Debug, Default)]
pub struct Expected {
    pub processes: BTreeMap<u32, Tally>,
    pub kernel: BTreeMap<String, Tally>,
    pub unattributed: Tally,
    pub error_qps: BTreeSet<ErrorQp>,
    /// Objects per type over all devices (after removing duplicate QP rows).
    pub rows_per_type: BTreeMap<String, u64>,
    /// Every object of each owner with how it was attributed, for messages.
    pub explain: BTreeMap<Owner, Vec<(&'static str, String)>>,
}

impl Expected {
    /// The objects of `owner` of one type, for a failure message.
    pub fn objects_of(&self, owner: &Owner, kind: &str) -> String {
        let list: Vec<&str> = self
            .explain
            .get(owner)
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k == kind)
            .map(|(_, s)| s.as_str())
            .collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    }
}
