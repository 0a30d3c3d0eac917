//! Engine counters and the snapshot callers read.
//!
//! Counters are striped over cache-padded cells indexed by thread, so hot
//! paths on different cores never write the same cache line; reads sum the
//! stripes.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

const STRIPES: usize = 16;

/// A monotonically increasing counter shared by all threads, cheap to bump
/// from any core (front ends use it for their protocol counters too).
#[derive(Debug)]
pub struct Counter {
    cells: [CachePadded<AtomicU64>; STRIPES],
}

impl Default for Counter {
    fn default() -> Self {
        Self {
            cells: std::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))),
        }
    }
}

fn stripe() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    STRIPE.with(|s| {
        if s.get() == usize::MAX {
            s.set(NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES);
        }
        s.get()
    })
}

impl Counter {
    /// Adds one.
    pub fn incr(&self) {
        self.add(1);
    }

    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.cells[stripe()].fetch_add(n, Ordering::Relaxed);
    }

    /// The current total (a momentary sum, not a linearizable snapshot).
    pub fn get(&self) -> u64 {
        self.cells.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }

    /// Back to zero (`stats reset`, `CONFIG RESETSTAT`).
    pub fn reset(&self) {
        for cell in &self.cells {
            cell.store(0, Ordering::Relaxed);
        }
    }
}

/// The sum of every shard's published usage (`used_memory`), and the
/// highest it has been since the keyspace was made: one cache line
/// shared by the shards, which add their changes as they release their
/// write locks.
#[derive(Debug, Default)]
pub(crate) struct UsedTotal {
    now: AtomicU64,
    peak: AtomicU64,
}

impl UsedTotal {
    /// The sum now.
    pub fn get(&self) -> u64 {
        self.now.load(Ordering::Relaxed)
    }

    /// The highest sum reached.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed).max(self.get())
    }

    /// Adds a shard's change (negative when it shrank). The sum is never
    /// below zero, as every shard's share is not.
    pub fn add(&self, delta: i64) {
        // Wrapping add of a signed delta keeps the total exact.
        let before = self.now.fetch_add(delta as u64, Ordering::Relaxed);
        let after = before.wrapping_add(delta as u64);
        if delta > 0 && after > self.peak.load(Ordering::Relaxed) {
            self.peak.fetch_max(after, Ordering::Relaxed);
        }
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    pub hits: Counter,
    pub misses: Counter,
    pub total_items: Counter,
    pub evictions: Counter,
    pub expired: Counter,
    pub compactions: Counter,
    pub by_class: crate::size_class::ClassCounters,
}

/// A snapshot of the keyspace's state and counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyspaceStats {
    /// Items held (including expired ones not yet reclaimed).
    pub items: u64,
    /// Items that carry an expiry.
    pub items_with_expiry: u64,
    /// Bytes counted against the limit: written record bytes (live records
    /// plus superseded ones awaiting compaction) and index slots.
    pub used_memory: u64,
    /// The highest `used_memory` has been since the keyspace was made.
    pub used_memory_peak: u64,
    /// What the keyspace holds without any item: each shard's index at its
    /// smallest (`used_memory` of an empty keyspace, as at start before
    /// recovery loads anything).
    pub used_memory_startup: u64,
    /// The configured memory limit.
    pub memory_limit: u64,
    /// Bytes of index slots (part of `used_memory`).
    pub index_bytes: u64,
    /// Segments mapped.
    pub segments: u64,
    /// Items stored since start (every successful write).
    pub total_items: u64,
    /// Items evicted to make room.
    pub evictions: u64,
    /// Expired items reclaimed, in the background or on access.
    pub expired: u64,
    /// Reads that found a live item.
    pub hits: u64,
    /// Reads that found nothing.
    pub misses: u64,
    /// Segments compacted.
    pub compactions: u64,
}
