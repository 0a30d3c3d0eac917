//! The cached dataset (Spark's `cache()`): a table materialized once as
//! Arrow segments, the part that fits its share of the DRAM budget kept in
//! memory and the rest written to the job's [`SpillArea`] on the SSD, then
//! scanned whole as often as the job needs, the SSD part read back
//! sequentially and asynchronously while resident segments are computed
//! on.
//!
//! - [`dataset`]: [`CachedDataset`], its segments and summary.
//! - [`build`]: [`CachedDataset::build`], from DataFusion partitions.
//! - [`scan`]: [`SegmentStream`], one partition of one full scan.
//! - [`residency`]: which segments stay in DRAM ([`Residency`]).
//! - [`codec`]: the segments' bytes on the SSD ([`CacheCompression`]).
//! - [`table`]: the dataset as a DataFusion table, for SQL.
//!
//! Segments have a fixed number of rows, chosen from the data alone (about
//! [`SEGMENT_BYTES`] each), so that a computation that combines per-segment
//! results in segment order gets the same answer at every budget.

pub mod build;
pub mod codec;
pub mod dataset;
pub mod residency;
pub mod scan;
pub mod table;

pub use build::CacheOptions;
pub use codec::{BatchCodec, CacheCompression};
pub use dataset::{CacheSummary, CachedDataset, SEGMENT_BYTES};
pub use residency::{Residency, ResidentSet, Step};
pub use scan::SegmentStream;
