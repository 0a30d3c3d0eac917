//! Strata's version, a leaf every report of it uses.

/// Strata's version, as reported by `INFO`, `stats` and `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
