//! Cluster-level APIs of a one-node cluster: `_cluster/health` (with
//! `wait_for_status`, `wait_for_nodes` and `timeout`), `_nodes`, `_nodes/stats` and `_stats`. Health is green when no index
//! asks for replicas and yellow otherwise (replicas cannot be assigned on
//! one node); red only while the node recovers its indices (`startup`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use strata_search::{format_byte_size, BLOCK_SIZE};

use super::node_reports::{cache_report, store_report};
use super::stats::{health_of, IndexStats};
use super::targets::resolve;
use crate::error::{EsError, Result};
use crate::host;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// How often a health wait re-checks (also while the node recovers).
pub(crate) const HEALTH_POLL: Duration = Duration::from_millis(100);
/// Default `timeout` of a health wait.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(30);

fn rank(status: &str) -> u8 {
    match status {
        "green" => 2,
        "yellow" => 1,
        _ => 0,
    }
}

/// What a health request waits for, and until when.
pub(crate) struct HealthWait {
    /// The least status wanted (`rank`), if any.
    pub wanted: Option<u8>,
    /// Whether `wait_for_nodes` holds.
    pub nodes_ok: bool,
    pub deadline: Instant,
}

impl HealthWait {
    /// Parses `wait_for_status`, `wait_for_nodes` and `timeout`.
    pub(crate) fn parse(req: &EsRequest) -> Result<HealthWait> {
        let wanted = match req.param("wait_for_status") {
            None => None,
            Some(s @ ("green" | "yellow" | "red")) => Some(rank(s)),
            Some(other) => {
                return Err(EsError::IllegalArgument(format!(
                    "unknown cluster health status [{other}]"
                )))
            }
        };
        let nodes_ok = match req.param("wait_for_nodes") {
            None => true,
            Some(expr) => nodes_satisfied(expr)?,
        };
        let timeout = match req.param("timeout") {
            None => HEALTH_TIMEOUT,
            Some(t) => strata_search::parse_time_interval("timeout", &json!(t))
                .map_err(EsError::from)?
                .unwrap_or(HEALTH_TIMEOUT),
        };
        Ok(HealthWait {
            wanted,
            nodes_ok,
            deadline: Instant::now() + timeout,
        })
    }

    /// Whether `body` (a health body) is what the request waits for.
    pub(crate) fn met(&self, body: &Value) -> bool {
        let status = body["status"].as_str().unwrap_or("red");
        self.nodes_ok && self.wanted.is_none_or(|w| rank(status) >= w)
    }
}

/// `_cluster/health[/<index>]`, waiting on the async side when asked to.
pub async fn health(node: Arc<Node>, index: Option<String>, req: EsRequest) -> Result<Reply> {
    let wait = HealthWait::parse(&req)?;
    health_until(node, index, wait).await
}

/// [`health`] with its wait parsed (a recovering node hands its waiters
/// over when it is ready, with what is left of their time).
pub(crate) async fn health_until(
    node: Arc<Node>,
    index: Option<String>,
    wait: HealthWait,
) -> Result<Reply> {
    loop {
        let mut body = health_body(&node, index.as_deref())?;
        if wait.met(&body) {
            return Ok(Reply::ok(body));
        }
        if Instant::now() >= wait.deadline {
            body["timed_out"] = json!(true);
            return Ok(Reply::json(408, body));
        }
        tokio::time::sleep(HEALTH_POLL).await;
    }
}

/// `wait_for_nodes`: `N`, `>=N`, `<=N`, `>N`, `<N`, `ge(N)`, `le(N)`,
/// `gt(N)`, `lt(N)` against this single node.
fn nodes_satisfied(expr: &str) -> Result<bool> {
    let e = expr.trim();
    let (op, n) = if let Some(rest) = e.strip_prefix(">=") {
        ("ge", rest)
    } else if let Some(rest) = e.strip_prefix("<=") {
        ("le", rest)
    } else if let Some(rest) = e.strip_prefix('>') {
        ("gt", rest)
    } else if let Some(rest) = e.strip_prefix('<') {
        ("lt", rest)
    } else if let Some((op, inner)) = e
        .strip_suffix(')')
        .and_then(|x| x.split_once('('))
        .filter(|(op, _)| op.len() == 2)
    {
        (op, inner)
    } else {
        ("eq", e)
    };
    let n: u64 = n.trim().parse().map_err(|_| {
        EsError::IllegalArgument(format!("failed to parse wait_for_nodes [{expr}]"))
    })?;
    match op {
        "ge" => Ok(1 >= n),
        "le" => Ok(1 <= n),
        "gt" => Ok(1 > n),
        "lt" => Ok(1 < n),
        "eq" => Ok(n == 1),
        _ => Err(EsError::IllegalArgument(format!(
            "failed to parse wait_for_nodes [{expr}]"
        ))),
    }
}

