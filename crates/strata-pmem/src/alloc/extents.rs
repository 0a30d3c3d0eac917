//! The volatile free list: runs of free chunks by first chunk, coalesced.
//! Rebuilt from the chunk table at every open; never persisted.

use std::collections::BTreeMap;

/// Free chunks as maximal runs: `start -> length`.
///
/// Invariants: runs are non-empty, disjoint and never adjacent (adjacent
/// runs are merged); `free` is the sum of their lengths.
#[derive(Debug, Default)]
pub(crate) struct FreeExtents {
    runs: BTreeMap<u64, u64>,
    free: u64,
}

impl FreeExtents {
    /// Chunks free in total.
    pub(crate) fn free(&self) -> u64 {
        self.free
    }

    /// The longest free run.
    pub(crate) fn largest(&self) -> u64 {
        self.runs.values().copied().max().unwrap_or(0)
    }

    /// Takes the lowest run of `count` free chunks (first fit), returning
    /// its first chunk. `count` must be positive.
    pub(crate) fn take(&mut self, count: u64) -> Option<u64> {
        let (&start, &len) = self.runs.iter().find(|(_, len)| **len >= count)?;
        self.runs.remove(&start);
        if len > count {
            self.runs.insert(start + count, len - count);
        }
        self.free -= count;
        Some(start)
    }

    /// Returns `count` chunks from `start`, which the caller guarantees are
    /// not already free.
    pub(crate) fn give(&mut self, mut start: u64, mut count: u64) {
        if count == 0 {
            return;
        }
        self.free += count;
        if let Some((&prev, &len)) = self.runs.range(..start).next_back() {
            debug_assert!(prev + len <= start, "chunk {start} freed twice");
            if prev + len == start {
                self.runs.remove(&prev);
                start = prev;
                count += len;
            }
        }
        if let Some(len) = self.runs.remove(&(start + count)) {
            count += len;
        }
        self.runs.insert(start, count);
    }

    /// Whether chunk `index` is free.
    pub(crate) fn contains(&self, index: u64) -> bool {
        self.runs
            .range(..=index)
            .next_back()
            .is_some_and(|(start, len)| index < start + len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_and_give_coalesce() {
        let mut free = FreeExtents::default();
        free.give(0, 10);
        assert_eq!(free.take(3), Some(0));
        assert_eq!(free.take(3), Some(3));
        assert_eq!(free.take(5), None);
        assert_eq!(free.largest(), 4);
        free.give(0, 3);
        assert_eq!(free.take(4), Some(6));
        free.give(3, 3);
        assert_eq!(free.largest(), 6);
        free.give(6, 4);
        assert_eq!((free.free(), free.largest()), (10, 10));
        assert!(free.contains(9) && !free.contains(10));
    }
}
