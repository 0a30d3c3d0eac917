//! Memory tiers: where a keyspace's index and records are placed
//! ([`Placement`]) and the persistent arena as the keyspace uses it
//! ([`PmemTier`]: directory, flush epoch, CAS lease, owner ids).
//!
//! What lives where:
//! - `index = dram`: boxed slots, rebuilt at start (from the records when
//!   they persist, else from the command log).
//! - `index = pmem`: slot tables in the arena, published in the directory;
//!   a restart maps them and serves (`open/restart.rs` only recounts
//!   segment usage).
//! - `data = pmem`: segments are claimed chunk runs; an append persists the
//!   record, then publishes the segment's length.
//! - `data = ssd` (`ssd/`): records in an SSD write-block store behind
//!   a DRAM record cache; DRAM keeps the index and a small stub per key.
//!   `open/ssd_rebuild.rs` rebuilds both by scanning the blocks at start,
//!   `open/defrag.rs` moves live entries out of mostly-dead blocks. With
//!   `index = pmem` the stubs live in the arena too and `open/ssd_adopt.rs`
//!   adopts them at start, checking them against the block headers; a
//!   stub whose record did not reach the device is repaired from its
//!   prior (`stub.rs`; `fallbacks.rs` keeps what priors name).
//!
//! Everything here is a leaf primitive below the arena, the index and the
//! keyspace; opening a keyspace from the tiers is `crate::open`.

mod fallbacks;
mod placement;
mod pmem;
mod report;
pub(crate) mod ssd;
pub(crate) mod stub;

pub use placement::{DataTier, IndexTier, Placement};
pub use pmem::PmemTier;
pub(crate) use pmem::{data_owner, index_owner, pmem_error};
pub use report::RestartReport;
pub use ssd::{SsdRebuild, SsdSettings, SsdTier};
pub(crate) use stub::{Prior, StubValue, ValueRef, PERSISTENT_STUB_VALUE_LEN, VALUE_REF_LEN};
