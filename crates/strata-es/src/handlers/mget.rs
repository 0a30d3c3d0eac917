//! `[/<index>]/_mget`: documents by `docs` (each with its `_index`, `_id`
//! and `_source` filter) or by `ids`; each answered on its own, found,
//! not found or with its error, in request order. The documents found
//! are reserved on the request breaker as they are loaded.

use serde::Serialize;
use serde_json::{json, Value};
use strata_search::SourceFilter;

use super::documents::{lookup, serialized, source_filter};
use super::found_doc::FoundDoc;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::security::actions;

/// `[/<index>]/_mget` with `docs` or `ids`.
pub fn mget(node: &Node, path_index: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let body = req.required_json_body()?;
    let default_filter = source_filter(req)?;
    let mut wanted: Vec<(Option<String>, String, Option<Value>)> = Vec::new();
    if let Some(docs) = body.get("docs").and_then(Value::as_array) {
        for doc in docs {
            let id = doc.get("_id").map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            let id = id.ok_or_else(|| EsError::ActionValidation("id is missing".into()))?;
            let index = doc
                .get("_index")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| path_index.map(str::to_string));
            wanted.push((index, id, doc.get("_source").cloned()));
        }
    } else if let Some(ids) = body.get("ids").and_then(Value::as_array) {
        for id in ids {
            let id = id.as_str().map_or_else(|| id.to_string(), str::to_string);
            wanted.push((path_index.map(str::to_string), id, None));
        }
    } else {
        return Err(EsError::ActionValidation("no documents to get".into()));
    }
    let mut docs = Vec::with_capacity(wanted.len());
    for (index, id, source) in wanted {
        let Some(index) = index else {
            return Err(EsError::ActionValidation(format!(
                "index is missing for doc {}",
                docs.len()
            )));
        };
        let filter = match &source {
            Some(v) => SourceFilter::parse(v)?,
            None => default_filter.clone(),
        };
        let found = req
            .grant
            .as_ref()
            .map_or(Ok(()), |g| g.check(actions::MGET_ITEM, &[&index]))
            .and_then(|()| node.catalog.single_index(&index).map_err(EsError::from))
            .and_then(|target| lookup(&target, &id, &filter, None));
        // Each found document's bytes stay until the reply is sent.
        if let Ok(Some(doc)) = &found {
            let bytes = doc.source.as_ref().map_or(0, |s| s.get().len()) + 256;
            req.memory.reserve(bytes as u64, "<mget_response>")?;
        }
        docs.push(match found {
            Ok(Some(doc)) => MgetDoc::Found(doc),
            Ok(None) => MgetDoc::Other(json!({"_index": index, "_id": id, "found": false})),
            Err(e) => MgetDoc::Other(json!({"_index": index, "_id": id, "error": e.cause()})),
        });
    }
    serialized(&MgetReply { docs })
}

/// The `_mget` reply.
#[derive(Serialize)]
struct MgetReply {
    docs: Vec<MgetDoc>,
}

/// One `_mget` answer: a found document, or `found: false` or an error.
#[derive(Serialize)]
#[serde(untagged)]
enum MgetDoc {
    Found(FoundDoc),
    Other(Value),
}
