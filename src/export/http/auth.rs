//! HTTP basic authentication against the web config's bcrypt hashes, with
//! bcrypt's cost bounded: bcrypt is slow on purpose (tens of milliseconds a
//! check at cost 10) and runs on the one serving thread, so
//!
//! - every verdict is remembered by a digest of the credentials, as
//!   node_exporter's toolkit does: a scraper's next scrapes, and a client
//!   repeating a wrong password, cost a hash lookup;
//! - credentials not seen before may spend at most a quarter of the thread's
//!   time on bcrypt (with a burst of two seconds); past that they are answered
//!   503 at once, so a client trying passwords cannot starve the scrapes;
//! - a user name that is not configured is checked against a hash of the same
//!   cost, so the answer's timing does not tell which names exist, and names
//!   are compared in constant time.

use crate::export::web_config::User;
use base64::Engine;
use ring::digest;
use rustc_hash::FxHashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The share of the serving thread new credentials may spend in bcrypt.
const BCRYPT_SHARE: f64 = 0.25;
/// Time in bcrypt allowed at once before the share applies.
const BCRYPT_BURST: Duration = Duration::from_secs(2);
/// Remembered verdicts; when full, the refusals are forgotten (never the
/// successes, of which there are at most one per configured password).
const MAX_REMEMBERED: usize = 1024;
/// The longest `Authorization` value decoded (a scraper's is ~100 bytes).
const MAX_CREDENTIALS: usize = 1024;

/// What to answer a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// 401 with `WWW-Authenticate`.
    Denied,
    /// 503: too much bcrypt work lately; try again.
    Busy,
}

pub struct BasicAuth {
    users: Vec<User>,
    /// A hash of the costliest user's cost, for names nobody has.
    decoy: String,
    state: Mutex<State>,
}

struct State {
    verdicts: FxHashMap<[u8; 32], bool>,
    /// bcrypt time spent, less what the share has paid back since `at`.
    debt: Duration,
    at: Instant,
}

impl BasicAuth {
    /// `None` when no user is configured (no authentication).
    pub fn new(users: &[User]) -> Option<BasicAuth> {
        let cost = users.iter().map(|u| u.cost).max()?;
        let decoy = bcrypt::hash_with_salt(b"restop decoy", cost, [7u8; 16])
            .map(|h| h.format_for_version(bcrypt::Version::TwoY))
            .ok()?;
        Some(BasicAuth {
            users: users.to_vec(),
            decoy,
            state: Mutex::new(State {
                verdicts: FxHashMap::default(),
                debt: Duration::ZERO,
                at: Instant::now(),
            }),
        })
    }

    /// Checks an `Authorization` header value.
    pub fn check(&self, authorization: Option<&str>, now: Instant) -> Verdict {
        let Some((name, password)) = authorization.and_then(credentials) else {
            return Verdict::Denied;
        };
        let key = remembered_as(&name, &password);
        let Ok(mut state) = self.state.lock() else {
            return Verdict::Busy;
        };
        if let Some(&ok) = state.verdicts.get(&key) {
            return if ok {
                Verdict::Allowed
            } else {
                Verdict::Denied
            };
        }
        if !state.may_spend(now) {
            return Verdict::Busy;
        }
        let started = Instant::now();
        let ok = self.verify(&name, &password);
        state.debt += started.elapsed();
        if state.verdicts.len() >= MAX_REMEMBERED {
            state.verdicts.retain(|_, ok| *ok);
        }
        state.verdicts.insert(key, ok);
        if ok {
            Verdict::Allowed
        } else {
            Verdict::Denied
        }
    }

    fn verify(&self, name: &str, password: &[u8]) -> bool {
        // Every name is compared, so the time does not depend on which matched.
        let mut found: Option<&User> = None;
        for user in &self.users {
            if bool::from(user.name.as_bytes().ct_eq(name.as_bytes())) {
                found = Some(user);
            }
        }
        match found {
            Some(user) => bcrypt::verify(password, &user.hash).unwrap_or(false),
            None => {
                let _ = bcrypt::verify(password, &self.decoy);
                false
            }
        }
    }
}

