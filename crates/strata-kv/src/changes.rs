//! Changes: a hook told of every change to a user key — a write, a
//! delete, an expiry, an eviction, through any front end — and of every
//! flush, at the points where `WATCH` versions move. Front ends use it to
//! invalidate what clients cache of a key (Redis's `CLIENT TRACKING`).
//!
//! Contract of a [`ChangeObserver`]: it is called synchronously on the
//! thread that made the change, with the key's shard locked (every shard,
//! for a flush). It must never call into the keyspace and never block, and
//! what it keeps or sends must be bounded. Nothing is reported while
//! `Keyspace::report_changes` is off: one relaxed load per change.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Told of every change to a user key and of every flush (see the module
/// documentation for the contract).
pub trait ChangeObserver: Send + Sync {
    /// `key` was written, deleted, expired or evicted.
    fn changed(&self, key: &[u8]);
    /// Every key went (`FLUSHALL`, memcached `flush_all`).
    fn flushed(&self);
}

/// The keyspace's observer and whether it listens now.
#[derive(Default)]
pub(crate) struct Changes {
    pub(crate) on: AtomicBool,
    pub(crate) observer: OnceLock<Arc<dyn ChangeObserver>>,
}

impl std::fmt::Debug for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Changes")
            .field("on", &self.on.load(Ordering::Relaxed))
            .finish()
    }
}

impl Changes {
    /// Whether the observer listens now (one relaxed load): reads then
    /// remove what they find expired, so it hears of the expiry at once.
    #[inline]
    pub fn listening(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Tells the observer that `key` changed, if it listens.
    #[inline]
    pub fn changed(&self, key: &[u8]) {
        if self.on.load(Ordering::Relaxed) {
            if let Some(observer) = self.observer.get() {
                observer.changed(key);
            }
        }
    }

    /// Tells the observer of a flush, if it listens.
    pub fn flushed(&self) {
        if self.on.load(Ordering::Relaxed) {
            if let Some(observer) = self.observer.get() {
                observer.flushed();
            }
        }
    }
}
