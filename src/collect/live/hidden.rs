//! Whether the kernel withheld key fields (it does for callers without
//! CAP_NET_ADMIN), so they are reported as hidden rather than shown as zero.

use crate::model::{Object, Warning, WarningKind};

#[derive(Clone, Debug, Default)]
pub(super) struct HiddenFields {
    mrs: u64,
    mrs_without_keys: u64,
    pds: u64,
    pds_without_lkey: u64,
}

impl HiddenFields {
    pub(super) fn observe(&mut self, obj: &Object) {
        match obj {
            Object::Mr(mr) => {
                self.mrs += 1;
                if mr.keys.is_none() {
                    self.mrs_without_keys += 1;
                }
            }
            Object::Pd(pd) => {
                self.pds += 1;
                if pd.local_dma_lkey.is_none() {
                    self.pds_without_lkey += 1;
                }
            }
            _ => {}
        }
    }

    /// Adds what another dump observed.
    pub(super) fn absorb(&mut self, other: &HiddenFields) {
        self.mrs += other.mrs;
        self.mrs_without_keys += other.mrs_without_keys;
        self.pds += other.pds;
        self.pds_without_lkey += other.pds_without_lkey;
    }

    pub(super) fn report(&self) -> (Vec<String>, Option<Warning>) {
        let mut fields = Vec::new();
        // Only when the kernel withheld keys from every object: some kernel MRs
        // legitimately have none.
        if self.mrs > 0 && self.mrs_without_keys == self.mrs {
            fields.extend(["mr.rkey".to_string(), "mr.lkey".to_string()]);
        }
        if self.pds > 0 && self.pds_without_lkey == self.pds {
            fields.push("pd.local_dma_lkey".to_string());
        }
        let warning = (!fields.is_empty()).then(|| {
            Warning::new(
                WarningKind::Permission,
                "MR and PD keys hidden: the kernel shows them only to CAP_NET_ADMIN",
            )
        });
        (fields, warning)
    }
}
