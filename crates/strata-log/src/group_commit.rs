//! The group-commit policy of `Sync` mode: when the flusher starts a sync.
//!
//! Starting a sync as soon as one record is pending keeps groups small under
//! load (each sync covers only what arrived during the previous one), and
//! every sync costs CPU that the requests themselves need: the device round
//! trips, interrupts, switching to the flusher and back, waking the waiters
//! (about 190 µs a sync on the development VM, so 11 µs a write in groups
//! of 17, 4 µs in groups of 48). So the flusher holds a sync until as many
//! records are pending as there are writers, or `max_delay` has passed
//! since the first of them, whichever comes first.
//!
//! The writers are estimated as the largest recent group, decaying by a
//! sixteenth per sync: with N connections each waiting for its write, a
//! group of N is what one sync can cover, and a hold that waits for all of
//! them lets groups grow to that instead of settling at whatever arrived
//! during the previous sync. A write waits at most `max_delay` more than it
//! would without the hold. With one writer, or one record per group,
//! nothing is ever held: a lone client sees no added latency; after a burst
//! the estimate falls back to the real concurrency within a few dozen syncs.

use std::time::{Duration, Instant};

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct GroupCommit {
    max_delay: Duration,
    /// The writers estimate in sixteenths: the largest recent group,
    /// decaying by a sixteenth per sync.
    writers_x16: u64,
}

impl GroupCommit {
    /// `max_delay` zero: never hold a sync.
    pub fn new(max_delay: Duration) -> GroupCommit {
        GroupCommit {
            max_delay,
            writers_x16: 0,
        }
    }

    /// Pending records at which the sync starts at once.
    pub fn target(&self) -> u64 {
        (self.writers_x16 / 16).max(1)
    }

    /// When to start the sync for `pending` records, the first of which was
    /// appended at `first_at`; `None` means now.
    pub fn start_at(&self, pending: u64, first_at: Option<Instant>) -> Option<Instant> {
        if pending >= self.target() {
            return None;
        }
        let at = first_at? + self.max_delay;
        (Instant::now() < at).then_some(at)
    }

    /// Notes a sync of `records` records.
    pub fn synced(&mut self, records: u64) {
        let decayed = self.writers_x16 - self.writers_x16 / 16;
        self.writers_x16 = decayed.max(records.saturating_mul(16));
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
        policy.synced(1);
        assert_eq!(policy.start_at(1, Some(Instant::now())), None);
    }

    #[test]
    fn after_a_large_group_the_next_waits_to_fill() {
        let mut policy = GroupCommit::new(Duration::from_secs(5));
        policy.synced(40);
        assert_eq!(policy.target(), 40);
        // A smaller group lowers the estimate by a sixteenth at a time.
        policy.synced(30);
        assert_eq!(policy.target(), 37);
        for _ in 0..100 {
            policy.synced(30);
        }
        assert_eq!(policy.target(), 30);
        let now = Instant::now();
        let at = policy.start_at(10, Some(now)).expect("held");
        assert!(at <= now + Duration::from_secs(5));
        assert_eq!(policy.start_at(30, Some(now)), None);
    }

    #[test]
    fn the_delay_is_capped_and_expires() {
        let mut policy = GroupCommit::new(MS);
        policy.synced(40);
        let long_ago = Instant::now() - 2 * MS;
        assert_eq!(policy.start_at(1, Some(long_ago)), None);
        let now = Instant::now();
        let at = policy.start_at(1, Some(now)).expect("held");
        assert!(at <= now + MS);
    }

    #[test]
    fn zero_max_delay_never_holds() {
        let mut policy = GroupCommit::new(Duration::ZERO);
        policy.synced(40);
        assert_eq!(policy.start_at(1, Some(Instant::now())), None);
    }
}
