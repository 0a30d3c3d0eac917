//! More `_cat` tables (same parameters as `cat`): `count`, `shards`,
//! `segments`, `templates`, `allocation` and `thread_pool`. A single node
//! holds every primary; configured replicas are listed `UNASSIGNED`, as
//! Elasticsearch lists replicas it cannot place.

use strata_search::SearchIndex;

use super::aliases;
use super::cat::Table;
use super::stats::human_bytes;
use super::targets::indices_options;
use crate::error::Result;
use crate::host;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `_cat/<t>[/<arg>]` of this file.
pub fn table(node: &Node, t: &str, arg: Option<&str>, req: &EsRequest) -> Result<Reply> {
    match t {
        "count" => count(node, arg, req),
        "shards" => shards(node, arg, req),
        "segments" => segments(node, arg, req),
        "templates" => templates(node, arg, req),
        "allocation" => allocation(node, req),
        _ => thread_pool(node, arg, req),
    }
}

fn size(bytes: u64, req: &EsRequest) -> String {
    match req.param("bytes") {
        Some("b") => bytes.to_string(),
        Some("kb") => (bytes / 1024).to_string(),
        Some("mb") => (bytes >> 20).to_string(),
        Some("gb") => (bytes >> 30).to_string(),
        _ => human_bytes(bytes),
    }
}

fn indices(
    node: &Node,
    expression: Option<&str>,
    req: &EsRequest,
) -> Result<Vec<std::sync::Arc<SearchIndex>>> {
    Ok(aliases::resolve_filtered(node, expression, indices_options(req)?)?.0)
}

/// Bytes of one shard's segments as its searcher sees them.
fn shard_bytes(searcher: &tantivy::Searcher) -> u64 {
    searcher
        .segment_readers()
        .iter()
        .filter_map(|s| s.space_usage().ok())
        .map(|u| u.total().get_bytes())
        .sum()
}

/// `_cat/count[/<index>]`: live documents (alias filters applied).
pub fn count(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let (indices, filter) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    let query = aliases::with_filter(serde_json::json!({"match_all": {}}), filter.as_ref());
    let query = strata_search::ParsedQuery::parse(query)?;
    let count = strata_search::count(&indices, &query, &req.memory)?;
    let now = host::now_millis() / 1000;
    let secs = now % 86_400;
    Table {
        columns: &["epoch", "timestamp", "count"],
        rows: vec![vec![
            Some(now.to_string()),
            Some(format!(
                "{:02}:{:02}:{:02}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            )),
            Some(count.to_string()),
        ]],
    }
    .render(req)
}

/// `_cat/shards[/<index>]`.
pub fn shards(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let ip = node.config.http_addr.ip().to_string();
    let mut rows = Vec::new();
    for index in indices(node, expression, req)? {
        let replicas = index.settings().number_of_replicas;
        for (n, searcher) in index.searchers().iter().enumerate() {
            let bytes = size(shard_bytes(searcher), req);
            rows.push(vec![
                Some(index.name().to_string()),
                Some(n.to_string()),
                Some("p".into()),
                Some("STARTED".into()),
                Some(searcher.num_docs().to_string()),
                Some(bytes.clone()),
                Some(bytes),
                Some(ip.clone()),
                Some(node.config.node_name.clone()),
            ]);
            for _ in 0..replicas {
                rows.push(vec![
                    Some(index.name().to_string()),
                    Some(n.to_string()),
                    Some("r".into()),
                    Some("UNASSIGNED".into()),
                    None,
                    None,
                    None,
                    None,
                    None,
                ]);
            }
        }
    }
    Table {
        columns: &[
            "index", "shard", "prirep", "state", "docs", "store", "dataset", "ip", "node",
        ],
        rows,
    }
    .render(req)
}

/// `_cat/segments[/<index>]`: the searchable segments of every shard.
pub fn segments(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let ip = node.config.http_addr.ip().to_string();
    let mut rows = Vec::new();
    for index in indices(node, expression, req)? {
        for (n, searcher) in index.searchers().iter().enumerate() {
            for (generation, segment) in searcher.segment_readers().iter().enumerate() {
                let bytes = segment.space_usage().map_or(0, |u| u.total().get_bytes());
                rows.push(vec![
                    Some(index.name().to_string()),
                    Some(n.to_string()),
                    Some("p".into()),
                    Some(ip.clone()),
                    Some(segment.segment_id().uuid_string()),
                    Some(generation.to_string()),
                    Some(segment.num_docs().to_string()),
                    Some(segment.num_deleted_docs().to_string()),
                    Some(size(bytes, req)),
                    Some("true".into()),
                    Some("true".into()),
                    Some(crate::version::LUCENE_VERSION.into()),
                    Some("false".into()),
                ]);
            }
        }
    }
    Table {
        columns: &[
            "index",
            "shard",
            "prirep",
            "ip",
            "segment",
            "generation",
            "docs.count",
            "docs.deleted",
            "size",
            "committed",
            "searchable",
            "version",
            "compound",
        ],
        rows,
    }
    .render(req)
}

/// `_cat/templates[/<name>]`: legacy and composable templates.
pub fn templates(node: &Node, name: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let all = node.catalog.templates();
    let wanted = |n: &str| name.is_none_or(|p| p.split(',').any(|p| glob(p, n)));
    let mut rows = Vec::new();
    for (n, t) in all.legacy.iter().filter(|(n, _)| wanted(n)) {
        rows.push(vec![
            Some(n.clone()),
            Some(format!("[{}]", t.index_patterns.join(", "))),
            Some(t.order.to_string()),
            t.version.map(|v| v.to_string()),
            Some(String::new()),
        ]);
    }
    for (n, t) in all.composable.iter().filter(|(n, _)| wanted(n)) {
        rows.push(vec![
            Some(n.clone()),
            Some(format!("[{}]", t.index_patterns.join(", "))),
            Some(t.priority.to_string()),
            t.version.map(|v| v.to_string()),
            Some(format!("[{}]", t.composed_of.join(", "))),
        ]);
    }
    Table {
        columns: &["name", "index_patterns", "order", "version", "composed_of"],
        rows,
    }
    .render(req)
}

/// `*` matches any run (cat name patterns; at most 8 stars).
fn glob(pattern: &str, text: &str) -> bool {
    if pattern.matches('*').count() > 8 {
        return false;
    }
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => text.strip_prefix(head).is_some_and(|tail| {
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob(rest, &tail[i..]))
        }),
    }
}

