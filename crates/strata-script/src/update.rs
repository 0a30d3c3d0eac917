//! `_update` scripts: the document's `_source` in `ctx._source`, the
//! outcome in `ctx.op`. Shared by `_update` and `_update_by_query`.

use serde_json::{json, Value as Json};

use crate::error::ScriptError;
use crate::{Input, Limits, Script};

/// What the script decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateOp {
    /// Write the changed `_source` (`ctx.op` `index`, or `create` for an
    /// upsert).
    Index,
    /// Leave the document as it is (`none` or `noop`).
    Noop,
    /// Delete the document.
    Delete,
}

/// What `ctx` holds besides `_source` and `op`.
#[derive(Debug, Clone, Default)]
pub struct UpdateMeta {
    /// `ctx._index`.
    pub index: String,
    /// `ctx._id`.
    pub id: String,
    /// `ctx._version` (absent for an upsert).
    pub version: Option<u64>,
    /// `ctx._now`: epoch milliseconds.
    pub now_millis: i64,
    /// The document is created by the script (`scripted_upsert`):
    /// `ctx.op` starts as `create`.
    pub upsert: bool,
}

/// Why an update script failed.
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateError {
    /// The script did not compile or failed.
    Script(ScriptError),
    /// `ctx.op` was set to something not allowed, or `ctx._source` to a
    /// non-object (an `illegal_argument_exception` in Elasticsearch).
    Illegal(String),
}

/// Runs `script` over `source` (changed in place) and returns what to do.
pub fn apply_update_script(
    script: &Script,
    params: &Json,
    source: &mut Json,
    meta: &UpdateMeta,
    limits: Limits,
) -> Result<UpdateOp, UpdateError> {
    let start_op = if meta.upsert { "create" } else { "index" };
    let mut ctx = json!({
        "_source": source.take(),
        "op": start_op,
        "_index": meta.index,
        "_id": meta.id,
        "_now": meta.now_millis,
    });
    if let Some(version) = meta.version {
        ctx["_version"] = json!(version);
    }
    let out = script
        .run(Input {
            params: Some(params),
            ctx: Some(ctx),
            limits,
            ..Input::default()
        })
        .map_err(UpdateError::Script)?;
    let mut ctx = out.ctx.unwrap_or(Json::Null);
    let op = match ctx.get("op").and_then(Json::as_str) {
        Some("none" | "noop") => UpdateOp::Noop,
        Some("index") if !meta.upsert => UpdateOp::Index,
        Some("create") if meta.upsert => UpdateOp::Index,
        Some("delete") if !meta.upsert => UpdateOp::Delete,
        other => {
            let allowed = if meta.upsert {
                "[create, noop]"
            } else {
                "[noop, index, delete]"
            };
            return Err(UpdateError::Illegal(format!(
                "Operation type [{}] not allowed, only {allowed} are allowed",
                other.unwrap_or("null")
            )));
        }
    };
    match ctx.get_mut("_source").map(Json::take) {
        Some(new @ Json::Object(_)) => *source = new,
        _ if op != UpdateOp::Index => {}
        _ => {
            return Err(UpdateError::Illegal(
                "[ctx._source] must be an object".into(),
            ))
        }
    }
    Ok(op)
}
