//! The parameter names Elasticsearch 8 knows for `terms`, `histogram`
//! and `range`, whose parameters once went to tantivy as written.
//! tantivy ignores a key it does not know, so a misspelt `sizee` would
//! change nothing silently; Elasticsearch refuses it, and so does the
//! parse here, in its words, before each kind's own parser reads the
//! keys it uses.

use serde_json::Value;

use super::AggKind;
use crate::error::{Result, SearchError};

/// The keys common to Elasticsearch's values-source aggregations.
const VALUES_SOURCE: &[&str] = &["field", "script", "missing", "value_type", "format"];

/// The keys of `kind` beyond [`VALUES_SOURCE`], for the kinds checked here.
fn own_keys(kind: AggKind) -> Option<&'static [&'static str]> {
    Some(match kind {
        AggKind::Terms => &[
            "size",
            "shard_size",
            "min_doc_count",
            "shard_min_doc_count",
            "show_term_doc_count_error",
            "order",
            "execution_hint",
            "collect_mode",
            "include",
            "exclude",
        ],
        AggKind::Histogram => &[
            "interval",
            "offset",
            "min_doc_count",
            "keyed",
            "order",
            "extended_bounds",
            "hard_bounds",
        ],
        AggKind::Range => &["ranges", "keyed"],
        _ => return None,
    })
}

/// Refuses a key of `params` that Elasticsearch does not know for `kind`
/// (kinds without a list here, and non-object `params`, pass: their own
/// parsers judge them).
pub fn check(kind: AggKind, params: &Value) -> Result<()> {
    let (Some(own), Some(obj)) = (own_keys(kind), params.as_object()) else {
        return Ok(());
    };
    match obj
        .keys()
        .find(|k| !VALUES_SOURCE.contains(&k.as_str()) && !own.contains(&k.as_str()))
    {
        Some(unknown) => Err(SearchError::FieldParse {
            reason: format!("[{}] unknown field [{unknown}]", kind.name()),
            cause: None,
        }),
        None => Ok(()),
    }
}
