//! # strata-search: Elasticsearch-style indices on tantivy
//!
//! The search engine of Strata, without any HTTP: indices with mappings and
//! settings, documents with versions and sequence numbers, the query DSL
//! and aggregations, refresh and flush. tantivy provides the inverted
//! index, segments, merging and aggregations; this crate maps
//! Elasticsearch's model onto it and makes it durable through a per-index
//! translog on `strata-log`.
//!
//! ## Layout
//! The modules are private; the `pub use` façade below them is the crate's
//! API (`docs/design/search.md`, "API").
//! - [`catalog`]: all indices, aliases and templates of a node, name
//!   resolution, the background refresh/flush task.
//! - [`aliases`]: the alias table (alias → index links, filters, write index).
//! - [`breaker`]: circuit breakers bounding what requests hold in memory.
//! - [`templates`]: legacy, composable and component index templates.
//! - [`rollover`]: rolling a write alias over to a new index.
//! - [`durable_json`]: the node-level JSON files, replaced atomically.
//! - [`index`]: one index (settings, mapping, translog, shards): document
//!   operations, recovery, stats.
//! - [`shard`]: one tantivy index with its writer, reader and live version map.
//! - [`store`]: the fixed tantivy schema, the placement of an index's files
//!   (`index.store.tier`: `dram`, `ssd`, `pmem`), the node's block cache
//!   and the tiered directory (fresh segments in DRAM or persistent
//!   memory, flushed ones on disk, read whole in DRAM or through the cache).
//! - [`mapping`]: field types, dynamic mapping, dates.
//! - [`settings`]: index settings; [`codec`] (`index.codec`, the stored
//!   fields' compression) and [`advisory_settings`] (accepted, kept and
//!   shown, with nothing to act on in one node) are parts of them.
//! - [`index_limits`]: Elasticsearch's per-index limits (terms, result
//!   window, mapping size and depth).
//! - [`translog`]: the translog record format.
//! - [`kernels`]: Strata's own hot loops over column blocks, with run-time
//!   CPU dispatch (x86-64-v3 where the CPU has it, the portable baseline else).
//! - [`query`]: query DSL to tantivy queries.
//! - [`search`]: running searches and aggregations over shards.
//! - [`slowlog`]: the search and indexing slow logs and the operation
//!   timings `_stats` and the metrics port report.
//! - [`error`]: [`SearchError`], carrying Elasticsearch's error type and status.
//!
//! ## Durability
//! An indexing operation is appended to the index's translog before the
//! tantivy writer sees it; with `request` durability the caller awaits
//! [`SearchIndex::durable`] before acknowledging. A refresh commits to DRAM
//! (no fsync), or for `pmem` indices to persistent memory (synced there,
//! no device I/O), where it survives a restart. A flush persists the newest commit to disk, with the
//! translog LSN it covers as its payload, and trims the translog below the
//! LSN all shards cover. Opening an index replays the translog above each
//! shard's durable commit.
//!
//! This crate must never know about HTTP or JSON wire details beyond the
//! Elasticsearch request and response bodies.

#![deny(unsafe_code)]

mod advisory_settings;
mod aliases;
mod analysis;
mod breaker;
mod catalog;
mod codec;
mod dotted;
mod durable_json;
mod error;
mod index;
mod index_limits;
mod kernels;
mod mapping;
mod query;
mod rollover;
mod script;
mod search;
mod settings;
mod shard;
mod slowlog;
mod store;
mod templates;
mod time_value;
mod translog;

// The façade: everything `strata-es`, `strata-server` and this crate's
// integration tests use. The modules above are private; only these names
// are the crate's API.

// The node's indices, aliases and templates.
pub use aliases::{AliasMeta, Aliases};
pub use catalog::{
    wildcard_match, AliasAction, Catalog, IndicesOptions, TemplateKind, DEFAULT_MAX_SHARDS_PER_NODE,
};
pub use error::{QueryStep, Result, SearchError};
pub use index::{analyze_text, DocWriteResult, FieldDiskUsage, SearchIndex, WriteResult};
pub use mapping::{FieldType, Mappings};
pub use shard::{Precondition, PRIMARY_TERM};
pub use templates::{TemplateBody, Templates};

// Searching: requests, point-in-time snapshots, scripts, the slow log.
pub use query::{ParsedQuery, MAX_NESTED_DEPTH};
pub use script::update::{update_with_script, Upsert};
pub use script::{compile as compile_script, Compiled as CompiledScript};
pub use search::bucket_limit::{
    set_max_buckets, DEFAULT_MAX_BUCKETS, SETTING as MAX_BUCKETS_SETTING,
};
pub use search::slice::Slice;
pub use search::snapshot::Snapshot;
pub use search::sort::{Missing, SortField};
pub use search::source_filter::SourceFilter;
pub use search::{count, search, search_response, SearchRequest, SearchResponse, TrackTotalHits};
pub use slowlog::{note_search, SearchTook};

// Memory: the circuit breakers and what a request holds.
pub use breaker::byte_size::format as format_byte_size;
pub use breaker::estimate::{indexing as estimate_indexing, parsed_json as estimate_parsed_json};
pub use breaker::settings::NAMES as BREAKER_SETTINGS;
pub use breaker::{
    memory_base, Breaker, BreakerSettings, CircuitBreakers, MemoryAccount, MemorySize,
};

// Storage and background work.
pub use shard::merge_yield::{stats as merge_yield_stats, MergeYield, YieldStats};
pub use shard::priority::IndexingPriority;
pub use store::{
    BlockCache, NodeStore, SearchFiles, SearchStorage, StoreTier, BLOCK_SIZE, DEFAULT_IDLE_AFTER,
};

// Small utilities the HTTP crate shares: dotted setting names, durable
// JSON files outside a node's tree, Elasticsearch's time values.
pub use dotted::{flatten as flatten_dotted, nest as nest_dotted};
pub use durable_json::{load as load_json_file, save_private as save_private_json_file};
pub use time_value::{parse as parse_time_value, parse_interval as parse_time_interval};
