//! Single-document APIs: `PUT|POST /<index>/_doc[/<id>]`, `_create`,
//! `GET|HEAD|DELETE /<index>/_doc/<id>` and `GET /<index>/_source/<id>`;
//! `_update` and `_mget` have their own modules.
//! Writes create a missing index, as Elasticsearch's automatic index
//! creation does, and through an alias go to its write index; reads
//! through an alias need an alias of one index. A found document's
//! `_source` goes out as it was indexed (see `found_doc`).

use axum::http::Method;
use serde::Serialize;
use serde_json::{json, Value};
use strata_search::{
    estimate_indexing, DocWriteResult, MemoryAccount, SearchError, SearchIndex, SourceFilter,
    WriteResult, PRIMARY_TERM,
};

use super::found_doc::FoundDoc;
use super::write_reply::{write_status, WriteBody};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::{reject_routing, EsRequest, RefreshPolicy};
use crate::write_target::index_for_write;

/// `/<index>/_doc/<id>` by method.
pub fn doc(node: &Node, index: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    match req.method {
        Method::PUT | Method::POST => write(node, index, Some(id), false, req),
        Method::DELETE => delete(node, index, id, req),
        _ => get(node, index, id, req),
    }
}

/// Index or create a document (`id` `None`: generated).
pub fn write(
    node: &Node,
    index: &str,
    id: Option<&str>,
    create: bool,
    req: &EsRequest,
) -> Result<Reply> {
    if req.param("pipeline").is_some() {
        return Err(EsError::IllegalArgument(
            "ingest pipelines are not supported by this server".into(),
        ));
    }
    let precondition = req.precondition(create || id.is_none())?;
    let refresh = req.refresh_policy()?;
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Err(EsError::ActionValidation("source is missing".into()));
    }
    require_alias(node, index, req.flag("require_alias", false)?)?;
    crate::data_streams::check_write(
        node,
        index,
        precondition == strata_search::Precondition::Absent,
        &req.body,
    )?;
    let target = index_for_write(node, index)?;
    let _indexing = reserve_indexing(&req.memory, &req.body)?;
    let result = target
        .index_document(id, &req.body, precondition)
        .map_err(|e| EsError::from(e).in_index(index))?;
    finish_write(&target, &result, refresh, None)
}

/// Reserves on the request breaker what indexing `source` takes at its
/// peak, for as long as the returned account lives (the write).
pub(super) fn reserve_indexing(memory: &MemoryAccount, source: &[u8]) -> Result<MemoryAccount> {
    let part = memory.part();
    part.reserve(estimate_indexing(source), "<index_document>")?;
    Ok(part)
}

fn delete(node: &Node, index: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    let precondition = req.precondition(false)?;
    let refresh = req.refresh_policy()?;
    let target = node
        .catalog
        .write_index(index)?
        .ok_or_else(|| SearchError::IndexNotFound(index.to_string()))?;
    let result = target
        .delete_document(id, precondition)
        .map_err(|e| EsError::from(e).in_index(index))?;
    finish_write(&target, &result, refresh, None)
}

/// `require_alias=true`: the write target must be an alias (so a typo
/// does not auto-create an index).
pub fn require_alias(node: &Node, name: &str, required: bool) -> Result<()> {
    if required && !node.catalog.is_alias(name) {
        return Err(EsError::NotAnAlias(name.to_string()));
    }
    Ok(())
}

/// The reply to a document write (with an update's `get`, if any), sent
/// once the write is durable and refreshed as asked.
pub(super) fn finish_write(
    index: &SearchIndex,
    result: &DocWriteResult,
    refresh: RefreshPolicy,
    get: Option<Value>,
) -> Result<Reply> {
    let changed = result.result != WriteResult::Noop;
    if changed && refresh != RefreshPolicy::None {
        index.refresh()?;
    }
    let mut body = WriteBody::new(index, result).to_value();
    if changed && refresh == RefreshPolicy::Immediate {
        body["forced_refresh"] = json!(true);
    }
    if let Some(get) = get {
        body["get"] = get;
    }
    let status = write_status(result.result);
    Ok(Reply::json(status, body).after_durable(index, result.lsn))
}

