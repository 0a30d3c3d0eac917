//! `GET /_cluster/state[/<metrics>[/<indices>]]` (a minimal, true shape:
//! cluster name and uuid, the one master node, the node list, and
//! `metadata.indices` with state, settings, mappings and alias names) and
//! `GET|PUT /_cluster/settings`.

use axum::http::Method;
use serde_json::{json, Map, Value};

use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

const METRICS: &[&str] = &[
    "_all",
    "version",
    "master_node",
    "nodes",
    "metadata",
    "routing_table",
    "blocks",
];

/// `GET /_cluster/state[/<metrics>[/<indices>]]`.
pub fn state(node: &Node, req: &EsRequest) -> Result<Reply> {
    let metrics: Vec<&str> = match req.segments.get(2) {
        None => vec!["_all"],
        Some(list) => list.split(',').map(str::trim).collect(),
    };
    if let Some(bad) = metrics.iter().find(|m| !METRICS.contains(m)) {
        return Err(EsError::IllegalArgument(format!(
            "request [{}] contains unrecognized metric: [{bad}]",
            req.uri.split('?').next().unwrap_or_default()
        )));
    }
    let wants = |m: &str| metrics.contains(&"_all") || metrics.contains(&m);
    let id = &node.identity.node_id;
    let mut out = json!({
        "cluster_name": node.config.cluster_name,
        "cluster_uuid": node.identity.cluster_uuid,
    });
    if wants("version") {
        out["version"] = json!(1);
        out["state_uuid"] = json!(node.identity.cluster_uuid);
    }
    if wants("master_node") {
        out["master_node"] = json!(id);
    }
    if wants("blocks") {
        out["blocks"] = json!({});
    }
    if wants("nodes") {
        let addr = node.config.http_addr.to_string();
        let mut nodes = Map::new();
        nodes.insert(
            id.clone(),
            json!({
                "name": node.config.node_name,
                "ephemeral_id": id,
                "transport_address": addr,
                "attributes": {},
                "roles": ["data", "data_content", "data_hot", "ingest", "master"],
            }),
        );
        out["nodes"] = Value::Object(nodes);
    }
    if wants("metadata") {
        let expression = req.segments.get(3).map_or("_all", String::as_str);
        let aliases = node.catalog.aliases();
        let mut indices = Map::new();
        for index in node.catalog.resolve(expression)? {
            let names: Vec<String> = aliases.of_index(index.name()).into_keys().collect();
            indices.insert(
                index.name().to_string(),
                json!({
                    "state": "open",
                    "settings": index.settings().to_json(index.name()),
                    "mappings": index.mappings().to_json(),
                    "aliases": names,
                }),
            );
        }
        out["metadata"] = json!({
            "cluster_uuid": node.identity.cluster_uuid,
            "indices": indices,
        });
    }
    Ok(Reply::ok(out))
}

/// `GET|PUT /_cluster/settings` (`flat_settings` for dotted keys).
pub fn settings(node: &Node, req: &EsRequest) -> Result<Reply> {
    if req.method == Method::PUT {
        let body = req.required_json_body()?;
        let reply = node.cluster_settings.update(&body)?;
        node.apply_cluster_settings();
        return Ok(Reply::ok(reply));
    }
    let flat = req.flag("flat_settings", false)?;
    let mut body = node.cluster_settings.to_json(flat);
    if req.flag("include_defaults", false)? {
        body["defaults"] = node.cluster_settings.defaults(flat);
    }
    Ok(Reply::ok(body))
}
