//! uid → user name, looked up once per uid.

use nix::unistd::{Uid, User};
use std::collections::HashMap;

/// Caches user-name lookups: `getpwuid_r` may go to NSS (LDAP, sssd), far too slow to
/// repeat for every process on every tick. Unknown uids are cached as unknown too.
#[derive(Debug, Default)]
pub struct UserNames {
    names: HashMap<u32, Option<String>>,
}

impl UserNames {
    /// An empty cache: each uid is looked up (`getpwuid_r`) the first time it is asked for.
    pub fn new() -> UserNames {
        UserNames::default()
    }

    /// The user name of `uid`, or None when the user database does not know it
    /// (common for container uids).
    pub fn name(&mut self, uid: u32) -> Option<&str> {
        self.names
            .entry(uid)
            .or_insert_with(|| {
                User::from_uid(Uid::from_raw(uid))
                    .ok()
                    .flatten()
                    .map(|user| user.name)
            })
            .as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_root() {
        assert_eq!(UserNames::new().name(0), Some("root"));
    }

    #[test]
    fn an_unknown_uid_has_no_name_and_is_cached() {
        let mut users = UserNames::new();
        let unknown = 3_999_999_999;
        assert_eq!(users.name(unknown), None);
        assert_eq!(users.name(unknown), None);
        assert_eq!(users.names.len(), 1);
    }
}
