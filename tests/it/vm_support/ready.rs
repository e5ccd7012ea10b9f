//! The ready files the VM workloads write (tests/vm/workloads/vm_workload.c):
//! one created object per line, `KIND key=value ...`, then `ready`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

#[derive(Clone, Debug)]
pub struct Line {
    pub kind: String,
    pub fields: BTreeMap<String, String>,
}

impl Line {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    pub fn num(&self, key: &str) -> Option<u64> {
        self.get(key)?.parse().ok()
    }
}

#[derive(Clone, Debug)]
pub struct Ready {
    /// The workload's name (file stem: objects, threads, pair, cm).
    pub name: String,
    /// The workload's process id (its `process pid=` line).
    pub pid: u32,
    pub lines: Vec<Line>,
}

impl Ready {
    pub fn load(path: &Path) -> Result<Ready, String> {
        let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if text.lines().last() != Some("ready") {
            return Err(format!("{}: no final `ready` line", path.display()));
        }
        let lines: Vec<Line> = text
            .lines()
            .filter(|l| *l != "ready")
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let kind = words.next()?.to_string();
                let fields = words
                    .filter_map(|w| w.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                Some(Line { kind, fields })
            })
            .collect();
        let pid = lines
            .iter()
            .find(|l| l.kind == "process")
            .and_then(|l| l.num("pid"))
            .and_then(|p| u32::try_from(p).ok())
            .ok_or_else(|| format!("{}: no `process pid=` line", path.display()))?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Ready { name, pid, lines })
    }

    pub fn all<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Line> + 'a {
        self.lines.iter().filter(move |l| l.kind == kind)
    }

    /// Every QP's last reported line (a QP can be listed again after a state change).
    pub fn final_qps(&self) -> BTreeMap<(String, u64), &Line> {
        let mut qps = BTreeMap::new();
        for l in self.all("qp") {
            if let (Some(dev), Some(qpn)) = (l.get("dev"), l.num("qpn")) {
                qps.insert((dev.to_string(), qpn), l);
            }
        }
        qps
    }
}
