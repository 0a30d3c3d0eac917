//! Stored scripts: `PUT|POST /_scripts/<id>`, `GET /_scripts/<id>`,
//! `DELETE /_scripts/<id>`; requests name them with `{"script": {"id": ..}}`.

use axum::http::Method;
use serde_json::json;
use strata_search::SearchError;

use crate::error::Result;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `/_scripts/<id>[/<context>]` by method (`context` also as a parameter:
/// the stored source is compiled for it).
pub fn stored(node: &Node, id: &str, context: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let scripts = node.catalog.scripts();
    match req.method {
        Method::PUT | Method::POST => {
            scripts.put(
                id,
                &req.required_json_body()?,
                context.or(req.param("context")),
            )?;
            Ok(Reply::json(200, json!({"acknowledged": true})))
        }
        Method::DELETE => {
            if !scripts.delete(id)? {
                return Err(SearchError::ResourceNotFound(format!(
                    "stored script [{id}] does not exist"
                ))
                .into());
            }
            Ok(Reply::json(200, json!({"acknowledged": true})))
        }
        _ => Ok(match scripts.get(id) {
            Some(script) => Reply::json(200, json!({"_id": id, "found": true, "script": script})),
            None => Reply::json(404, json!({"_id": id, "found": false})),
        }),
    }
}
