//! The body of a document write's reply, shared by the single-document
//! APIs and the `_bulk` items; serialized straight from [`WriteBody`], so
//! a bulk of thousands of items builds no `Value` per item.

use serde::Serialize;
use serde_json::Value;
use strata_search::{DocWriteResult, SearchIndex, WriteResult, PRIMARY_TERM};

/// `_shards` of a write: the primary, and the replicas a cluster would
/// have written (none here), as Elasticsearch counts them.
#[derive(Debug, Serialize)]
pub struct ShardCounts {
    total: u64,
    successful: u64,
    failed: u64,
}

/// A write's reply body, in Elasticsearch's key order.
#[derive(Debug, Serialize)]
pub struct WriteBody<'a> {
    #[serde(rename = "_index")]
    index: &'a str,
    #[serde(rename = "_id")]
    id: &'a str,
    #[serde(rename = "_version")]
    version: u64,
    result: &'static str,
    #[serde(rename = "_shards")]
    shards: ShardCounts,
    #[serde(rename = "_seq_no")]
    seq_no: u64,
    #[serde(rename = "_primary_term")]
    primary_term: u64,
}

impl<'a> WriteBody<'a> {
    /// The body for `r`, a write to `index`.
    pub fn new(index: &'a SearchIndex, r: &'a DocWriteResult) -> WriteBody<'a> {
        let shards = if r.result == WriteResult::Noop {
            ShardCounts {
                total: 0,
                successful: 0,
                failed: 0,
            }
        } else {
            ShardCounts {
                total: 1 + u64::from(index.number_of_replicas()),
                successful: 1,
                failed: 0,
            }
        };
        WriteBody {
            index: index.name(),
            id: &r.id,
            version: r.version,
            result: r.result.as_str(),
            shards,
            seq_no: r.seq_no,
            primary_term: PRIMARY_TERM,
        }
    }

    /// The body as a JSON value (for replies that add keys to it).
    pub fn to_value(&self) -> Value {
        // Serializing plain fields with string keys cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// The HTTP status of a write: 201 for a new document, 404 for a delete
/// of a missing one, 200 otherwise.
pub fn write_status(result: WriteResult) -> u16 {
    match result {
        WriteResult::Created => 201,
        WriteResult::NotFound => 404,
        _ => 200,
    }
}
