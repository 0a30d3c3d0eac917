//! # strata-kv: the key-value engine
//!
//! One keyspace shared by every front end. An item is a key, a value, memcached
//! flags, a CAS version unique per change and an optional expiry.
//!
//! ## Layout
//! Modules import only downward (`scripts/import-graph` checks it): leaves
//! (clock, item, error, stats, fetch, `config`, the journal hook, `tier`'s
//! primitives), then `arena` and `index`, `context` (`Ctx`), `shard`,
//! `keyspace`, and `open` above them.
//! - [`clock`]: time as the engine sees it; a manual clock for tests.
//! - [`chunk`]: the internal namespace of large collections' chunks;
//!   [`large`]: the large encodings over them (hashes, sets, lists).
//! - [`item`]: the borrowed item view and the mutations callers ask for.
//! - [`store`]: the [`Store`] trait every front end programs against.
//! - `keyspace`: [`Keyspace`], the sharded map; [`SharedStore`] and
//!   [`ExclusiveStore`] implement [`Store`] with per-shard or all-shard locking.
//! - `shard`: one shard: an index, an arena and the watch table, behind a lock.
//! - `arena`: item records packed into segments (anonymous mappings, or
//!   chunk runs of the persistent arena), addressed as (segment, offset);
//!   records are appended, superseded ones become garbage that compaction or
//!   eviction reclaims.
//! - `config`: [`KeyspaceConfig`]; `context`: the state every shard
//!   operation needs (clock, seed, CAS, settings, journal, tiers).
//! - [`tier`]: the [`Placement`] of index and records, the persistent
//!   arena's keyspace directory, the SSD tier ([`SsdTier`]): records in
//!   write blocks, DRAM stubs. `open`: building a keyspace from them at
//!   start (restore, rebuild scan, adopt, repair) and defragmentation.
//! - [`fetch`]: how a front end gets values that are not in DRAM without
//!   blocking a worker thread (defer, fetch, run the request again).
//! - `index`: the open-addressing hash index of 8-byte entries (tag, access
//!   bit, location).
//! - [`eviction`]: what happens when the memory limit is reached.
//! - [`departures`]: the hook told of each item that expires or is evicted.
//! - [`journal`]: the hook that hands every change to the command log, the
//!   redo record format, and recovery's apply path.
//! - `maintenance`: background expiry reclaim, compaction and delayed flush.
//! - `watch`: [`Watch`], a client's watch of one key for Redis `WATCH`.
//! - `untouched`: [`untouched`], reads that record no access (Redis's
//!   `CLIENT NO-TOUCH`).
//! - [`stats`]: counters and the stats snapshot.
//!
//! The engine never performs network I/O and never imports a front end.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

mod arena;
mod changes;
pub mod chunk;
pub mod clock;
pub mod collection;
mod config;
mod context;
pub mod departures;
mod error;
pub mod eviction;
pub mod fetch;
pub mod groups;
mod index;
pub mod item;
pub mod journal;
mod keyspace;
pub mod large;
mod maintenance;
mod open;
mod shard;
pub mod size_class;
pub mod stats;
pub mod store;
pub mod tier;
mod untouched;
mod watch;

pub use changes::ChangeObserver;
pub use chunk::Namespace;
pub use clock::{hold_now, Clock, HeldNow, ManualClock, SystemClock};
pub use config::KeyspaceConfig;
pub use departures::{Departure, DepartureObserver, ObserverId};
pub use error::KvError;
pub use eviction::EvictionPolicy;
pub use index::Access;
pub use item::{Deleted, ItemRef, Mutation, NewItem, StringForm, ValueKind};
pub use journal::{take_written_lsn, Journal, Refusal};
pub use keyspace::{ChunkCensus, ExclusiveStore, GateEntry, Keyspace, SharedStore, PREFETCH_BATCH};
pub use maintenance::{CatchUpBudget, Maintenance, Pacing, PassReport};
pub use shard::large::LargeEdit;
pub use shard::large_read::{ChunkSource, Current, LargeRead};
pub use shard::{Footprint, ItemInfo};
pub use stats::KeyspaceStats;
pub use store::{PairDecision, Renamed, Store};
pub use tier::{
    DataTier, IndexTier, Placement, PmemTier, RestartReport, SsdRebuild, SsdSettings, SsdTier,
};
pub use untouched::{untouched, Untouched};
pub use watch::Watch;
