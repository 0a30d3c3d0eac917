//! `POST /_reindex` from local indices: the `source` (indices, `query`,
//! `size`, `_source`) read through a snapshot in batches, each document
//! written to the `dest` index (`op_type`, `version_type`), optionally
//! through a `script`. The job runs as the by-query jobs do (`start`);
//! reindexing from a remote cluster and ingest pipelines are refused.

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::Snapshot;

use super::job::{Destination, Job};
use super::{
    as_u64, batch_request, batch_size, check_params, compile_script, conflicts_param, rps, start,
    step,
};
use crate::error::{EsError, Result};
use crate::handlers::aliases;
use crate::handlers::targets::indices_options;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::write_target::index_for_write;

/// `POST /_reindex`.
pub fn reindex(node: &Arc<Node>, req: &EsRequest) -> Result<Reply> {
    check_params(req)?;
    let mut body = req.required_json_body()?;
    node.catalog.scripts().resolve(&mut body)?;
    let obj = body
        .as_object()
        .ok_or_else(|| EsError::Parse("request body must be an object".into()))?;
    let mut conflicts = conflicts_param(req.param("conflicts"))?;
    let mut max_docs = req.u64_param("max_docs")?;
    let (mut source, mut dest, mut script) = (None, None, None);
    for (key, value) in obj {
        match key.as_str() {
            "source" => source = Some(value),
            "dest" => dest = Some(value),
            "conflicts" => conflicts = conflicts_param(value.as_str())?,
            "max_docs" | "size" => max_docs = Some(as_u64(key, value)?),
            "script" => script = Some(compile_script(value)?),
            other => return Err(EsError::Parse(format!("[reindex] unknown field [{other}]"))),
        }
    }
    let source =
        source.ok_or_else(|| EsError::ActionValidation("use _reindex with a [source]".into()))?;
    let dest =
        dest.ok_or_else(|| EsError::ActionValidation("use _reindex with a [dest]".into()))?;
    let mut names = Vec::new();
    let mut query = json!({"match_all": {}});
    let mut batch = batch_size(req)?;
    let mut source_filter = None;
    for (key, value) in source.as_object().into_iter().flatten() {
        match (key.as_str(), value) {
            ("index", Value::String(s)) => names.push(s.clone()),
            ("index", Value::Array(list)) => {
                names.extend(list.iter().filter_map(Value::as_str).map(str::to_string))
            }
            ("query", q) => query = q.clone(),
            ("size", v) => batch = as_u64("size", v)? as usize,
            ("_source", v) => source_filter = Some(v.clone()),
            ("remote", _) => {
                return Err(EsError::IllegalArgument(
                    "reindex from a remote cluster is not supported by this server".into(),
                ))
            }
            (other, _) => return Err(EsError::Parse(format!("[source] unknown field [{other}]"))),
        }
    }
    if names.is_empty() {
        return Err(EsError::ActionValidation(
            "use _reindex with a [source] index".into(),
        ));
    }
    let mut dest_name = None;
    let mut create_only = false;
    let mut external = None;
    for (key, value) in dest.as_object().into_iter().flatten() {
        match (key.as_str(), value.as_str()) {
            ("index", Some(s)) => dest_name = Some(s.to_string()),
            ("op_type", Some("create")) => create_only = true,
            ("op_type", Some("index")) => create_only = false,
            ("version_type", Some("internal")) => external = None,
            ("version_type", Some("external")) => external = Some(false),
            ("version_type", Some("external_gte")) => external = Some(true),
            ("version_type", Some(other)) => {
                return Err(EsError::IllegalArgument(format!(
                    "No version type match [{other}]"
                )))
            }
            ("pipeline", _) => {
                return Err(EsError::IllegalArgument(
                    "ingest pipelines are not supported by this server".into(),
                ))
            }
            (other, _) => {
                return Err(EsError::Parse(format!(
                    "[dest] unknown or malformed field [{other}]"
                )))
            }
        }
    }
    let dest_name =
        dest_name.ok_or_else(|| EsError::ActionValidation("index must be specified".into()))?;
    let expression = names.join(",");
    let (indices, filter) =
        aliases::resolve_filtered(node, Some(&expression), indices_options(req)?)?;
    let dest_index = index_for_write(node, &dest_name)?;
    if indices.iter().any(|i| Arc::ptr_eq(i, &dest_index)) {
        return Err(EsError::ActionValidation(format!(
            "reindex cannot write into an index its reading from [{}]",
            dest_index.name()
        )));
    }
    let query = aliases::with_filter(query, filter.as_ref());
    let snapshot = Arc::new(Snapshot::take(&indices));
    let job = Job {
        request: batch_request(query, &snapshot, batch, source_filter.as_ref())?,
        snapshot,
        max_docs,
        conflicts,
        requests_per_second: rps(req)?,
        refresh: req.flag("refresh", false)?,
        step: match script {
            Some(script) => Box::new(step::ScriptStep { script }),
            None => Box::new(step::AsIs),
        },
        destination: Destination::Index {
            index: dest_index,
            create_only,
            external,
        },
    };
    start(
        node,
        "indices:data/write/reindex",
        format!("reindex from [{expression}] to [{dest_name}]"),
        job,
        req,
    )
}
