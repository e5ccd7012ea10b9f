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
