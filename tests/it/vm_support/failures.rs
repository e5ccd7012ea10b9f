//! Collects every failed check of a test so that one red run lists them all.

#[derive(Debug, Default)]
pub struct Failures(Vec<String>);

impl Failures {
    pub fn fail(&mut self, message: String) {
        self.0.push(message);
    }

    /// Records `message()` unless `ok`; returns `ok`.
    pub fn check(&mut self, ok: bool, message: impl FnOnce() -> String) -> bool {
        if !ok {
            self.fail(message());
        }
        ok
    }

    /// Takes over `other`'s failures, each prefixed with `prefix`.
    pub fn absorb(&mut self, prefix: &str, other: Failures) {
        self.0
            .extend(other.0.into_iter().map(|m| format!("{prefix}{m}")));
    }

    /// Panics with every recorded failure.
    pub fn finish(self, what: &str) {
        if !self.0.is_empty() {
            panic!(
                "{}: {} check(s) failed:\n  - {}",
                what,
                self.0.len(),
                self.0.join("\n  - ")
            );
        }
    }
}
