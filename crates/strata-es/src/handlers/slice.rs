//! `slice` in a scroll or point-in-time search: the checks Elasticsearch
//! makes on the shards, failing them (`search_phase_execution_exception`,
//! 400, with the `illegal_argument_exception` as root cause). The
//! partition itself is the engine's (`strata_search::Slice`).

use std::sync::Arc;

use strata_search::{SearchError, SearchIndex, Slice};

use crate::error::{EsError, Result};

/// The refusal of a plain search with a `slice`.
pub(super) fn refuse_plain() -> EsError {
    EsError::ActionValidation(
        "[slice] can only be used with [scroll] or [point-in-time] requests".into(),
    )
}

/// Checks `slice` against every index searched: its `field` must be a
/// numeric doc-values field, `_id` only in a scroll, and a scroll's `max`
/// at most `index.max_slices_per_scroll` (Elasticsearch checks that for
/// scrolls only).
pub(super) fn check(indices: &[Arc<SearchIndex>], slice: &Slice, scroll: bool) -> Result<()> {
    for index in indices {
        let name = index.name();
        let refuse = |e: SearchError| EsError::SearchPhase {
            cause: Box::new(EsError::from(e).in_index(name)),
            index: Some(name.to_string()),
            phase: "query",
        };
        if !scroll && slice.field.as_deref() == Some("_id") {
            return Err(refuse(SearchError::IllegalArgument(
                "cannot slice on [_id] when using [point-in-time]".into(),
            )));
        }
        let limit = index.max_slices_per_scroll();
        if scroll && u64::from(slice.max) > limit {
            return Err(refuse(SearchError::IllegalArgument(format!(
                "The number of slices [{}] is too large. It must be less than [{limit}]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.",
                slice.max
            ))));
        }
        slice.check(index).map_err(refuse)?;
    }
    Ok(())
}
