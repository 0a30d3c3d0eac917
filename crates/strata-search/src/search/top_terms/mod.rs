//! `terms` of a `keyword` or `ip` field (addresses are kept as text, one
//! string column) at the top level of `aggs`, ordered by count, alone or
//! with one `terms` of another such field below it (Kibana's "top URLs",
//! "browsers and their versions", "top clients"), counted with Strata's
//! own collector.
//!
//! tantivy's terms collector serves every case (sub-aggregations of any
//! kind, numeric keys, any order): per block of documents it fetches the
//! ordinals into a shared buffer, then per document finds the bucket in a
//! term map and, with a sub-aggregation, buffers the document for it. That
//! was most of the CPU of the dashboard's terms searches. Here each
//! segment counts ordinals straight into an array indexed by ordinal (and
//! by pair of ordinals for the level below), read a block of documents at
//! a time where each document has one value.
//!
//! The result is tantivy's, in tantivy's final shape: per segment the
//! `segment_size` most frequent terms are kept (`shard_size`, by default
//! ten times `size`), what is cut adds to `sum_other_doc_count`, and the
//! largest cut count to `doc_count_error_upper_bound`; segments and shards
//! merge by term; the reply keeps `size` buckets by count, then key. Ties
//! at a segment's cut keep the smaller key, where tantivy keeps either.
//!
//! [`split`] takes only what it computes exactly as described: parameters
//! `field`, `size`, `shard_size`, `min_doc_count` (at least 1) and
//! `order` `{"_count": "desc"}`, and below it `percentiles` or
//! `percentile_ranks` (deferred: reshaping computes them for all the
//! buckets in one scan); anything else (`missing`, `include`, another
//! order, other sub-aggregations) stays with tantivy.

mod collector;
mod counter;
mod fruit;
mod plan;

pub use collector::TopTermsCollector;
pub use fruit::{into_json, TopTermsFruit};
pub use plan::{TermsLevel, TopTerms};

use serde_json::{Map, Value};
use tantivy::aggregation::bucket::{Order, OrderTarget};

use super::aggs::{only_entry, AggShape};
use super::bucket_batch;
use crate::mapping::{FieldType, Mappings};

/// Larger `size`s stay with tantivy, whose bucket limit then applies.
const MAX_SIZE: usize = 1000;

/// Larger `shard_size`s stay with tantivy.
const MAX_SEGMENT_SIZE: usize = 10_000;

/// Takes the `terms` aggregations this module computes out of `request`
/// (tantivy's translated top-level aggregations, whose shapes are
/// `shapes`).
pub fn split(request: &mut Value, shapes: &[AggShape], mappings: &Mappings) -> Vec<TopTerms> {
    let Some(out) = request.as_object_mut() else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    for shape in shapes {
        let plan = out.get(&shape.name).and_then(|body| {
            let body = body.as_object()?;
            if body.keys().any(|k| k != "terms" && k != "aggs") {
                return None;
            }
            let outer = level(shape, body, mappings)?;
            let inner = match body.get("aggs") {
                None if shape.children.is_empty() => None,
                None => return None,
                Some(sub) => {
                    let ([child], Some((name, sub_body))) = (&shape.children[..], only_entry(sub))
                    else {
                        return None;
                    };
                    let sub_body = sub_body.as_object()?;
                    if &child.name != name || !child.children.is_empty() || sub_body.len() != 1 {
                        return None;
                    }
                    Some(level(child, sub_body, mappings)?)
                }
            };
            let buckets = outer.size * inner.as_ref().map_or(1, |i| i.size);
            (buckets <= MAX_SIZE * 10).then_some(TopTerms { outer, inner })
        });
        if let Some(plan) = plan {
            out.remove(&shape.name);
            taken.push(plan);
        }
    }
    taken
}

/// The level of `shape`, whose translated body is `body`, when it is a
/// `terms` of a keyword or ip field with only supported parameters (read
/// from its typed parameters; the column from tantivy's request).
fn level(shape: &AggShape, body: &Map<String, Value>, mappings: &Mappings) -> Option<TermsLevel> {
    let keyword = shape
        .field
        .as_deref()
        .and_then(|f| mappings.leaf(f))
        .is_some_and(|l| matches!(l.ty, FieldType::Keyword | FieldType::Ip));
    // Deferred sub-aggregations are computed after the buckets, over
    // them: only those computed for all the buckets in one scan
    // (`bucket_batch`) are taken along, not a search per bucket.
    let batched = shape.deferred.iter().all(bucket_batch::batched);
    if shape.kind != "terms" || !keyword || !batched || shape.missing.is_some() {
        return None;
    }
    // Parameters other than these, and `null`s, stay with tantivy.
    let params = shape.terms.as_ref().filter(|t| t.plain)?;
    let request = &params.request;
    let at_least_one = |n: Option<u64>| match n {
        Some(0) => None,
        n => Some(n),
    };
    let size = at_least_one(request.size.map(u64::from))?.unwrap_or(10);
    let shard_size = at_least_one(request.segment_size.map(u64::from))?;
    let min_doc_count = at_least_one(request.min_doc_count)?.unwrap_or(1);
    let by_count = request
        .order
        .as_ref()
        .is_none_or(|o| o.target == OrderTarget::Count && o.order == Order::Desc);
    if !by_count {
        return None;
    }
    let size = usize::try_from(size).ok().filter(|&n| n <= MAX_SIZE)?;
    let segment_size = match shard_size {
        Some(n) => usize::try_from(n).ok()?,
        None => size.saturating_mul(10),
    };
    if segment_size > MAX_SEGMENT_SIZE {
        return None;
    }
    Some(TermsLevel {
        name: shape.name.clone(),
        column: body.get("terms")?.get("field")?.as_str()?.to_string(),
        size,
        segment_size: segment_size.max(size),
        min_doc_count,
    })
}

#[cfg(test)]
mod tests;
