//! `_update` with a `script`: the document's `_source` goes through the
//! script, whose `ctx.op` decides between writing it (`index`), leaving it
//! (`none`/`noop`) and deleting it (`delete`). A missing document is
//! created from `upsert`, or, with `scripted_upsert`, from what the script
//! makes of `upsert` (`ctx.op` `create`). Retried on a concurrent change,
//! as the partial update is.

use serde_json::Value;
use strata_script::update::UpdateError;
use strata_script::{apply_update_script, Limits, UpdateMeta, UpdateOp};

use super::Compiled;
use crate::error::{Result, SearchError};
use crate::index::{DocWriteResult, SearchIndex, WriteResult};
use crate::shard::{Precondition, PRIMARY_TERM};

/// What to do when the document is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert<'a> {
    /// `document_missing_exception`.
    None,
    /// Index this document as it is.
    Document(&'a Value),
    /// Run the script over this document (`scripted_upsert`).
    Scripted(&'a Value),
}

/// Runs `script` over document `id` of `index`.
pub fn update_with_script(
    index: &SearchIndex,
    id: &str,
    script: &Compiled,
    upsert: Upsert<'_>,
    precondition: Precondition,
) -> Result<DocWriteResult> {
    for _attempt in 0..8 {
        let current = index.get_document(id)?;
        let (mut source, meta, pre) = match &current {
            Some(doc) => {
                let source: Value = serde_json::from_slice(&doc.source)
                    .map_err(|e| SearchError::illegal(format!("stored source: {e}")))?;
                let pre = match precondition {
                    Precondition::None => Precondition::SeqNo {
                        seq_no: doc.version.seq_no,
                        primary_term: PRIMARY_TERM,
                    },
                    other => other,
                };
                (
                    source,
                    meta(index, id, Some(doc.version.version), false),
                    pre,
                )
            }
            None => {
                let pre = match precondition {
                    Precondition::None => Precondition::Absent,
                    other => other,
                };
                match upsert {
                    Upsert::None => {
                        return Err(SearchError::DocumentMissing { id: id.to_string() })
                    }
                    Upsert::Document(doc) => {
                        let bytes = serde_json::to_vec(doc)
                            .map_err(|e| SearchError::illegal(e.to_string()))?;
                        match retry(index.index_document(Some(id), &bytes, pre), precondition) {
                            Some(result) => return result,
                            None => continue,
                        }
                    }
                    Upsert::Scripted(doc) => (doc.clone(), meta(index, id, None, true), pre),
                }
            }
        };
        let op = apply_update_script(
            &script.script,
            &script.params,
            &mut source,
            &meta,
            Limits::default(),
        )
        .map_err(|e| match e {
            UpdateError::Script(e) => {
                SearchError::UpdateScript(Box::new(SearchError::Script(Box::new(e))))
            }
            UpdateError::Illegal(m) => SearchError::illegal(m),
        })?;
        let outcome = match op {
            UpdateOp::Noop => {
                return Ok(match &current {
                    Some(doc) => DocWriteResult {
                        id: id.to_string(),
                        version: doc.version.version,
                        seq_no: doc.version.seq_no,
                        result: WriteResult::Noop,
                        lsn: 0,
                    },
                    // A scripted upsert that chose `none` creates nothing.
                    None => DocWriteResult {
                        id: id.to_string(),
                        version: 0,
                        seq_no: 0,
                        result: WriteResult::Noop,
                        lsn: 0,
                    },
                });
            }
            UpdateOp::Delete => index.delete_document(id, pre),
            UpdateOp::Index => {
                let bytes =
                    serde_json::to_vec(&source).map_err(|e| SearchError::illegal(e.to_string()))?;
                index.index_document(Some(id), &bytes, pre)
            }
        };
        if let Some(result) = retry(outcome, precondition) {
            return result;
        }
    }
    Err(SearchError::VersionConflict {
        id: id.to_string(),
        detail: "too many concurrent updates".into(),
    })
}

/// `None` when the write lost a race the caller did not guard against
/// (retry), else its result.
fn retry(
    result: Result<DocWriteResult>,
    precondition: Precondition,
) -> Option<Result<DocWriteResult>> {
    match result {
        Err(SearchError::VersionConflict { .. }) if precondition == Precondition::None => None,
        other => Some(other),
    }
}

fn meta(index: &SearchIndex, id: &str, version: Option<u64>, upsert: bool) -> UpdateMeta {
    UpdateMeta {
        index: index.name().to_string(),
        id: id.to_string(),
        version,
        now_millis: crate::search::now_millis(),
        upsert,
    }
}
