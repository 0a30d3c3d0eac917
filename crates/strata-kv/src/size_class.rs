//! Size classes of items, for memcached's per-class statistics (`stats
//! items`, `stats slabs`, `stats cachedump`) and the per-class removal
//! counters kept here.
//!
//! Strata has no slab allocator: records are packed back to back in
//! segments whatever their size. Its classes are therefore a view, not an
//! allocation: an item's size is its record's bytes (header, key, value: on
//! the SSD tier the record on the device, not the stub), and class `c`
//! (1 to 63, as memcached numbers them) holds the sizes up to
//! `chunk_size(c)` and above `chunk_size(c - 1)`. Bounds grow by 1.25
//! (memcached's default `-f`), 8-byte aligned, from 32 bytes (Strata's
//! records are smaller than memcached's 48-byte item header, so its
//! smallest class is smaller than memcached's 96); class 63 (up to about
//! 43 MB) also takes anything larger.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::item::ItemRef;

/// Class ids are `1..CLASSES` (0 unused, as in memcached).
pub const CLASSES: usize = 64;
const SMALLEST: u64 = 32;
const FACTOR: f64 = 1.25;
const ALIGN: u64 = 8;

/// The largest item size of class `class` (`1..CLASSES`): memcached's
/// `chunk_size`.
pub fn chunk_size(class: usize) -> u64 {
    let mut size = SMALLEST;
    for _ in 1..class.clamp(1, CLASSES - 1) {
        size = ((size as f64 * FACTOR) as u64).div_ceil(ALIGN) * ALIGN;
    }
    size
}

/// The size of `item`'s record: header, key and value, as stored (in DRAM,
/// persistent memory or on the SSD alike).
pub fn item_size(item: &ItemRef<'_>) -> usize {
    let (key, value) = (item.key.len(), item.value.len());
    crate::arena::header_len(key, value, item.cas, item.stored_flags(), item.expires_at)
        + key
        + value
}

/// The class of an item of `size` bytes.
pub fn class_of(size: usize) -> usize {
    let size = size as u64;
    let mut bound = SMALLEST;
    for class in 1..CLASSES {
        if size <= bound {
            return class;
        }
        bound = ((bound as f64 * FACTOR) as u64).div_ceil(ALIGN) * ALIGN;
    }
    CLASSES - 1
}

/// Removals of one class since start, as memcached's `stats items` names
/// them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassRemovals {
    /// Evicted to make room.
    pub evicted: u64,
    /// Evicted without having been fetched since written.
    pub evicted_unfetched: u64,
    /// Seconds since last access of the most recently evicted item.
    pub evicted_time: u64,
    /// Expired items reclaimed (in the background or on access).
    pub reclaimed: u64,
    /// Expired without having been fetched since written.
    pub expired_unfetched: u64,
}

/// The per-class removal counters (cold paths only: evictions and
/// reclaimed expiries).
pub(crate) struct ClassCounters {
    evicted: [AtomicU64; CLASSES],
    evicted_unfetched: [AtomicU64; CLASSES],
    evicted_time: [AtomicU64; CLASSES],
    reclaimed: [AtomicU64; CLASSES],
    expired_unfetched: [AtomicU64; CLASSES],
}

impl Default for ClassCounters {
    fn default() -> Self {
        let zeros = || std::array::from_fn(|_| AtomicU64::new(0));
        Self {
            evicted: zeros(),
            evicted_unfetched: zeros(),
            evicted_time: zeros(),
            reclaimed: zeros(),
            expired_unfetched: zeros(),
        }
    }
}

impl ClassCounters {
    /// An item of `size` bytes was evicted, `idle_secs` after its last
    /// access, `fetched` or not since written.
    pub fn evicted(&self, size: usize, fetched: bool, idle_secs: u64) {
        let c = class_of(size);
        self.evicted[c].fetch_add(1, Ordering::Relaxed);
        if !fetched {
            self.evicted_unfetched[c].fetch_add(1, Ordering::Relaxed);
        }
        self.evicted_time[c].store(idle_secs, Ordering::Relaxed);
    }

    /// An expired item of `size` bytes was reclaimed.
    pub fn expired(&self, size: usize, fetched: bool) {
        let c = class_of(size);
        self.reclaimed[c].fetch_add(1, Ordering::Relaxed);
        if !fetched {
            self.expired_unfetched[c].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn get(&self, class: usize) -> ClassRemovals {
        let c = class.min(CLASSES - 1);
        let load = |a: &[AtomicU64; CLASSES]| a[c].load(Ordering::Relaxed);
        ClassRemovals {
            evicted: load(&self.evicted),
            evicted_unfetched: load(&self.evicted_unfetched),
            evicted_time: load(&self.evicted_time),
            reclaimed: load(&self.reclaimed),
            expired_unfetched: load(&self.expired_unfetched),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_sizes_in_order() {
        assert_eq!(chunk_size(1), 32);
        assert_eq!(chunk_size(2), 40);
        assert_eq!(chunk_size(3), 56);
        assert_eq!(class_of(0), 1);
        assert_eq!(class_of(32), 1);
        assert_eq!(class_of(33), 2);
        for class in 1..CLASSES - 1 {
            let top = chunk_size(class) as usize;
            assert_eq!(class_of(top), class);
            assert_eq!(class_of(top + 1), class + 1);
            assert!(chunk_size(class + 1) > chunk_size(class));
        }
        let last = chunk_size(CLASSES - 1);
        assert!(last > 40 << 20 && last < 41 << 20, "{last}");
        assert_eq!(class_of(last as usize), CLASSES - 1);
        assert_eq!(class_of(usize::MAX), CLASSES - 1);
    }
}
