//! [`ConnectionLimit`]: how many connections a port has open, against a
//! maximum, for front ends that have no client registry to count them
//! (HTTP; the key-value front ends count in theirs). A connection holds a
//! [`ConnectionPermit`] for its whole life; dropping it frees the place.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Open connections of one port, at most `max`.
#[derive(Debug)]
pub struct ConnectionLimit {
    max: usize,
    open: AtomicUsize,
}

/// One open connection's place under a [`ConnectionLimit`].
#[derive(Debug)]
pub struct ConnectionPermit {
    limit: Arc<ConnectionLimit>,
}

impl ConnectionLimit {
    /// A limit of `max` connections at once.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            open: AtomicUsize::new(0),
        })
    }

    /// A place for one more connection, or `None` when `max` are open.
    pub fn try_acquire(self: &Arc<Self>) -> Option<ConnectionPermit> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
                (open < self.max).then_some(open + 1)
            })
            .ok()
            .map(|_| ConnectionPermit {
                limit: Arc::clone(self),
            })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// The maximum.
    pub fn max(&self) -> usize {
        self.max
    }
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        self.limit.open.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permits_up_to_the_maximum_and_places_come_back() {
        let limit = ConnectionLimit::new(2);
        let a = limit.try_acquire().unwrap();
        let b = limit.try_acquire().unwrap();
        assert!(limit.try_acquire().is_none());
        assert_eq!(limit.open(), 2);
        drop(a);
        assert_eq!(limit.open(), 1);
        let c = limit.try_acquire().unwrap();
        assert!(limit.try_acquire().is_none());
        drop((b, c));
        assert_eq!(limit.open(), 0);
    }

    #[test]
    fn concurrent_acquirers_never_exceed_the_maximum() {
        let limit = ConnectionLimit::new(8);
        let held: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..100)
                            .filter_map(|_| limit.try_acquire())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        assert_eq!(held.len(), 8);
        assert_eq!(limit.open(), 8);
    }
}
