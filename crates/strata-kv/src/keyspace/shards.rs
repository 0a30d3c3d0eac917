//! [`Shard`]: one shard behind its lock, with lock-free mirrors of its
//! size for stats; [`ShardWrite`] hands the changes made under the write
//! lock to the journal and refreshes the mirrors when released.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_utils::CachePadded;
use parking_lot::{Mutex, RwLock, RwLockWriteGuard};

use crate::context::{append_to, JournalSlot};
use crate::shard::ShardInner;
use crate::stats::UsedTotal;

/// One shard and lock-free mirrors of its size for stats.
pub(crate) struct Shard {
    inner: RwLock<ShardInner>,
    /// The keyspace-wide total this shard's usage is summed into.
    used_total: Arc<CachePadded<UsedTotal>>,
    /// Where the changes made under a write lock go when it is released.
    journal: JournalSlot,
    pub items: AtomicU64,
    pub with_expiry: AtomicU64,
    pub used: AtomicU64,
    pub index_bytes: AtomicU64,
    pub segments: AtomicU64,
    /// Keys whose watch ended while the shard was held (`Watch` drops
    /// never wait for the lock); the next watch or unwatch on the shard
    /// unregisters them.
    pub unwatched: Mutex<Vec<Box<[u8]>>>,
}

impl Shard {
    /// `inner` behind a lock, summing its usage into `used_total` and
    /// journaling into `journal`. The mirrors read 0 until the first
    /// write lock is released.
    pub fn new(
        inner: ShardInner,
        used_total: Arc<CachePadded<UsedTotal>>,
        journal: JournalSlot,
    ) -> Self {
        Self {
            inner: RwLock::new(inner),
            used_total,
            journal,
            items: AtomicU64::new(0),
            with_expiry: AtomicU64::new(0),
            used: AtomicU64::new(0),
            index_bytes: AtomicU64::new(0),
            segments: AtomicU64::new(0),
            unwatched: Mutex::new(Vec::new()),
        }
    }

    pub fn read(&self) -> parking_lot::RwLockReadGuard<'_, ShardInner> {
        self.inner.read()
    }

    /// The read lock if it can be had now (never waits).
    pub fn try_read(&self) -> Option<parking_lot::RwLockReadGuard<'_, ShardInner>> {
        self.inner.try_read()
    }

    pub fn write(&self) -> ShardWrite<'_> {
        ShardWrite {
            shard: self,
            guard: self.inner.write(),
        }
    }

    /// The write lock if it is free now (never waits, so it may be called
    /// while holding another shard's lock).
    pub fn try_write(&self) -> Option<ShardWrite<'_>> {
        let guard = self.inner.try_write()?;
        Some(ShardWrite { shard: self, guard })
    }
}

/// A write lock on a shard that refreshes the shard's mirrors when released.
pub(crate) struct ShardWrite<'a> {
    shard: &'a Shard,
    guard: RwLockWriteGuard<'a, ShardInner>,
}

impl Deref for ShardWrite<'_> {
    type Target = ShardInner;
    fn deref(&self) -> &ShardInner {
        &self.guard
    }
}

impl DerefMut for ShardWrite<'_> {
    fn deref_mut(&mut self) -> &mut ShardInner {
        &mut self.guard
    }
}

impl Drop for ShardWrite<'_> {
    fn drop(&mut self) {
        let s = self.shard;
        // Still under the lock: the journal's order is the apply order.
        append_to(&s.journal, &mut self.guard.journal_buf);
        let used = self.guard.used_bytes();
        let delta = used as i64 - self.guard.published_used as i64;
        if delta != 0 {
            s.used_total.add(delta);
            self.guard.published_used = used;
        }
        let g = &self.guard;
        s.items.store(g.user_len() as u64, Ordering::Relaxed);
        s.with_expiry.store(g.with_expiry as u64, Ordering::Relaxed);
        s.used.store(g.used_bytes() as u64, Ordering::Relaxed);
        s.index_bytes
            .store(g.index.bytes() as u64, Ordering::Relaxed);
        s.segments
            .store(g.arena.segment_count() as u64, Ordering::Relaxed);
    }
}
