//! What restop was built from, for `restop --version` and `restop_build_info`:
//! the version, the source revision, the compiler and the target, set at build
//! time by build.rs.

/// restop's version (Cargo.toml).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git revision built from (short hash), or `RESTOP_REVISION`, or "unknown".
pub const REVISION: &str = env!("RESTOP_REVISION");
/// The Rust compiler's version, e.g. "1.91.0".
pub const RUSTC_VERSION: &str = env!("RESTOP_RUSTC_VERSION");
/// The target triple, e.g. "x86_64-unknown-linux-gnu".
pub const TARGET: &str = env!("RESTOP_TARGET");

/// `restop --version`: `-V` prints the bare version, `--version` this.
pub(crate) const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nrevision: ",
    env!("RESTOP_REVISION"),
    "\nrustc: ",
    env!("RESTOP_RUSTC_VERSION"),
    "\ntarget: ",
    env!("RESTOP_TARGET"),
);
