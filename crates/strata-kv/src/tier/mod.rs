//! Memory tiers: where a keyspace's index and records are placed
//! ([`Placement`]) and the persistent arena as the keyspace uses it
//! ([`PmemTier`]: directory, flush epoch, CAS lease, owner ids).
//!
//! What lives where:
//! - `index = dram`: boxed slots, rebuilt at start (from the records when
//!   they persist, else from the command log).
//! - `index = pmem`: slot tables in the arena, published in the directory;
//!   a restart maps them and serves (`restart.rs` only recounts segment
//!   usage).
//! - `data = pmem`: segments are claimed chunk runs; an append persists the
//!   record, then publishes the segment's length.
//! - `data = ssd`: not available yet (refused when configured).

mod placement;
mod pmem;
mod restart;

pub use placement::{DataTier, IndexTier, Placement};
pub use pmem::PmemTier;
pub(crate) use pmem::{data_owner, index_owner, pmem_error};
pub use restart::RestartReport;
pub(crate) use restart::{restore_shard, RestoredShard};