/// `_cat/allocation`: the node's shards and the disk holding the data.
pub fn allocation(node: &Node, req: &EsRequest) -> Result<Reply> {
    let all = indices(node, None, req)?;
    let shards: usize = all
        .iter()
        .map(|i| i.settings().number_of_shards as usize)
        .sum();
    let used_by_indices: u64 = all.iter().map(|i| i.store_size_bytes()).sum();
    let disk = rustix::fs::statvfs(&node.config.root).ok().map(|s| {
        let total = s.f_blocks.saturating_mul(s.f_frsize);
        let avail = s.f_bavail.saturating_mul(s.f_frsize);
        (total, avail)
    });
    let ip = node.config.http_addr.ip().to_string();
    Table {
        columns: &[
            "shards",
            "disk.indices",
            "disk.used",
            "disk.avail",
            "disk.total",
            "disk.percent",
            "host",
            "ip",
            "node",
            "node.role",
        ],
        rows: vec![vec![
            Some(shards.to_string()),
            Some(size(used_by_indices, req)),
            disk.map(|(t, a)| size(t.saturating_sub(a), req)),
            disk.map(|(_, a)| size(a, req)),
            disk.map(|(t, _)| size(t, req)),
            disk.map(|(t, a)| (100 * t.saturating_sub(a) / t.max(1)).to_string()),
            Some(ip.clone()),
            Some(ip),
            Some(node.config.node_name.clone()),
            Some("dim".into()),
        ]],
    }
    .render(req)
}

/// `_cat/thread_pool[/<pools>]`: the pools Strata runs requests on —
/// `search` (the search pool, one thread per core), `write` and
/// `management` (tokio's blocking pool) — with the writes refused by
/// indexing back pressure as `write`'s rejections. Active and queued work
/// is not measured per pool: those columns are 0.
pub fn thread_pool(node: &Node, pools: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let rejected = node.indexing_pressure.stats()["memory"]["total"]["coordinating_rejections"]
        .as_u64()
        .unwrap_or(0);
    let rows = [("management", 0), ("search", 0), ("write", rejected)]
        .into_iter()
        .filter(|(name, _)| pools.is_none_or(|p| p.split(',').any(|p| glob(p, name))))
        .map(|(name, rejected)| {
            vec![
                Some(node.config.node_name.clone()),
                Some(name.to_string()),
                Some("0".into()),
                Some("0".into()),
                Some(rejected.to_string()),
            ]
        })
        .collect();
    Table {
        columns: &["node_name", "name", "active", "queue", "rejected"],
        rows,
    }
    .render(req)
}
