//! [`Control`]: what the connection tasks of one run share (when
//! measuring starts and ends, the request budget, the stop flag, the
//! measured count). A leaf below the runner and the progress display.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// State shared by the connection tasks of one run.
#[derive(Debug)]
pub(crate) struct Control {
    /// Batches begun from this instant on are measured.
    pub(crate) measure_start: Instant,
    /// No measured batch begins at or after this instant.
    pub(crate) deadline: Option<Instant>,
    /// Measured requests not yet claimed, when the run is bounded by `--requests`.
    pub(super) budget: Option<AtomicU64>,
    /// Set when a task fails, so the others stop early.
    pub(super) stop: AtomicBool,
    /// Measured replies so far, for the progress display.
    pub(crate) measured: AtomicU64,
}

impl Control {
    /// Claims up to `want` measured requests; 0 once the budget is spent.
    pub(super) fn claim(&self, want: u64) -> u64 {
        let Some(budget) = &self.budget else {
            return want;
        };
        let mut left = budget.load(Ordering::Relaxed);
        loop {
            let take = left.min(want);
            if take == 0 {
                return 0;
            }
            match budget.compare_exchange_weak(
                left,
                left - take,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return take,
                Err(now) => left = now,
            }
        }
    }
}
