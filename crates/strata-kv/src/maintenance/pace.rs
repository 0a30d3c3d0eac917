//! [`Pacing`]: how the background maintenance pass shares a core with the
//! workers. A pass that ran its whole budget at once (up to 25 ms of
//! compaction when a shard is behind) held a core shared with a worker for
//! that long: the scheduler favours a thread that has slept for 100 ms, and
//! a churn of LPUSH/LPOP measured a 99th percentile of 20 ms, all of it
//! these bursts (`perf sched timehist`: 18 ms of maintenance in every
//! 19 ms window, every pass). Paced, the pass rests after each slice of
//! work, so a request waits for at most about one slice; the work done per
//! pass is unchanged. Measured on that churn (release, server and client
//! pinned to their own cores, 2 x 20 s each): p99 at pipeline 16 21.5 ms
//! unpaced, 5.7 ms with 1 ms / 1 ms, 3.3 ms with 0.5 ms / 1.5 ms (the
//! default), throughput unchanged; at pipeline 1 the p99.9 fell from 4.9
//! to 1.2 ms and the p99 rose from 0.5 to 1.0 ms (more requests meet a
//! slice, none meets a burst). A leaf: the pass (`maintenance/mod.rs`)
//! holds a [`Pacer`].

use std::time::{Duration, Instant};

/// Work slices and rests of a paced pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// How long the pass works before it rests (checked between steps,
    /// each of which holds one shard's lock for a bounded batch).
    pub slice: Duration,
    /// How long it then sleeps, giving the core to requests.
    pub rest: Duration,
}

impl Pacing {
    /// The background thread's: 0.5 ms of work, then 1.5 ms of rest, so
    /// the 25 ms catch-up budget spreads over the 100 ms interval and a
    /// worker on the same core keeps three quarters of it meanwhile.
    pub const BACKGROUND: Pacing = Pacing {
        slice: Duration::from_micros(500),
        rest: Duration::from_micros(1500),
    };
}

/// One pass's pacing state: when its current slice began and how long it
/// has rested, so time budgets count work, not rest.
#[derive(Debug)]
pub(crate) struct Pacer {
    pacing: Option<Pacing>,
    slice_began: Instant,
    rested: Duration,
}

impl Pacer {
    /// A pacer for `pacing`; `None` never rests (a pass run directly, as
    /// tests and shutdown do).
    pub(crate) fn new(pacing: Option<Pacing>) -> Pacer {
        Pacer {
            pacing,
            slice_began: Instant::now(),
            rested: Duration::ZERO,
        }
    }

    /// Rests if the current slice is used up. Call only with no shard lock
    /// held.
    pub(crate) fn pause_if_due(&mut self) {
        let Some(p) = self.pacing else {
            return;
        };
        if self.slice_began.elapsed() >= p.slice {
            std::thread::sleep(p.rest);
            self.rested += p.rest;
            self.slice_began = Instant::now();
        }
    }

    /// `started` moved on by the time rested since: the instant a pass that
    /// never rested would have begun, for budgets of working time.
    pub(crate) fn working_since(&self, started: Instant) -> Instant {
        started + self.rested
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpaced_pass_never_rests() {
        let mut pacer = Pacer::new(None);
        std::thread::sleep(Duration::from_millis(2));
        pacer.pause_if_due();
        assert_eq!(pacer.rested, Duration::ZERO);
        let started = Instant::now();
        assert_eq!(pacer.working_since(started), started);
    }

    #[test]
    fn a_paced_pass_rests_only_once_its_slice_is_spent() {
        let long = Pacing {
            slice: Duration::from_secs(3600),
            rest: Duration::from_millis(20),
        };
        let mut fresh = Pacer::new(Some(long));
        fresh.pause_if_due();
        assert_eq!(fresh.rested, Duration::ZERO);

        let short = Pacing {
            slice: Duration::from_millis(5),
            rest: Duration::from_millis(20),
        };
        let started = Instant::now();
        let mut pacer = Pacer::new(Some(short));
        std::thread::sleep(Duration::from_millis(6));
        let before = Instant::now();
        pacer.pause_if_due();
        assert!(before.elapsed() >= short.rest);
        assert_eq!(pacer.rested, short.rest);
        // Budgets of working time start that much later.
        assert_eq!(pacer.working_since(started), started + short.rest);
    }
}
