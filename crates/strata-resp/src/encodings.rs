//! Redis's thresholds between a collection's packed encoding (listpack)
//! and its large one (chunk records, `strata_kv::large`), settable with
//! `CONFIG SET`: a hash is converted when it gets more than
//! `hash-max-listpack-entries` fields or a field or value longer than
//! `hash-max-listpack-value` bytes. As in Redis, a converted collection
//! stays large until it is deleted.

use std::sync::atomic::{AtomicU64, Ordering};

/// The live thresholds (Redis's defaults until changed).
#[derive(Debug)]
pub struct Encodings {
    hash_entries: AtomicU64,
    hash_value: AtomicU64,
}

impl Default for Encodings {
    fn default() -> Self {
        Self {
            hash_entries: AtomicU64::new(128),
            hash_value: AtomicU64::new(64),
        }
    }
}

/// Limits of a packed collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedLimits {
    /// Most entries (fields, members) a packed collection holds.
    pub entries: u64,
    /// Longest element (field, value, member) it holds, in bytes.
    pub value: u64,
}

impl PackedLimits {
    /// Whether `entries` entries with their longest element of `longest`
    /// bytes stay packed.
    pub fn fits(&self, entries: usize, longest: usize) -> bool {
        entries as u64 <= self.entries && longest as u64 <= self.value
    }
}

impl Encodings {
    /// `hash-max-listpack-entries` and `hash-max-listpack-value`.
    pub fn hash(&self) -> PackedLimits {
        PackedLimits {
            entries: self.hash_entries.load(Ordering::Relaxed),
            value: self.hash_value.load(Ordering::Relaxed),
        }
    }

    /// Sets `hash-max-listpack-entries`.
    pub fn set_hash_entries(&self, n: u64) {
        self.hash_entries.store(n, Ordering::Relaxed);
    }

    /// Sets `hash-max-listpack-value`.
    pub fn set_hash_value(&self, n: u64) {
        self.hash_value.store(n, Ordering::Relaxed);
    }
}
