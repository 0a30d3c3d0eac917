//! `GET /` and `HEAD /`: the node and the Elasticsearch version it speaks
//! for, in the shape clients check before anything else.

use serde_json::json;

use crate::error::Result;
use crate::node::{Identity, Node, NodeConfig};
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::{ES_VERSION, LUCENE_VERSION};

/// Date of the reported build (`build_date`; `build_hash` is the binary's
/// commit, [`NodeConfig::build_hash`]).
pub const BUILD_DATE: &str = "2024-08-05T10:05:34.233336849Z";

/// `GET /`.
pub fn info(node: &Node, req: &EsRequest) -> Result<Reply> {
    info_of(&node.config, &node.identity, req)
}

/// `GET /` from the node's configuration and identity alone: answered
/// while the indices still recover too, as Elasticsearch answers it while
/// its cluster is red.
pub fn info_of(config: &NodeConfig, identity: &Identity, req: &EsRequest) -> Result<Reply> {
    if req.method == axum::http::Method::HEAD {
        return Ok(Reply::empty(200));
    }
    Ok(Reply::ok(json!({
        "name": config.node_name,
        "cluster_name": config.cluster_name,
        "cluster_uuid": identity.cluster_uuid,
        "version": {
            "number": ES_VERSION,
            "build_flavor": "default",
            "build_type": "tar",
            "build_hash": config.build_hash,
            "build_date": BUILD_DATE,
            "build_snapshot": false,
            "lucene_version": LUCENE_VERSION,
            "minimum_wire_compatibility_version": "7.17.0",
            "minimum_index_compatibility_version": "7.0.0"
        },
        "tagline": "You Know, for Search"
    })))
}