/// The health body, without waiting (also what the dispatcher serves).
pub fn health_now(node: &Node, index: Option<&str>, _req: &EsRequest) -> Result<Reply> {
    Ok(Reply::ok(health_body(node, index)?))
}

fn health_body(node: &Node, index: Option<&str>) -> Result<Value> {
    let indices = resolve(node, index)?;
    let (mut primaries, mut unassigned, mut status) = (0u64, 0u64, "green");
    for index in &indices {
        let s = index.settings();
        primaries += u64::from(s.number_of_shards);
        unassigned += u64::from(s.number_of_shards) * u64::from(s.number_of_replicas);
        if health_of(index) == "yellow" {
            status = "yellow";
        }
    }
    Ok(health_json(
        &node.config.cluster_name,
        status,
        primaries,
        unassigned,
    ))
}

/// The `_cluster/health` body of a one-node cluster with `primaries`
/// active shards and `unassigned` replicas (also what a recovering node
/// shows: red, no shards).
pub(crate) fn health_json(
    cluster_name: &str,
    status: &str,
    primaries: u64,
    unassigned: u64,
) -> Value {
    let percent = if primaries + unassigned == 0 {
        100.0
    } else {
        100.0 * primaries as f64 / (primaries + unassigned) as f64
    };
    json!({
        "cluster_name": cluster_name,
        "status": status,
        "timed_out": false,
        "number_of_nodes": 1,
        "number_of_data_nodes": 1,
        "active_primary_shards": primaries,
        "active_shards": primaries,
        "relocating_shards": 0,
        "initializing_shards": 0,
        "unassigned_shards": unassigned,
        "unassigned_primary_shards": 0,
        "delayed_unassigned_shards": 0,
        "number_of_pending_tasks": 0,
        "number_of_in_flight_fetch": 0,
        "task_max_waiting_in_queue_millis": 0,
        "active_shards_percent_as_number": percent,
    })
}

fn node_header(node: &Node) -> Map<String, Value> {
    let addr = node.config.http_addr;
    let mut m = Map::new();
    m.insert("name".into(), json!(node.config.node_name));
    m.insert("transport_address".into(), json!(addr.to_string()));
    m.insert("host".into(), json!(addr.ip().to_string()));
    m.insert("ip".into(), json!(addr.ip().to_string()));
    m.insert(
        "roles".into(),
        json!(["data", "data_content", "data_hot", "ingest", "master"]),
    );
    m.insert("attributes".into(), json!({}));
    m.insert("build_hash".into(), json!(node.config.build_hash));
    m
}

fn nodes_envelope(node: &Node, body: Map<String, Value>) -> Value {
    let mut nodes = Map::new();
    nodes.insert(node.identity.node_id.clone(), Value::Object(body));
    json!({
        "_nodes": {"total": 1, "successful": 1, "failed": 0},
        "cluster_name": node.config.cluster_name,
        "nodes": nodes,
    })
}

/// `_nodes[/...]`: the one node's identity, version and HTTP address.
pub fn nodes(node: &Node) -> Result<Reply> {
    let addr = node.config.http_addr.to_string();
    let mut body = node_header(node);
    body.insert("version".into(), json!(crate::version::ES_VERSION));
    body.insert("build_flavor".into(), json!("default"));
    body.insert("build_type".into(), json!("tar"));
    body.insert(
        "http".into(),
        json!({"bound_address": [addr], "publish_address": addr,
               "max_content_length_in_bytes": node.config.max_body}),
    );
    body.insert(
        "os".into(),
        json!({"name": std::env::consts::OS, "arch": std::env::consts::ARCH,
               "available_processors": host::processors(),
               "allocated_processors": host::processors()}),
    );
    body.insert("process".into(), json!({"id": std::process::id()}));
    Ok(Reply::ok(nodes_envelope(node, body)))
}

