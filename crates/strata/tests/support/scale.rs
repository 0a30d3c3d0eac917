//! The test-scale rule every long test of this tree follows, as the fuzz
//! suites do: an explicit count wins (`STRATA_CRASH_CYCLES` for the crash
//! loops), otherwise `STRATA_TEST_FULL` (set, not empty and not `0`; what
//! `scripts/test --full` sets; `STRATA_FULL` is accepted as an alias) picks
//! the long count, otherwise the quick one.

#![allow(dead_code)]

/// Whether the full (long) suite runs.
pub fn full() -> bool {
    ["STRATA_TEST_FULL", "STRATA_FULL"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The number in `var` if set (a test fails on one that is not a number),
/// else `long` in the full suite, else `quick`.
pub fn count(var: &str, quick: usize, long: usize) -> usize {
    match std::env::var(var) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{var}={text:?} is not a number")),
        Err(_) if full() => long,
        Err(_) => quick,
    }
}
