//! `PUT|GET|DELETE /_data_stream[/<names>]` (see [`crate::data_streams`]).

use serde_json::json;

use crate::data_streams::{self, describe};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `_data_stream[/<names>]`.
pub fn data_stream(node: &Node, names: Option<&str>, req: &EsRequest) -> Result<Reply> {
    match req.method {
        axum::http::Method::PUT => {
            let name = names.ok_or_else(|| EsError::ActionValidation("name is missing".into()))?;
            data_streams::create(node, name)?;
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        axum::http::Method::DELETE => {
            let list = names.ok_or_else(|| EsError::ActionValidation("name is missing".into()))?;
            let chosen = matching(node, list);
            if chosen.is_empty() && !list.contains('*') {
                return Err(EsError::ResourceNotFound(format!(
                    "data_stream matching [{list}] not found"
                )));
            }
            for name in chosen {
                data_streams::delete(node, &name)?;
            }
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        _ => {
            let list = names.unwrap_or("*");
            let chosen = matching(node, list);
            if chosen.is_empty() && !list.contains('*') {
                return Err(EsError::ResourceNotFound(format!(
                    "data_stream matching [{list}] not found"
                )));
            }
            let streams: Vec<_> = chosen.iter().map(|n| describe(node, n)).collect();
            Ok(Reply::ok(json!({ "data_streams": streams })))
        }
    }
}

/// Stream names matching the comma-separated patterns (`*`, `_all`).
fn matching(node: &Node, list: &str) -> Vec<String> {
    node.data_streams
        .names()
        .into_iter()
        .filter(|n| {
            list.split(',')
                .any(|p| p == "_all" || strata_search::wildcard_match(p.trim(), n))
        })
        .collect()
}
