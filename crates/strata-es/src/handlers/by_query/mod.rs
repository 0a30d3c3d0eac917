//! `_delete_by_query`, `_update_by_query` and `_reindex` (local source):
//! the request parsed into a [`job::Job`], run at once or, with
//! `wait_for_completion=false`, on a thread of its own as a task whose id
//! is answered (`_tasks` then shows it).
//!
//! - `job`: reading the snapshot in batches and writing each document.
//! - `step`: the per-document step (as is, delete, a script).
//! - `reindex`: `_reindex`'s body (source, dest) made into a job.
//!
//! Parameters: `conflicts`, `max_docs`, `scroll_size`, `refresh`,
//! `requests_per_second`, `wait_for_completion`, `q` (with `df` and
//! `default_operator`), the indices options; `slices` is accepted (`auto`
//! or a number; one node runs the slices as one). A `script` (Painless,
//! as in `_update`) runs per document in `_update_by_query` and `_reindex`.

pub mod job;
pub mod reindex;
pub mod step;

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::{SearchRequest, Snapshot, SortField, TrackTotalHits};

use super::aliases;
use super::targets::indices_options;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use job::{Conflicts, Destination, Job};

/// Which by-query API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `_delete_by_query`.
    Delete,
    /// `_update_by_query`.
    Update,
}

/// Documents per batch by default (Elasticsearch's `scroll_size`).
const DEFAULT_BATCH: usize = 1000;

const PARAMS: &[&str] = &[
    "conflicts",
    "max_docs",
    "scroll_size",
    "refresh",
    "requests_per_second",
    "wait_for_completion",
    "q",
    "df",
    "default_operator",
    "analyze_wildcard",
    "lenient",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "slices",
    "scroll",
    "timeout",
    "wait_for_active_shards",
    "pretty",
    "filter_path",
    "human",
    "error_trace",
    "preference",
    "search_timeout",
    "request_cache",
];

/// `/<index>/_delete_by_query` and `/<index>/_update_by_query`.
pub fn by_query(node: &Arc<Node>, expression: &str, kind: Kind, req: &EsRequest) -> Result<Reply> {
    check_params(req)?;
    let mut body = req.json_body()?;
    node.catalog.scripts().resolve(&mut body)?;
    let mut query = json!({"match_all": {}});
    let mut max_docs = req.u64_param("max_docs")?;
    let mut conflicts = conflicts_param(req.param("conflicts"))?;
    let mut script = None;
    if let Value::Object(obj) = &body {
        for (key, value) in obj {
            match key.as_str() {
                "query" => query = value.clone(),
                "max_docs" | "size" => max_docs = Some(as_u64(key, value)?),
                "conflicts" => conflicts = conflicts_param(value.as_str())?,
                "script" if kind == Kind::Update => script = Some(compile_script(value)?),
                "script" => {
                    return Err(EsError::Parse(format!(
                        "[{}] unknown field [script]",
                        kind_name(kind)
                    )))
                }
                "slice" => {
                    return Err(EsError::IllegalArgument(
                        "[slice] is not supported by this server".into(),
                    ))
                }
                other => {
                    return Err(EsError::Parse(format!(
                        "[{}] unknown field [{other}]",
                        kind_name(kind)
                    )))
                }
            }
        }
    } else if !body.is_null() {
        return Err(EsError::Parse("request body must be an object".into()));
    }
    if let Some(q) = req.param("q") {
        query = q_query(q, req);
    }
    let (indices, filter) =
        aliases::resolve_filtered(node, Some(expression), indices_options(req)?)?;
    let query = aliases::with_filter(query, filter.as_ref());
    let snapshot = Arc::new(Snapshot::take(&indices));
    let (action, step, what): (_, Box<dyn step::DocumentStep>, _) = match kind {
        Kind::Delete => (
            "indices:data/write/delete/byquery",
            Box::new(step::DeleteAll) as _,
            "delete-by-query",
        ),
        Kind::Update => (
            "indices:data/write/update/byquery",
            match script {
                Some(script) => Box::new(step::ScriptStep { script }) as _,
                None => Box::new(step::AsIs) as _,
            },
            "update-by-query",
        ),
    };
    let job = Job {
        request: batch_request(query, &snapshot, batch_size(req)?, None)?,
        snapshot,
        max_docs,
        conflicts,
        requests_per_second: rps(req)?,
        refresh: req.flag("refresh", false)?,
        step,
        destination: Destination::InPlace,
    };
    start(node, action, format!("{what} [{expression}]"), job, req)
}

