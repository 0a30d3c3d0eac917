//! How an index's shards sit on storage: the tantivy schema every shard
//! shares (`schema`), the placement of its files (`tier`, `storage`), and
//! the tiered directory (`tiered`, `persist`) that keeps fresh segments in
//! DRAM or persistent memory (`fresh`; in pmem on the device layer,
//! `pmem_files`) until a flush persists them, then
//! reads them as the placement says (`disk_reads`): whole in DRAM, or in
//! blocks (`cached_file`) through the node's budgeted `block_cache`.
//! `stored_values` reads numeric columns through their stored `u64`s;
//! `source_shapes` keeps each `_source` as a shared shape and its values;
//! `stored_doc` finds `_id` and `_source` in a stored document's bytes.
//! `files`: the device-layer directories of search's own files; `disk`:
//! a shard's persisted files on them, or (`node_store`, `set_device`) in
//! the node's SSD store shared with the key-value engine.

mod block_cache;
mod cached_file;
mod disk;
mod disk_reads;
mod files;
mod fresh;
pub mod geo_codes;
pub mod geo_columns;
mod node_store;
mod persist;
mod pmem_files;
mod schema;
mod set_device;
mod shard_index;
pub(crate) mod source_shapes;
mod storage;
pub(crate) mod stored_doc;
pub mod stored_values;
mod tier;
mod tiered;
#[cfg(test)]
mod tiered_codec_tests;

pub use block_cache::{BlockCache, BLOCK_SIZE};
pub(crate) use cached_file::ReadCounters;
pub use files::SearchFiles;
pub use node_store::NodeStore;
pub(crate) use persist::Persisted;
pub use schema::{json_term, KEYWORDS};
pub(crate) use schema::{version_of, NestedFields, SchemaFields, VersionColumns};
pub(crate) use shard_index::open_index;
pub(crate) use storage::ShardStorage;
pub use storage::{SearchStorage, DEFAULT_IDLE_AFTER};
pub use tier::StoreTier;
pub use tiered::TieredDirectory;
