//! `[/<index>]/_stats[/<metric>]` with `level=cluster|indices|shards`.
//!
//! Sections are [`IndexStats`]'s; `<metric>` (`store`, `docs,indexing`,
//! `_all`) keeps only those (Elasticsearch's `merge` metric is the
//! `merges` section, which Strata does not measure per index and so
//! leaves out). At `level=shards` each index lists its shards, each a
//! started primary on this node with what is measured per shard (live
//! documents, segments, store bytes); the operation counters are kept per
//! index, so a shard carries them only when it is its index's one shard.

use serde_json::{json, Map, Value};
use strata_search::SearchIndex;

use super::stats::{health_of, IndexStats};
use super::targets::{broadcast_shards, resolve};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// Elasticsearch's index stats metrics.
const METRICS: [&str; 21] = [
    "_all",
    "completion",
    "docs",
    "fielddata",
    "flush",
    "get",
    "indexing",
    "mappings",
    "merge",
    "query_cache",
    "recovery",
    "refresh",
    "request_cache",
    "search",
    "segments",
    "store",
    "translog",
    "warmer",
    "bulk",
    "shard_stats",
    "dense_vector",
];

/// How deep the reply goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Cluster,
    Indices,
    Shards,
}

impl Level {
    fn parse(req: &EsRequest) -> Result<Level> {
        match req.param("level").unwrap_or("indices") {
            "cluster" => Ok(Level::Cluster),
            "indices" => Ok(Level::Indices),
            "shards" => Ok(Level::Shards),
            other => Err(EsError::IllegalArgument(format!(
                "level parameter must be one of [cluster] or [indices] or [shards] but was [{other}]"
            ))),
        }
    }
}

/// The sections to keep, or `None` for all.
fn wanted(req: &EsRequest) -> Result<Option<Vec<String>>> {
    let Some(at) = req.segments.iter().position(|s| s == "_stats") else {
        return Ok(None);
    };
    let Some(list) = req.segments.get(at + 1) else {
        return Ok(None);
    };
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    if let Some(bad) = names.iter().find(|m| !METRICS.contains(m)) {
        return Err(EsError::IllegalArgument(format!(
            "request [{}] contains unrecognized metric: [{bad}]",
            req.uri.split('?').next().unwrap_or_default()
        )));
    }
    if names.contains(&"_all") {
        return Ok(None);
    }
    Ok(Some(
        names
            .iter()
            .map(|m| if *m == "merge" { "merges" } else { m }.to_string())
            .collect(),
    ))
}

/// Keeps the sections `wanted` of a stats object (Strata's own
/// `strata_store` goes with `store`).
fn keep(mut stats: Value, wanted: &Option<Vec<String>>) -> Value {
    if let (Some(list), Some(obj)) = (wanted, stats.as_object_mut()) {
        obj.retain(|k, _| {
            list.iter()
                .any(|w| w == k || (w == "store" && k == "strata_store"))
        });
    }
    stats
}

/// `[/<index>]/_stats[/<metric>]`.
pub fn stats(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let level = Level::parse(req)?;
    let wanted = wanted(req)?;
    let indices = resolve(node, expression)?;
    let mut all = IndexStats::default();
    let mut per_index = Map::new();
    for index in &indices {
        let s = IndexStats::of(index);
        all.add(&s);
        if level == Level::Cluster {
            continue;
        }
        let mut entry = json!({
            "uuid": index.settings().uuid,
            "health": health_of(index),
            "status": "open",
            "strata_store_tier": index.tier().as_str(),
            "primaries": keep(s.to_json(), &wanted),
            "total": keep(s.to_json(), &wanted),
        });
        if level == Level::Shards {
            entry["shards"] = shards(node, index, &s, &wanted);
        }
        per_index.insert(index.name().to_string(), entry);
    }
    let mut body = json!({
        "_shards": broadcast_shards(&indices),
        "_all": {"primaries": keep(all.to_json(), &wanted), "total": keep(all.to_json(), &wanted)},
    });
    if level != Level::Cluster {
        body["indices"] = Value::Object(per_index);
    }
    Ok(Reply::ok(body))
}

/// The `shards` of one index at `level=shards`.
fn shards(
    node: &Node,
    index: &SearchIndex,
    whole: &IndexStats,
    wanted: &Option<Vec<String>>,
) -> Value {
    let sizes = index.shard_store_sizes();
    let searchers = index.searchers();
    let single = searchers.len() == 1;
    let mut out = Map::new();
    for (n, searcher) in searchers.iter().enumerate() {
        let mut s = if single {
            *whole
        } else {
            IndexStats {
                store_bytes: sizes.get(n).copied().unwrap_or(0),
                ..IndexStats::default()
            }
        };
        if !single {
            for segment in searcher.segment_readers() {
                s.segments += 1;
                s.docs += u64::from(segment.num_docs());
                s.deleted += u64::from(segment.num_deleted_docs());
            }
        }
        let mut stats = if single {
            s.to_json()
        } else {
            json!({
                "docs": {"count": s.docs, "deleted": s.deleted},
                "store": {"size_in_bytes": s.store_bytes,
                          "total_data_set_size_in_bytes": s.store_bytes,
                          "reserved_in_bytes": 0},
                "segments": {"count": s.segments},
            })
        };
        stats = keep(stats, wanted);
        stats["routing"] = json!({"state": "STARTED", "primary": true,
                                  "node": node.identity.node_id, "relocating_node": null});
        out.insert(n.to_string(), json!([stats]));
    }
    Value::Object(out)
}
