//! What the cache's structures really occupy in memory, so that the byte
//! budget bounds resident memory and not only counted payload. A leaf.
//!
//! The cache counts, for every shard: each unpacked value's heap
//! allocation as the allocator sizes it ([`value_bytes`]; packed values
//! are counted by their segments, `segments`), the hash table of entries by its
//! bucket array ([`table_bytes`]), and each queue by its ring buffer
//! ([`deque_bytes`]). Measured before this accounting, a record of 100
//! bytes occupied about 437 bytes while 164 were counted, and a 64 MiB
//! cache grew the process by 179 MB (`tests/cache_memory.rs`).

use std::mem::size_of;

/// Values at least this long are taken to be read buffers handed out in
/// place (the store's large reads): an aligned window that may hold up to
/// two alignment pages and an entry header more than the payload.
const IN_PLACE: usize = 64 * 1024;

/// Device alignment of an in-place read buffer.
const PAGE: usize = 4096;

/// The `Bytes` shared header a value gains when it is first cloned (a hit),
/// as a heap allocation (`Shared`: buffer, capacity, reference count).
const SHARED_HEADER: usize = 32;

/// What the allocator holds per unpacked value beyond its size class.
/// Measured, not derived: with tables and queues counted as the allocator
/// sizes them (`buffer_bytes`), a full cache of 1,000-byte records still
/// occupied 4.5-5% more than it counted without this (about 60 bytes per
/// record; 1.2% more with it); the cause is not known. (Measured first as
/// 343.5 resident bytes per 100-byte record against 314.5 counted, when
/// the tables were counted by their length.)
const ALLOCATOR_SLACK: usize = 32;

/// Heap bytes a cached value of `len` bytes holds: its allocation as
/// jemalloc or glibc's malloc sizes it (whichever is larger), the header a
/// clone adds, the allocator's own slack for a small value, and for a large
/// read its alignment slack.
///
/// Callers guarantee a value owns an allocation of about its length (a
/// copied-out record, a `Vec` without spare capacity, or a store read
/// buffer): a small slice of a large buffer would pin more than counted.
pub(super) fn value_bytes(len: usize) -> usize {
    if len >= IN_PLACE {
        return len.next_multiple_of(PAGE) + 2 * PAGE + SHARED_HEADER;
    }
    allocation(len) + SHARED_HEADER + ALLOCATOR_SLACK
}

/// jemalloc's largest small size class: larger allocations come from page
/// extents, each with a page more (its cache-oblivious offset).
pub(super) const SMALL_MAX: usize = 14 * 1024;

/// Bytes a table, queue or list buffer of `len` bytes occupies: its size
/// class, and for a large one the extent's extra page. Measured: counting
/// buffers by their length left a full cache of 100-byte records 6% over
/// what it counted (jemalloc's `stats.allocated` 31.7 MB for 30.0 MB), its
/// tables of 299,024 bytes taking 331,776.
pub(super) fn buffer_bytes(len: usize) -> usize {
    match len {
        0 => 0,
        1..=SMALL_MAX => allocation(len),
        _ => allocation(len) + PAGE,
    }
}

/// Bytes an allocation of `len` takes: jemalloc's size class (four classes
/// per doubling, 16-byte steps up to 128) or glibc's chunk (`len` plus an
/// 8-byte header, in 16-byte steps, at least 32), whichever is larger.
fn allocation(len: usize) -> usize {
    let jemalloc = match len {
        0..=8 => 8,
        9..=128 => len.next_multiple_of(16),
        _ => {
            let spacing = 1usize << ((len - 1).ilog2() - 2);
            len.next_multiple_of(spacing)
        }
    };
    let glibc = (len + 8).next_multiple_of(16).max(32);
    jemalloc.max(glibc)
}

/// Bytes of a hash table (std's, hashbrown) of `T` whose capacity, right
/// after it last grew, was `capacity`: its buckets (a power of two, 8/7 of
/// the capacity) and one control byte per bucket plus a group's width, as
/// the allocator sizes that.
pub(super) fn table_bytes<T>(capacity: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = (capacity * 8 / 7).next_power_of_two();
    buffer_bytes(buckets * (size_of::<T>() + 1) + 16)
}

/// Bytes of a `VecDeque<T>` ring buffer (or a `Vec<T>`) of `capacity`
/// slots, as the allocator sizes it.
pub(super) fn deque_bytes<T>(capacity: usize) -> usize {
    buffer_bytes(capacity * size_of::<T>())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn allocations_round_up_to_the_allocators_classes() {
        assert_eq!(allocation(100), 112);
        assert_eq!(allocation(120), 128);
        assert_eq!(allocation(129), 160);
        assert_eq!(allocation(1), 32);
        assert_eq!(allocation(5000), 5120);
        assert_eq!(value_bytes(100), 176);
        assert_eq!(value_bytes(100_000), 102_400 + 8192 + 32);
    }

    #[test]
    fn table_bytes_follow_the_buckets_of_std_hash_maps() {
        let mut map = HashMap::new();
        for key in 0..100_000u64 {
            map.insert(key, key);
            let capacity = map.capacity();
            let buckets = (capacity * 8 / 7).next_power_of_two();
            // hashbrown's capacity is 7/8 of its buckets (one less below 8).
            assert!(capacity == buckets * 7 / 8 || capacity == buckets - 1);
        }
        assert_eq!(table_bytes::<(u64, u64)>(7), 160, "152 bytes, in 160");
        // 2,228,240 bytes: a large class (512 KiB steps here) and a page.
        assert_eq!(table_bytes::<(u64, u64)>(114_688), 2_621_440 + 4096);
        assert_eq!(buffer_bytes(299_024), 327_680 + 4096);
    }
}
