//! [`CatchUpBudget`]: how far one maintenance pass may compact past its
//! usual quota when a shard is behind. A leaf: the keyspace's config
//! carries it and the pass (`maintenance/mod.rs`) spends it.

use std::time::{Duration, Instant};

/// How much catching up one maintenance pass may do over all shards once
/// each has compacted its usual quota. Whatever the budget, a pass stays
/// bounded: a shard takes at most a fixed number of compaction steps per
/// pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUpBudget {
    /// Until the pass has run this long (wall clock), so a pass takes a
    /// bounded share of a core however slow the machine is. The default,
    /// 25 ms, is a quarter of a core at the 100 ms pass interval (Redis's
    /// active defrag takes up to 25%).
    Time(Duration),
    /// Until the pass has compacted this many segments in all, however
    /// long that takes: the same work on a fast or a loaded machine, for
    /// tests that must not depend on the speed of a debug build.
    Segments(usize),
}

impl Default for CatchUpBudget {
    fn default() -> Self {
        CatchUpBudget::Time(Duration::from_millis(25))
    }
}

impl CatchUpBudget {
    /// Whether a pass that began at `started` and has compacted
    /// `compacted` segments so far may compact another to catch up.
    pub(crate) fn allows(self, started: Instant, compacted: usize) -> bool {
        match self {
            CatchUpBudget::Time(limit) => started.elapsed() < limit,
            CatchUpBudget::Segments(limit) => compacted < limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_budget_is_spent_by_the_clock() {
        let started = Instant::now();
        // An hour cannot have passed, however loaded the machine.
        assert!(CatchUpBudget::Time(Duration::from_secs(3600)).allows(started, 1_000));
        std::thread::sleep(Duration::from_millis(30));
        // Sleeping 30 ms spends a 25 ms budget on any machine.
        assert!(!CatchUpBudget::default().allows(started, 0));
        assert!(!CatchUpBudget::Time(Duration::ZERO).allows(Instant::now(), 0));
    }

    #[test]
    fn a_segment_budget_is_spent_by_work() {
        // However long the pass has run: only the work counts.
        let started = Instant::now();
        std::thread::sleep(Duration::from_millis(30));
        assert!(CatchUpBudget::Segments(3).allows(started, 2));
        assert!(!CatchUpBudget::Segments(3).allows(started, 3));
    }
}