/// `_nodes/stats`: index totals (merge pauses node-wide), host load and
/// memory, process memory;
/// `jvm` in its shape with the process's figures (see [`crate::jvm`]),
/// `ingest` with only what is true (no pipelines).
pub fn nodes_stats(node: &Node, req: &EsRequest) -> Result<Reply> {
    let mut total = IndexStats::default();
    for index in node.catalog.resolve("_all")? {
        total.add(&IndexStats::of(&index));
    }
    let now = host::now_millis();
    let mut os = json!({"timestamp": now});
    if let Some([one, five, fifteen]) = host::load_average() {
        os["cpu"] = json!({"load_average": {"1m": one, "5m": five, "15m": fifteen}});
    }
    if let Some((total_mem, available)) = host::memory() {
        os["mem"] = json!({"total_in_bytes": total_mem, "free_in_bytes": available,
                           "used_in_bytes": total_mem.saturating_sub(available)});
    }
    let mut process = json!({"timestamp": now});
    if let Some(rss) = host::resident_bytes() {
        process["mem"] = json!({"resident_in_bytes": rss});
    }
    let mut body = node_header(node);
    body.insert("timestamp".into(), json!(now));
    let mut indices = total.to_json();
    // Merges are slowed on purpose only by pausing for searches
    // (`strata_search::merge_yield_stats`): that is the throttled time.
    let yields = strata_search::merge_yield_stats();
    indices["merges"] = json!({
        "total_throttled_time_in_millis": yields.paused.as_millis() as u64,
        "strata_pauses_for_searches": yields.pauses,
    });
    body.insert("indices".into(), indices);
    body.insert("os".into(), os);
    body.insert("process".into(), process);
    body.insert(
        "jvm".into(),
        crate::jvm::section(node.started.elapsed().as_millis() as u64, now),
    );
    body.insert("indexing_pressure".into(), node.indexing_pressure.stats());
    let cache = node.catalog.storage().cache.stats();
    body.insert(
        "strata_search_cache".into(),
        json!({"budget_in_bytes": cache.budget_bytes, "size_in_bytes": cache.size_bytes,
               "blocks": cache.blocks, "block_size_in_bytes": BLOCK_SIZE,
               "hits": cache.hits, "misses": cache.misses,
               "miss_bytes": cache.miss_bytes}),
    );
    body.insert(
        "strata_cache".into(),
        cache_report(&node.catalog.storage().caches.report()),
    );
    let store = node.catalog.storage().node_store.as_ref();
    if let Some(stats) = store.and_then(|s| s.stats()) {
        body.insert("strata_ssd_store".into(), store_report(&stats));
    }
    body.insert(
        "ingest".into(),
        json!({"total": {"count": 0, "time_in_millis": 0, "current": 0, "failed": 0},
               "pipelines": {}}),
    );
    body.insert("breakers".into(), breakers(node));
    keep_metrics(&mut body, req);
    Ok(Reply::ok(nodes_envelope(node, body)))
}

/// The `breakers` of `_nodes/stats`: each child, then the parent.
fn breakers(node: &Node) -> Value {
    let mut out = Map::new();
    for b in node.breakers.stats() {
        out.insert(
            b.name.into(),
            json!({
                "limit_size_in_bytes": b.limit,
                "limit_size": format_byte_size(b.limit),
                "estimated_size_in_bytes": b.estimated,
                "estimated_size": format_byte_size(b.estimated),
                "overhead": b.overhead,
                "tripped": b.tripped,
            }),
        );
    }
    Value::Object(out)
}

/// `_nodes/stats/<metrics>` (`breaker`, `jvm,os`, ...): only those
/// sections beside the node's identity; `_all` or none: every section.
fn keep_metrics(body: &mut Map<String, Value>, req: &EsRequest) {
    let Some(at) = req.segments.iter().position(|s| s == "stats") else {
        return;
    };
    let Some(list) = req.segments.get(at + 1) else {
        return;
    };
    let wanted: Vec<&str> = list
        .split(',')
        .map(|m| if m == "breaker" { "breakers" } else { m })
        .collect();
    if wanted.contains(&"_all") {
        return;
    }
    const IDENTITY: [&str; 7] = [
        "name",
        "transport_address",
        "host",
        "ip",
        "roles",
        "attributes",
        "timestamp",
    ];
    body.retain(|key, _| IDENTITY.contains(&key.as_str()) || wanted.contains(&key.as_str()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_for_nodes_expressions() {
        assert!(nodes_satisfied(">=1").unwrap());
        assert!(nodes_satisfied("ge(1)").unwrap());
        assert!(!nodes_satisfied("2").unwrap());
        assert!(!nodes_satisfied("gt(1)").unwrap());
        assert!(nodes_satisfied("aé1)").is_err());
        assert!(nodes_satisfied("é(1)").is_err());
    }
}
