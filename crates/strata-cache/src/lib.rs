//! # strata-cache: Strata's one DRAM cache
//!
//! [`Cache`]: a cache of immutable values with a byte budget that bounds
//! resident memory, and scan resistance (S3-FIFO). The SSD tier keeps its
//! records in it (in front of the device), search its segment files'
//! blocks; no Strata crate is below it.
//!
//! S3-FIFO (Yang et al., SOSP 2023) keeps three FIFO queues per shard:
//! - small (`fifo`, ~10% of the bytes): where new records enter. A record
//!   read again while there moves to main when it reaches the head; one
//!   never read again leaves, and its key is remembered in the ghost.
//! - main (`fifo`, the rest): records that proved useful. Each has a
//!   frequency 0..=3, raised by reads; at the head, a record with a
//!   non-zero frequency is reinserted with the frequency lowered, one at
//!   zero is evicted.
//! - ghost (`ghost`, keys only): a record inserted again soon after leaving
//!   the small queue goes straight to main.
//!
//! A one-pass scan of cold records therefore churns only the small queue
//! and never evicts the hot working set in main (`shard`).
//!
//! The cache is sharded by key hash (16 shards by default), each behind its
//! own mutex with its share of the budget. A key names an object and holds
//! one *version* of it (the SSD store: the key is the engine's hash of the
//! user key, the version the record's block sequence number and location,
//! which a reused block never repeats); a lookup hits only its exact
//! version, and a new version replaces the old in place, keeping its
//! hotness. Values are immutable [`Bytes`].
//!
//! One cache may serve several users (`user`): a [`SharedCache`] hands each
//! a [`UserCache`] handle (`handle`) whose keys it namespaces, all sharing
//! one byte budget and one eviction order, each with its own counters
//! (hits, misses, insertions, evictions, records and bytes held), and
//! each with an optional floor and ceiling ([`UserLimits`], `policy`) so
//! that no user starves another. A
//! `UserCache` may instead own a cache of its own, so that one type serves
//! an engine whether its budget is shared or not.
//!
//! The budget bounds resident memory (`memory`): each shard's hash table,
//! queues and ghost are charged by their real sizes, and its values by
//! what holds them. Small values whose own allocation would waste more
//! than packing does (100 or 1,030 bytes, not 1,000) are packed back to
//! back into 14 KiB segments (`segments`; in shards of 448 KiB or more)
//! and charged by their segments, a cleaner copying the live records out
//! of the segment with the most holes; other values keep their own
//! allocations, charged as the allocator sizes them. A full cache of
//! 100-byte records holds about 210,000 per 64 MiB (184,000 with an
//! allocation each; 409,000 counted when it occupied 2.7 times its
//! budget), of 1,030-byte ones 17% more than with an allocation each.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

mod cache;
mod fifo;
mod ghost;
mod handle;
mod memory;
mod policy;
mod segments;
mod shard;
mod shared;
mod stats;
mod user;

pub use cache::Cache;
pub use handle::{CacheKey, CacheVersion, UserCache, Word};
pub use policy::{LimitsError, UserLimits};
pub use shared::SharedCache;
pub use stats::CacheStats;
pub use user::CacheUser;

#[cfg(test)]
mod shared_tests;
