//! The fetch phase: the hits of the requested page, each loaded from its
//! shard's document store and shaped as Elasticsearch shows it (`_id`,
//! `_score`, `_version`, `_seq_no`, `fields`, filtered `_source`, `sort`).

use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::schema::Value as _;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use super::docvalues::Resolved as DocvalueFields;
use super::fetch_fields::ResolvedFields as FetchFields;
use super::parallel;
use super::ranking::SortValues;
use super::request::{SearchRequest, StoredFields};
use super::sort::SortValue;
use crate::error::Result;
use crate::index::SearchIndex;
use crate::shard::PRIMARY_TERM;

/// A hit chosen by the query phase.
pub(crate) struct Candidate {
    /// Index of the index in the searched list.
    pub index: usize,
    /// Shard within the index.
    pub shard: usize,
    /// The document in the shard.
    pub addr: DocAddress,
    /// Score (NaN when sorting by fields without scores).
    pub score: f32,
    /// Sort values, when sorting by fields.
    pub values: Option<SortValues>,
}

/// What the fetch phase needs per searched index.
pub(crate) struct IndexFetch {
    /// `docvalue_fields` resolved against the index's mapping.
    pub docvalues: DocvalueFields,
    /// The `fields` option resolved against the index's mapping.
    pub fetch: FetchFields,
    /// The searchers the query phase used, one per shard.
    pub searchers: Vec<Searcher>,
}

/// Pages at least this long are fetched in parallel chunks.
const PARALLEL_FETCH: usize = 64;

/// The JSON hits of `page`, in order. A long page (Discover asks for 500)
/// is fetched in chunks at once on the search pool: loading, parsing and
/// shaping a source is most of a hit's cost.
pub(crate) fn hits(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    per_index: &[IndexFetch],
    page: &[Candidate],
) -> Result<Vec<Value>> {
    let chunks = parallel::map_chunks(page, PARALLEL_FETCH, |chunk| {
        chunk_hits(indices, req, per_index, chunk)
    })?;
    let mut hits = Vec::with_capacity(page.len());
    for chunk in chunks {
        hits.extend(chunk?);
    }
    Ok(hits)
}

fn chunk_hits(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    per_index: &[IndexFetch],
    page: &[Candidate],
) -> Result<Vec<Value>> {
    let mut hits = Vec::with_capacity(page.len());
    for c in page {
        let index = &indices[c.index];
        let fetch = &per_index[c.index];
        let doc: TantivyDocument = fetch.searchers[c.shard].doc(c.addr)?;
        let fields = index.shards()[c.shard].fields();
        let id = doc
            .get_first(fields.id)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        let mut hit = json!({"_index": index.name(), "_id": id});
        let (keep_id, keep_source) = match &req.stored_fields {
            None => (true, true),
            Some(StoredFields::Nothing) => (false, false),
            Some(StoredFields::Names { source_requested }) => (true, *source_requested),
        };
        if !keep_id {
            if let Some(h) = hit.as_object_mut() {
                h.remove("_id");
            }
        }
        hit["_score"] = if c.values.is_none() || req.track_scores {
            json!(c.score)
        } else {
            Value::Null
        };
        if req.version {
            hit["_version"] = json!(doc.get_first(fields.version).and_then(|v| v.as_u64()));
        }
        if req.seq_no_primary_term {
            hit["_seq_no"] = json!(doc.get_first(fields.seq_no).and_then(|v| v.as_u64()));
            hit["_primary_term"] = json!(PRIMARY_TERM);
        }
        let source_bytes = doc
            .get_first(fields.source)
            .and_then(|v| v.as_bytes())
            .unwrap_or_default();
        let source: Value = serde_json::from_slice(source_bytes).unwrap_or(Value::Null);
        if !fetch.docvalues.is_empty() || !fetch.fetch.is_empty() {
            let mut values = fetch.docvalues.fields(&source);
            fetch.fetch.add_to(&source, &mut values);
            if !values.is_empty() {
                hit["fields"] = Value::Object(values);
            }
        }
        if let Some(s) = req.source.apply(source).filter(|_| keep_source) {
            hit["_source"] = s;
        }
        if let Some(values) = &c.values {
            hit["sort"] = Value::Array(values.iter().map(SortValue::to_json).collect());
        }
        hits.push(hit);
    }
    Ok(hits)
}
