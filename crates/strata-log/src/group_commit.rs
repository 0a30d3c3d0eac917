//! The group-commit policy of `Sync` mode: when the flusher starts a sync.
//!
//! Starting a sync as soon as one record is pending keeps groups small under
//! load (each sync covers only what arrived during the previous one), and
//! every sync costs CPU (the device round trip, interrupts, waking the
//! waiters) that the requests themselves need. So when the previous group
//! was large, the flusher holds the next sync until about as many records
//! are pending (three quarters of the last group) or a short delay has
//! passed, whichever comes first. The delay is at most the last sync's own
//! duration and never more than `max_delay`, so a write waits at most about
//! one extra sync. With one writer, or one record per group, nothing is
//! ever held: a lone client sees no added latency.

use std::time::{Duration, Instant};

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct GroupCommit {
    max_delay: Duration,
    /// Records covered by the last sync.
    last_group: u64,
    /// How long the last sync took.
    last_sync: Duration,
}

impl GroupCommit {
    /// `max_delay` zero: never hold a sync.
    pub fn new(max_delay: Duration) -> GroupCommit {
        GroupCommit {
            max_delay,
            last_group: 0,
            last_sync: Duration::ZERO,
        }
    }

    /// Pending records at which the sync starts at once.
    pub fn target(&self) -> u64 {
        (self.last_group * 3).div_ceil(4).max(1)
    }

    /// When to start the sync for `pending` records, the first of which was
    /// appended at `first_at`; `None` means now.
    pub fn start_at(&self, pending: u64, first_at: Option<Instant>) -> Option<Instant> {
        if pending >= self.target() {
            return None;
        }
        let wait = self.max_delay.min(self.last_sync);
        let at = first_at? + wait;
        (Instant::now() < at).then_some(at)
    }

    /// Notes a sync of `records` records that took `took`.
    pub fn synced(&mut self, records: u64, took: Duration) {
        self.last_group = records;
        self.last_sync = took;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_lone_writer_is_never_held() {
        let mut policy = GroupCommit::new(MS);
        assert_eq!(policy.start_at(1, Some(Instant::now())), None);
        policy.synced(1, MS);
        assert_eq!(policy.start_at(1, Some(Instant::now())), None);
    }

    #[test]
    fn after_a_large_group_the_next_waits_to_fill() {
        let mut policy = GroupCommit::new(Duration::from_secs(5));
        policy.synced(40, Duration::from_secs(1));
        assert_eq!(policy.target(), 30);
        let now = Instant::now();
        let at = policy.start_at(10, Some(now)).expect("held");
        // Bounded by the last sync's duration, not the larger max delay.
        assert!(at <= now + Duration::from_secs(1));
        assert_eq!(policy.start_at(30, Some(now)), None);
    }

    #[test]
    fn the_delay_is_capped_and_expires() {
        let mut policy = GroupCommit::new(MS);
        policy.synced(40, Duration::from_secs(1));
        let long_ago = Instant::now() - 2 * MS;
        assert_eq!(policy.start_at(1, Some(long_ago)), None);
        let now = Instant::now();
        let at = policy.start_at(1, Some(now)).expect("held");
        assert!(at <= now + MS);
    }

    #[test]
    fn zero_max_delay_never_holds() {
        let mut policy = GroupCommit::new(Duration::ZERO);
        policy.synced(40, MS);
        assert_eq!(policy.start_at(1, Some(Instant::now())), None);
    }
}
