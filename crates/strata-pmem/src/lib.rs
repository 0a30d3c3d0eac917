//! # strata-pmem: the persistent-memory arena
//!
//! The foundation of Strata's memory tiers: a file mapped shared into the
//! process, in which the key-value index and data can live across restarts.
//! On a DAX filesystem the file is mapped `MAP_SHARED_VALIDATE | MAP_SYNC`
//! and made durable by cache-line write-back (`clwb`, else `clflushopt`,
//! else `clflush`) and `sfence`; anywhere else (tmpfs, ext4 without DAX)
//! persistence is emulated with `msync`, and the arena says so at start-up
//! and in its stats.
//!
//! Every update is ordered so that a crash at any instruction leaves a
//! consistent state: write and persist the record, then publish it with one
//! 8-byte atomic store and persist that.
//!
//! ## Layout
//! - `map`: [`PmemMap`], the mapping, the flush instructions and the
//!   prefetch hint ([`prefetch_line`]); the only
//!   module with `unsafe` (listed in `UNSAFE.md`).
//! - `sim`: [`SimulatedPmem`], persistent memory in ordinary memory with
//!   crash images (`crash`, `crash_torn`, power cuts at an exact persist).
//! - `backing`: [`Backing`], one or the other, chosen once.
//! - `words`: byte access as aligned 8-byte atomics, the default view.
//! - `claim`: [`ClaimedRun`], plain `&[u8]` access to one run for its single
//!   owner; a claimed run refuses every other view (the second `unsafe`
//!   module).
//! - `header`: magic, version, geometry and CRC32C; clean flag, generation
//!   and the root table ([`ROOT_SLOTS`] published u64 slots).
//! - `alloc`: the crash-consistent chunk allocator ([`ChunkRun`]).
//! - `arena`: [`PersistentArena`], all of the above opened together.
//! - `mode`: [`PersistMode`], [`FlushInstruction`], [`PersistPolicy`].
//!
//! This crate never depends on any other Strata crate.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![deny(unsafe_code)]

#[cfg(target_endian = "big")]
compile_error!("strata-pmem stores native-endian atomic words in a little-endian format");

mod alloc;
mod arena;
mod backing;
#[allow(unsafe_code)]
mod claim;
mod error;
mod header;
#[allow(unsafe_code)]
mod map;
mod mode;
mod sim;
mod words;

pub use alloc::ChunkRun;
pub use arena::stats::ArenaStats;
pub use arena::PersistentArena;
pub use backing::Backing;
pub use claim::{ClaimedRun, ClaimedWords};
pub use error::{PmemError, Result};
pub use header::layout::{
    DEFAULT_CHUNK_SIZE, FORMAT_VERSION, HEADER_LEN, IMMUTABLE_LEN, MAGIC, MAX_CHUNKS,
    MAX_CHUNK_SIZE, MIN_CHUNK_SIZE, ROOT_SLOTS,
};
pub use map::{prefetch_line, PmemMap};
pub use mode::{FlushInstruction, PersistMode, PersistPolicy};
pub use sim::SimulatedPmem;