impl State {
    /// Pays back the debt at the allowed share of the time since the last
    /// look; whether more bcrypt work may start now.
    fn may_spend(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at);
        self.at = now;
        self.debt = self.debt.saturating_sub(elapsed.mul_f64(BCRYPT_SHARE));
        self.debt < BCRYPT_BURST
    }
}

/// `Basic base64(name:password)` → (name, password).
fn credentials(header: &str) -> Option<(String, Vec<u8>)> {
    let (scheme, encoded) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") || encoded.len() > MAX_CREDENTIALS {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|&b| b == b':')?;
    let name = String::from_utf8(decoded.get(..colon)?.to_vec()).ok()?;
    let password = decoded.get(colon + 1..)?.to_vec();
    Some((name, password))
}

/// The key a verdict is remembered by: a digest, so no password is kept.
fn remembered_as(name: &str, password: &[u8]) -> [u8; 32] {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(name.as_bytes());
    ctx.update(&[0]);
    ctx.update(password);
    let mut key = [0u8; 32];
    key.copy_from_slice(ctx.finish().as_ref());
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users() -> Vec<User> {
        let hash = bcrypt::hash_with_salt(b"secret", 4, [1u8; 16])
            .unwrap()
            .format_for_version(bcrypt::Version::TwoY);
        vec![User {
            name: "prometheus".into(),
            hash,
            cost: 4,
        }]
    }

    fn basic(name: &str, password: &str) -> String {
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"));
        format!("Basic {encoded}")
    }

    #[test]
    fn the_right_password_is_allowed_and_others_denied() {
        let auth = BasicAuth::new(&users()).unwrap();
        let now = Instant::now();
        assert_eq!(
            auth.check(Some(&basic("prometheus", "secret")), now),
            Verdict::Allowed
        );
        assert_eq!(
            auth.check(Some(&basic("prometheus", "wrong")), now),
            Verdict::Denied
        );
        assert_eq!(
            auth.check(Some(&basic("nobody", "secret")), now),
            Verdict::Denied
        );
        assert_eq!(auth.check(None, now), Verdict::Denied);
        assert_eq!(auth.check(Some("Bearer abc"), now), Verdict::Denied);
        assert_eq!(auth.check(Some("Basic !!!"), now), Verdict::Denied);
        // Remembered: the second check is a lookup.
        assert_eq!(
            auth.check(Some(&basic("prometheus", "secret")), now),
            Verdict::Allowed
        );
    }

    #[test]
    fn bcrypt_work_beyond_the_share_is_refused_until_paid_back() {
        let auth = BasicAuth::new(&users()).unwrap();
        let now = Instant::now();
        auth.state.lock().unwrap().debt = BCRYPT_BURST + Duration::from_secs(1);
        assert_eq!(
            auth.check(Some(&basic("prometheus", "new")), now),
            Verdict::Busy
        );
        // A remembered success still passes.
        auth.state
            .lock()
            .unwrap()
            .verdicts
            .insert(remembered_as("prometheus", b"secret"), true);
        assert_eq!(
            auth.check(Some(&basic("prometheus", "secret")), now),
            Verdict::Allowed
        );
        // Eight seconds later two seconds of debt are paid back.
        let later = now + Duration::from_secs(8);
        assert_eq!(
            auth.check(Some(&basic("prometheus", "new")), later),
            Verdict::Denied
        );
    }

    #[test]
    fn the_cache_of_refusals_is_bounded() {
        let auth = BasicAuth::new(&users()).unwrap();
        {
            let mut state = auth.state.lock().unwrap();
            state
                .verdicts
                .insert(remembered_as("prometheus", b"secret"), true);
            for i in 0..MAX_REMEMBERED {
                state
                    .verdicts
                    .insert(remembered_as("x", i.to_string().as_bytes()), false);
            }
        }
        assert_eq!(
            auth.check(Some(&basic("x", "one more")), Instant::now()),
            Verdict::Denied
        );
        let state = auth.state.lock().unwrap();
        // The refusals were forgotten, the success kept.
        assert_eq!(state.verdicts.len(), 2);
        assert_eq!(
            state.verdicts.get(&remembered_as("prometheus", b"secret")),
            Some(&true)
        );
    }
}