/// `_source`, `_source_includes` and `_source_excludes` parameters.
pub(super) fn source_filter(req: &EsRequest) -> Result<SourceFilter> {
    let list = |name: &str| -> Vec<String> {
        req.param(name)
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    };
    let mut includes = list("_source_includes");
    let excludes = list("_source_excludes");
    match req.param("_source") {
        Some("false") => return Ok(SourceFilter::None),
        Some("true" | "") | None => {}
        Some(paths) => includes.extend(paths.split(',').map(str::to_string)),
    }
    if includes.is_empty() && excludes.is_empty() {
        Ok(SourceFilter::All)
    } else {
        Ok(SourceFilter::Paths { includes, excludes })
    }
}

/// The `_doc` body of `id` in `index` with `filter`; `None` when missing.
pub(super) fn lookup(
    index: &SearchIndex,
    id: &str,
    filter: &SourceFilter,
    version: Option<u64>,
) -> Result<Option<FoundDoc>> {
    let Some(doc) = index
        .get_document(id)
        .map_err(|e| EsError::from(e).in_index(index.name()))?
    else {
        return Ok(None);
    };
    if let Some(expected) = version {
        if expected != doc.version.version {
            return Err(EsError::from(SearchError::VersionConflict {
                id: id.to_string(),
                detail: format!(
                    "current version [{}] is different than the one provided [{expected}]",
                    doc.version.version
                ),
            })
            .in_index(index.name()));
        }
    }
    let head = json!({
        "_index": index.name(),
        "_id": id,
        "_version": doc.version.version,
        "_seq_no": doc.version.seq_no,
        "_primary_term": PRIMARY_TERM,
        "found": true,
    });
    Ok(Some(FoundDoc::new(head, &doc.source, filter)))
}

fn get(node: &Node, index: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    reject_routing(req.param("routing"))?;
    let target = node.catalog.single_index(index)?;
    if req.flag("refresh", false)? {
        target.refresh()?;
    }
    let filter = source_filter(req)?;
    let found = lookup(&target, id, &filter, req.u64_param("version")?)?;
    if req.method == Method::HEAD {
        return Ok(Reply::empty(if found.is_some() { 200 } else { 404 }));
    }
    Ok(match found {
        Some(doc) => serialized(&doc)?,
        None => Reply::json(
            404,
            json!({"_index": target.name(), "_id": id, "found": false}),
        ),
    })
}

/// `GET /<index>/_source/<id>`: the source alone.
pub fn source(node: &Node, index: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    reject_routing(req.param("routing"))?;
    let target = node.catalog.single_index(index)?;
    let filter = source_filter(req)?;
    match lookup(&target, id, &filter, None)? {
        Some(_) if req.method == Method::HEAD => Ok(Reply::empty(200)),
        Some(doc) => match doc.source {
            Some(source) => serialized(&source),
            None => Ok(Reply::ok(Value::Null)),
        },
        None => Err(EsError::ResourceNotFound(format!(
            "Document not found [{index}]/[{id}]"
        ))),
    }
}

pub(super) fn serialized(body: &impl Serialize) -> Result<Reply> {
    Reply::serialized(body).map_err(|e| EsError::Internal(e.to_string()))
}

/// Unused-key check shared by tests: the keys of a body object.
#[cfg(test)]
fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn source_params_build_filters() {
        let req = EsRequest::new(
            Method::GET,
            "/i/_doc/1",
            Some("_source_includes=a,b&_source_excludes=c"),
            Bytes::new(),
        );
        let filter = source_filter(&req).unwrap();
        let out = filter
            .apply(json!({"a": 1, "b": 2, "c": 3, "d": 4}))
            .unwrap();
        assert_eq!(keys(&out), vec!["a", "b"]);
        let off = EsRequest::new(
            Method::GET,
            "/i/_doc/1",
            Some("_source=false"),
            Bytes::new(),
        );
        assert_eq!(source_filter(&off).unwrap(), SourceFilter::None);
    }
}
