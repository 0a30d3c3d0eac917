//! The per-document step of a by-query job: what happens to one document
//! read from the source. Without a script a document is written as it is
//! (`_update_by_query` re-indexes it, picking up mapping changes;
//! `_reindex` copies it); a delete-by-query deletes it. A script step
//! (Painless `ctx._source`, `ctx.op`) implements the same trait: it may
//! change `source` and answer any [`Op`].

use crate::error::EsError;

/// A document as the step sees it (`ctx` in a script).
#[derive(Debug, Clone)]
pub struct SourceDoc {
    /// The index it was read from (`ctx._index`).
    pub index: String,
    /// Its id (`ctx._id`).
    pub id: String,
    /// Its version when read (`ctx._version`).
    pub version: u64,
    /// Its `_source`, JSON text (`ctx._source`); a step may replace it.
    pub source: String,
}

/// What to do with the document (`ctx.op`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Write it (back, or to the destination).
    Index,
    /// Leave it (`noop`).
    Noop,
    /// Delete it.
    Delete,
}

/// The step of a job.
pub trait DocumentStep: Send + Sync {
    /// Decides about `doc`, possibly changing its source.
    fn apply(&self, doc: &mut SourceDoc) -> Result<Op, EsError>;
}

/// Writes every document as it is.
pub struct AsIs;

impl DocumentStep for AsIs {
    fn apply(&self, _doc: &mut SourceDoc) -> Result<Op, EsError> {
        Ok(Op::Index)
    }
}

/// Deletes every document.
pub struct DeleteAll;

impl DocumentStep for DeleteAll {
    fn apply(&self, _doc: &mut SourceDoc) -> Result<Op, EsError> {
        Ok(Op::Delete)
    }
}

/// Runs a Painless `script` over each document (`ctx._source`, `ctx.op`,
/// `ctx._index`, `ctx._id`, `ctx._version`), as `_update` does.
pub struct ScriptStep {
    /// The compiled script and its `params`.
    pub script: strata_search::CompiledScript,
}

impl DocumentStep for ScriptStep {
    fn apply(&self, doc: &mut SourceDoc) -> Result<Op, EsError> {
        use strata_script::update::{apply_update_script, UpdateError, UpdateMeta, UpdateOp};
        use strata_script::Limits;
        use strata_search::SearchError;
        let mut source: serde_json::Value = serde_json::from_str(&doc.source)
            .map_err(|e| EsError::Internal(format!("stored source of [{}]: {e}", doc.id)))?;
        let meta = UpdateMeta {
            index: doc.index.clone(),
            id: doc.id.clone(),
            version: Some(doc.version),
            now_millis: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            upsert: false,
        };
        let op = apply_update_script(
            &self.script.script,
            &self.script.params,
            &mut source,
            &meta,
            Limits::default(),
        )
        .map_err(|e| match e {
            UpdateError::Script(e) => EsError::from(SearchError::UpdateScript(Box::new(
                SearchError::Script(Box::new(e)),
            ))),
            UpdateError::Illegal(m) => EsError::IllegalArgument(m),
        })?;
        Ok(match op {
            UpdateOp::Index => {
                doc.source = source.to_string();
                Op::Index
            }
            UpdateOp::Noop => Op::Noop,
            UpdateOp::Delete => Op::Delete,
        })
    }
}