/// Runs `job` now, or as a detached task.
fn start(
    node: &Arc<Node>,
    action: &'static str,
    description: String,
    job: Job,
    req: &EsRequest,
) -> Result<Reply> {
    let wait = req.flag("wait_for_completion", true)?;
    let task = node.tasks.start(action, description, !wait)?;
    if wait {
        let (body, status) = job::run(&job, &task);
        node.tasks.finish(&task, Ok(body.clone()));
        return Ok(Reply::json(status, body));
    }
    let id = format!("{}:{}", node.identity.node_id, task.number);
    let runner = Arc::clone(node);
    let spawned = std::thread::Builder::new()
        .name(format!("task-{}", task.number))
        .spawn(move || {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job::run(&job, &task)));
            match outcome {
                Ok((body, _)) => runner.tasks.finish(&task, Ok(body)),
                Err(_) => runner.tasks.finish(
                    &task,
                    Err(EsError::Internal("the task panicked".into()).cause()),
                ),
            }
        });
    if let Err(e) = spawned {
        return Err(EsError::Internal(format!("cannot start the task: {e}")));
    }
    Ok(Reply::ok(json!({ "task": id })))
}

/// The search of each batch: `query` sorted by `_shard_doc` over the
/// snapshot, with what a write's precondition needs.
fn batch_request(
    query: Value,
    snapshot: &Arc<Snapshot>,
    size: usize,
    source: Option<&Value>,
) -> Result<SearchRequest> {
    let mut body = json!({"query": query});
    if let Some(s) = source {
        body["_source"] = s.clone();
    }
    let mut r = SearchRequest::parse(&body)?;
    r.size = size.max(1);
    r.sort = vec![SortField::plain("_shard_doc")];
    r.track_total_hits = TrackTotalHits::Exact;
    r.seq_no_primary_term = true;
    r.version = true;
    r.snapshot = Some(Arc::clone(snapshot));
    Ok(r)
}

fn check_params(req: &EsRequest) -> Result<()> {
    for (key, _) in req.params() {
        if !PARAMS.contains(&key) {
            return Err(EsError::IllegalArgument(format!(
                "request [{}] contains unrecognized parameter: [{key}]",
                req.uri.split('?').next().unwrap_or_default()
            )));
        }
    }
    if let Some(s) = req.param("slices") {
        if s != "auto" && !s.parse::<u32>().is_ok_and(|n| n >= 1) {
            return Err(EsError::IllegalArgument(format!(
                "[slices] must be a positive integer or 'auto', got [{s}]"
            )));
        }
    }
    Ok(())
}

fn batch_size(req: &EsRequest) -> Result<usize> {
    Ok(req
        .u64_param("scroll_size")?
        .map_or(DEFAULT_BATCH, |n| n as usize))
}

fn rps(req: &EsRequest) -> Result<Option<f64>> {
    match req.param("requests_per_second") {
        None | Some("-1") | Some("unlimited") => Ok(None),
        Some(v) => match v.parse::<f64>() {
            Ok(n) if n > 0.0 => Ok(Some(n)),
            _ => Err(EsError::ActionValidation(format!(
                "[requests_per_second] must be either [-1] or a positive number, got [{v}]"
            ))),
        },
    }
}

fn conflicts_param(v: Option<&str>) -> Result<Conflicts> {
    match v {
        None | Some("abort") => Ok(Conflicts::Abort),
        Some("proceed") => Ok(Conflicts::Proceed),
        Some(other) => Err(EsError::IllegalArgument(format!(
            "conflicts may only be \"proceed\" or \"abort\" but was [{other}]"
        ))),
    }
}

fn as_u64(key: &str, v: &Value) -> Result<u64> {
    v.as_u64().ok_or_else(|| {
        EsError::ActionValidation(format!("[{key}] parameter cannot be negative, found [{v}]"))
    })
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Delete => "delete_by_query",
        Kind::Update => "update_by_query",
    }
}

/// Compiles a `script` of `_update_by_query` or `_reindex`.
fn compile_script(value: &Value) -> Result<strata_search::CompiledScript> {
    Ok(strata_search::compile_script(
        value,
        strata_script::Context::Update,
    )?)
}

/// The `q` parameter as a `query_string` query.
fn q_query(q: &str, req: &EsRequest) -> Value {
    let mut query = json!({"query": q});
    if let Some(df) = req.param("df") {
        query["default_field"] = json!(df);
    }
    if let Some(op) = req.param("default_operator") {
        query["default_operator"] = json!(op);
    }
    json!({ "query_string": query })
}
