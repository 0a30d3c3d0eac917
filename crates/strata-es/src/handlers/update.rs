//! `POST /<index>/_update/<id>`: a partial `doc` merged into the stored
//! document, `upsert` or `doc_as_upsert` when there is none, or a `script`
//! run over it (with `scripted_upsert`). [`UpdateBody`] is also what a
//! `_bulk` update item runs. Like the other writes, an update creates a
//! missing index, goes through an alias to its write index, and its reply
//! waits until the write is durable.

use serde_json::{json, Value};
use strata_search::{DocWriteResult, SearchError, SearchIndex, SourceFilter, PRIMARY_TERM};

use super::documents::{finish_write, require_alias, reserve_indexing, source_filter};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::{reject_routing, EsRequest};
use crate::write_target::index_for_write;

/// The body of an update (`_update` and `_bulk` update items).
#[derive(Debug, Clone)]
pub struct UpdateBody {
    /// The partial document merged into the current one.
    pub partial: Value,
    /// The document indexed when none exists.
    pub upsert: Option<Value>,
    /// Index `partial` itself when none exists.
    pub doc_as_upsert: bool,
    /// A merge that changes nothing is a `noop` (default); `false` writes
    /// a new version anyway.
    pub detect_noop: bool,
    /// `_source`: the reply carries the updated document in `get`.
    pub source: Option<SourceFilter>,
    /// `script`: run over the document instead of merging `doc`.
    pub script: Option<strata_search::CompiledScript>,
    /// `scripted_upsert`: a missing document is made by the script from `upsert`.
    pub scripted_upsert: bool,
}

impl UpdateBody {
    /// Parses `doc`, `upsert`, `doc_as_upsert`, `detect_noop`, `_source`,
    /// `script` and `scripted_upsert`.
    pub fn parse(body: &Value) -> Result<UpdateBody> {
        let obj = body
            .as_object()
            .ok_or_else(|| EsError::Parse("update body must be an object".into()))?;
        let mut update = UpdateBody {
            partial: json!({}),
            upsert: None,
            doc_as_upsert: false,
            detect_noop: true,
            source: None,
            script: None,
            scripted_upsert: false,
        };
        let mut has_doc = false;
        for (key, value) in obj {
            match key.as_str() {
                "doc" => {
                    update.partial = value.clone();
                    has_doc = true;
                }
                "upsert" => update.upsert = Some(value.clone()),
                "doc_as_upsert" => update.doc_as_upsert = value.as_bool().unwrap_or(false),
                "detect_noop" => {
                    update.detect_noop = value.as_bool().ok_or_else(|| {
                        EsError::XContentParse(format!(
                            "[UpdateRequest] failed to parse field [detect_noop]: not a boolean [{value}]"
                        ))
                    })?
                }
                "_source" => update.source = Some(SourceFilter::parse(value)?),
                "script" => {
                    // As in Elasticsearch, a script that does not compile
                    // (or names a lang it cannot run) fails the update's
                    // execution ("failed to execute script").
                    let compiled = strata_search::compile_script(value, strata_script::Context::Update)
                        .map_err(|e| match e {
                            e @ (SearchError::Script(_) | SearchError::IllegalArgument(_)) => {
                                SearchError::UpdateScript(Box::new(e))
                            }
                            other => other,
                        })?;
                    update.script = Some(compiled);
                }
                "scripted_upsert" => update.scripted_upsert = value.as_bool().unwrap_or(false),
                other => {
                    return Err(EsError::XContentParse(format!(
                        "[1:2] [UpdateRequest] unknown field [{other}]"
                    )))
                }
            }
        }
        if update.script.is_some() && has_doc {
            return Err(EsError::ActionValidation(
                "can't provide both script and doc".into(),
            ));
        }
        if update.script.is_none() && !has_doc {
            return Err(EsError::ActionValidation("script or doc is missing".into()));
        }
        Ok(update)
    }

    /// Runs the update of `id` in `index`.
    pub fn apply(
        &self,
        index: &SearchIndex,
        id: &str,
        precondition: strata_search::Precondition,
    ) -> Result<DocWriteResult> {
        if let Some(script) = &self.script {
            use strata_search::{update_with_script, Upsert};
            let upsert = match (&self.upsert, self.scripted_upsert) {
                (Some(doc), true) => Upsert::Scripted(doc),
                (Some(doc), false) => Upsert::Document(doc),
                (None, _) => Upsert::None,
            };
            return update_with_script(index, id, script, upsert, precondition)
                .map_err(|e| EsError::from(e).in_index(index.name()));
        }
        index
            .update_document(
                id,
                &self.partial,
                self.upsert.as_ref(),
                self.doc_as_upsert,
                self.detect_noop,
                precondition,
            )
            .map_err(|e| EsError::from(e).in_index(index.name()))
    }

    /// The reply's `get` object when `_source` was asked for (by the body
    /// or by `url_filter`, the `_update` URL's `_source*` parameters): the
    /// document as this update left it, filtered.
    pub fn get_field(
        &self,
        index: &SearchIndex,
        id: &str,
        url_filter: Option<SourceFilter>,
    ) -> Result<Option<Value>> {
        let Some(filter) = url_filter.or_else(|| self.source.clone()) else {
            return Ok(None);
        };
        let Some(doc) = index
            .get_document(id)
            .map_err(|e| EsError::from(e).in_index(index.name()))?
        else {
            return Ok(None);
        };
        let source: Value = serde_json::from_slice(&doc.source)
            .map_err(|e| EsError::IllegalArgument(format!("stored source: {e}")))?;
        let mut get = json!({
            "_seq_no": doc.version.seq_no,
            "_primary_term": PRIMARY_TERM,
            "found": true,
        });
        if let Some(filtered) = filter.apply(source) {
            get["_source"] = filtered;
        }
        Ok(Some(get))
    }
}

/// `POST /<index>/_update/<id>`.
pub fn update(node: &Node, index: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    let mut body = req.required_json_body()?;
    node.catalog.scripts().resolve(&mut body)?;
    let body = UpdateBody::parse(&body)?;
    reject_routing(req.param("routing"))?;
    let precondition = crate::request::precondition(
        req.u64_param("if_seq_no")?,
        req.u64_param("if_primary_term")?,
        false,
    )?;
    let refresh = req.refresh_policy()?;
    require_alias(node, index, req.flag("require_alias", false)?)?;
    crate::data_streams::check_write(node, index, false, b"")?;
    let target = index_for_write(node, index)?;
    // The merged document is about the stored one plus the change.
    let _indexing = reserve_indexing(&req.memory, &req.body)?;
    let result = body.apply(&target, id, precondition)?;
    let url_filter = ["_source", "_source_includes", "_source_excludes"]
        .iter()
        .any(|p| req.param(p).is_some())
        .then(|| source_filter(req))
        .transpose()?;
    let get = body.get_field(&target, id, url_filter)?;
    finish_write(&target, &result, refresh, get)
}
