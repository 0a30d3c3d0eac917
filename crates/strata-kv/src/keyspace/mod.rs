//! The sharded keyspace, bottom up: `shards.rs` (a shard behind its lock,
//! with mirrors for stats), `gate.rs` (the entry gate that long exclusive
//! sections close), `core.rs` ([`Keyspace`]: shard selection,
//! settings, stats), `locked/` (a set of write-locked shards: multi-key
//! operations, flush), then the two stores that implement
//! [`Store`](crate::Store): [`SharedStore`] (one shard per operation) and
//! [`ExclusiveStore`] (a whole batch), `placed.rs` (the tiers in use),
//! `items.rs` (a walk for size-class statistics) and `chunks.rs` (a census
//! of large collections' chunks); `large.rs` moves large collections
//! between keys; `lazy_expiry.rs` removes what a read finds expired (for
//! the departure observer); `groups.rs` turns key groups on and reads them; `prefetch.rs` warms the cache for a batch of keys.
//! Each file imports only the ones before it.

mod changes;
mod chunks;
mod core;
mod exclusive;
mod gate;
mod groups;
mod items;
mod large;
mod lazy_expiry;
mod locked;
mod placed;
mod prefetch;
mod shards;
mod shared;

pub use self::core::Keyspace;
pub use chunks::ChunkCensus;
pub use exclusive::ExclusiveStore;
pub use gate::GateEntry;
pub use prefetch::PREFETCH_BATCH;
pub(crate) use shards::Shard;
pub use shared::SharedStore;
