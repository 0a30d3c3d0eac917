//! Departures: a hook told of each item that leaves the keyspace on the
//! engine's own initiative — expired (found past its expiry by a write,
//! by a read or by the background reclaimer) or evicted (cache mode) —
//! with its key and why. Front ends use it for what they announce about
//! such keys (Redis's `expired`/`evicted` keyspace notifications; client
//! tracking invalidations could use it too). Deletes a caller asks for are
//! not reported: the caller knows about them.
//!
//! Contract of a [`DepartureObserver`]: it is called synchronously, with
//! the lock of the item's shard held, on whatever thread removed the item
//! (a worker or the maintenance thread). It must therefore never call
//! into the keyspace and never block, and it must be bounded: hand the
//! key to something that already has a bound (a bounded queue that drops
//! and counts, bounded outboxes), never to an unbounded buffer. Being
//! synchronous keeps the order: an item that expires under a write is
//! reported before that write's own result is.
//!
//! Cost when no observer is set: one relaxed load per expired or evicted
//! item (cold paths only); nothing on reads or writes of live items.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

/// Why an item left the keyspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Departure {
    /// Its expiry passed.
    Expired,
    /// Cache-mode eviction made room.
    Evicted,
}

/// Told of each item that leaves the keyspace on its own (see the module
/// documentation for the contract: shard lock held, never re-enter the
/// keyspace, never block, bounded).
pub trait DepartureObserver: Send + Sync {
    /// `key` (a user key) left the keyspace for `why`.
    fn departed(&self, key: &[u8], why: Departure);
}

/// The keyspace's observer slot.
#[derive(Default)]
pub(crate) struct Departures {
    set: AtomicBool,
    observer: RwLock<Option<Arc<dyn DepartureObserver>>>,
}

impl std::fmt::Debug for Departures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Departures")
            .field("set", &self.is_set())
            .finish()
    }
}

impl Departures {
    /// Replaces the observer (`None` removes it).
    pub fn replace(&self, observer: Option<Arc<dyn DepartureObserver>>) {
        let mut slot = self.observer.write();
        self.set.store(observer.is_some(), Ordering::Relaxed);
        *slot = observer;
    }

    /// True when an observer is set (one relaxed load).
    #[inline]
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }

    /// Tells the observer, if any, that `key` left for `why`.
    #[inline]
    pub fn report(&self, key: &[u8], why: Departure) {
        if self.is_set() {
            self.report_slow(key, why);
        }
    }

    #[cold]
    fn report_slow(&self, key: &[u8], why: Departure) {
        if let Some(observer) = self.observer.read().as_ref() {
            observer.departed(key, why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<(Vec<u8>, Departure)>>);

    impl DepartureObserver for Log {
        fn departed(&self, key: &[u8], why: Departure) {
            self.0.lock().push((key.to_vec(), why));
        }
    }

    #[test]
    fn reports_only_while_set() {
        let hook = Departures::default();
        hook.report(b"a", Departure::Expired);
        let log = Arc::new(Log::default());
        hook.replace(Some(log.clone()));
        hook.report(b"b", Departure::Evicted);
        hook.replace(None);
        hook.report(b"c", Departure::Expired);
        assert_eq!(*log.0.lock(), vec![(b"b".to_vec(), Departure::Evicted)]);
    }
}
