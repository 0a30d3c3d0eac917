//! How an index's shards sit on storage: the tantivy schema every shard
//! shares (`schema`) and the tiered directory that keeps fresh segments in
//! DRAM until a flush persists them (`tiered`).

pub mod geo_columns;
mod schema;
mod tiered;

pub use schema::{json_term, SchemaFields, FIELD_NAMES, ID, KEYWORDS, SOURCE, TEXT};
pub use tiered::{Persisted, TieredDirectory};
