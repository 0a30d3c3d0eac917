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
//! into the keyspace (nor add or remove observers) and never block, and
//! it must be bounded: hand the key to something that already has a
//! bound (a bounded queue that drops and counts, bounded outboxes), never
//! to an unbounded buffer. Being synchronous keeps the order: an item
//! that expires under a write is reported before that write's own result
//! is.
//!
//! Several observers may be added (each feature that needs departures
//! adds its own and removes it by id). Cost when none is: one relaxed
//! load per expired or evicted item and per read that finds nothing;
//! nothing on reads or writes of live items.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

/// Identifies an observer added to a keyspace, for removing it.
pub type ObserverId = u64;

/// The keyspace's observers (usually none or one; each front end feature
/// that needs departures adds its own).
#[derive(Default)]
pub(crate) struct Departures {
    set: AtomicBool,
    observers: RwLock<Vec<(ObserverId, Arc<dyn DepartureObserver>)>>,
    next_id: AtomicU64,
}

impl std::fmt::Debug for Departures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Departures")
            .field("observers", &self.observers.read().len())
            .finish()
    }
}

impl Departures {
    /// Adds `observer`; returns its id.
    pub fn add(&self, observer: Arc<dyn DepartureObserver>) -> ObserverId {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut observers = self.observers.write();
        observers.push((id, observer));
        self.set.store(true, Ordering::Relaxed);
        id
    }

    /// Removes the observer `id`; false when there was none.
    pub fn remove(&self, id: ObserverId) -> bool {
        let mut observers = self.observers.write();
        let before = observers.len();
        observers.retain(|(i, _)| *i != id);
        self.set.store(!observers.is_empty(), Ordering::Relaxed);
        observers.len() != before
    }

    /// True when an observer is set (one relaxed load).
    #[inline]
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }

    /// Tells every observer that `key` left for `why`.
    #[inline]
    pub fn report(&self, key: &[u8], why: Departure) {
        if self.is_set() {
            self.report_slow(key, why);
        }
    }

    #[cold]
    fn report_slow(&self, key: &[u8], why: Departure) {
        for (_, observer) in self.observers.read().iter() {
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
    fn reports_to_each_observer_while_added() {
        let hook = Departures::default();
        hook.report(b"a", Departure::Expired);
        assert!(!hook.is_set());
        let (one, two) = (Arc::new(Log::default()), Arc::new(Log::default()));
        let first = hook.add(one.clone());
        let second = hook.add(two.clone());
        hook.report(b"b", Departure::Evicted);
        assert!(hook.remove(first));
        assert!(!hook.remove(first));
        hook.report(b"c", Departure::Expired);
        assert!(hook.remove(second));
        assert!(!hook.is_set());
        hook.report(b"d", Departure::Expired);
        assert_eq!(*one.0.lock(), vec![(b"b".to_vec(), Departure::Evicted)]);
        let both = vec![
            (b"b".to_vec(), Departure::Evicted),
            (b"c".to_vec(), Departure::Expired),
        ];
        assert_eq!(*two.0.lock(), both);
    }
}
