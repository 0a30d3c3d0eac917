//! A process-wide cache of structures derived from one column of one
//! segment (zone maps, term coupons), within a byte budget.
//!
//! Segments are immutable and their ids unique, so what is computed from a
//! segment's column once stays valid for as long as the segment lives; a
//! merged-away segment's entries are simply never asked for again and age
//! out. When the cache holds more than its budget, the least recently used
//! entries are dropped until it holds at most half of it (so a full cache
//! is not sorted on every insert).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use tantivy::index::SegmentId;

type Key = (SegmentId, String);

struct Entry<V> {
    value: Arc<V>,
    bytes: usize,
    used: u64,
}

struct Inner<V> {
    entries: HashMap<Key, Entry<V>>,
    bytes: usize,
    clock: u64,
}

/// See the module docs.
pub struct SegmentCache<V> {
    inner: Mutex<Inner<V>>,
    budget: usize,
}

impl<V> SegmentCache<V> {
    /// An empty cache holding at most about `budget` bytes.
    pub fn new(budget: usize) -> SegmentCache<V> {
        SegmentCache {
            inner: Mutex::new(Inner {
                entries: HashMap::new(),
                bytes: 0,
                clock: 0,
            }),
            budget,
        }
    }

    /// The entry for `column` of `segment`, if cached.
    pub fn get(&self, segment: SegmentId, column: &str) -> Option<Arc<V>> {
        let mut inner = self.inner.lock();
        inner.clock += 1;
        let now = inner.clock;
        let entry = inner.entries.get_mut(&(segment, column.to_string()))?;
        entry.used = now;
        Some(Arc::clone(&entry.value))
    }

    /// Whether an entry for `column` of `segment` is cached (without
    /// counting as a use).
    pub fn contains(&self, segment: SegmentId, column: &str) -> bool {
        let inner = self.inner.lock();
        inner.entries.contains_key(&(segment, column.to_string()))
    }

    /// Drops every entry of `segment`.
    pub fn forget(&self, segment: SegmentId) {
        let mut inner = self.inner.lock();
        let mut freed = 0;
        inner.entries.retain(|(id, _), entry| {
            let keep = *id != segment;
            if !keep {
                freed += entry.bytes;
            }
            keep
        });
        inner.bytes -= freed;
    }

    /// Whether an entry of `bytes` more would keep the cache within its
    /// budget, so that adding it evicts nothing.
    pub fn fits(&self, bytes: usize) -> bool {
        self.inner.lock().bytes.saturating_add(bytes) <= self.budget
    }

    /// The entry for `column` of `segment`, built by `build` (the value and
    /// its size in bytes) when not cached. It is built outside the lock:
    /// two searches may both build it, and the first one in is kept.
    pub fn get_or_try_build<E>(
        &self,
        segment: SegmentId,
        column: &str,
        build: impl FnOnce() -> Result<(V, usize), E>,
    ) -> Result<Arc<V>, E> {
        if let Some(value) = self.get(segment, column) {
            return Ok(value);
        }
        let (value, bytes) = build()?;
        let value = Arc::new(value);
        let mut inner = self.inner.lock();
        inner.clock += 1;
        let now = inner.clock;
        let key = (segment, column.to_string());
        if let Some(entry) = inner.entries.get(&key) {
            return Ok(Arc::clone(&entry.value));
        }
        inner.bytes += bytes;
        let entry = Entry {
            value: Arc::clone(&value),
            bytes,
            used: now,
        };
        inner.entries.insert(key, entry);
        if inner.bytes > self.budget {
            evict(&mut inner, self.budget / 2);
        }
        Ok(value)
    }
}

/// Drops the least recently used entries until at most `keep` bytes remain.
fn evict<V>(inner: &mut Inner<V>, keep: usize) {
    let mut by_age: Vec<(u64, Key)> = inner
        .entries
        .iter()
        .map(|(k, e)| (e.used, k.clone()))
        .collect();
    by_age.sort_unstable_by_key(|(used, _)| *used);
    for (_, key) in by_age {
        if inner.bytes <= keep {
            break;
        }
        if let Some(entry) = inner.entries.remove(&key) {
            inner.bytes -= entry.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_recently_used_within_budget() {
        let cache: SegmentCache<u32> = SegmentCache::new(100);
        let (a, b, c) = (
            SegmentId::generate_random(),
            SegmentId::generate_random(),
            SegmentId::generate_random(),
        );
        let built = |v: u32| move || Ok::<_, ()>((v, 40));
        assert!(cache.fits(100) && !cache.fits(101));
        assert_eq!(*cache.get_or_try_build(a, "f", built(1)).unwrap(), 1);
        assert!(cache.contains(a, "f") && !cache.contains(a, "g"));
        assert!(cache.fits(60) && !cache.fits(61));
        // Cached: not built again.
        assert_eq!(*cache.get_or_try_build(a, "f", built(9)).unwrap(), 1);
        cache.get_or_try_build(b, "f", built(2)).unwrap();
        assert!(cache.get(a, "f").is_some()); // a is now the more recent
                                              // Over budget (120 > 100): down to half, the oldest (b) first.
        cache.get_or_try_build(c, "f", built(3)).unwrap();
        assert!(cache.get(b, "f").is_none());
        assert!(cache.get(a, "g").is_none());
        assert_eq!(cache.get_or_try_build(c, "f", || Err(())), Ok(Arc::new(3)));
        assert_eq!(
            cache.get_or_try_build(b, "f", || Err::<(u32, usize), _>(())),
            Err(())
        );
        // Forgetting a segment drops its entries and their bytes.
        // (The eviction above left only c's 40 bytes.)
        cache.get_or_try_build(c, "g", built(4)).unwrap();
        assert!(cache.fits(20) && !cache.fits(21));
        cache.forget(a);
        assert!(
            cache.fits(20) && !cache.fits(21),
            "nothing of a left to forget"
        );
        cache.forget(c);
        assert!(!cache.contains(c, "f") && !cache.contains(c, "g"));
        assert!(cache.fits(100));
    }
}
