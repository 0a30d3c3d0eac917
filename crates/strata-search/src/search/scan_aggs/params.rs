//! Parameters of the scanned aggregations: `field` and the refusal of
//! unknown keys (the parse's, `agg_tree`, which types some of the kinds),
//! and counts, with Elasticsearch's errors.

use serde_json::{Map, Value};

pub(crate) use crate::search::agg_tree::{check_keys, field_param};

use crate::error::{Result, SearchError};

/// [`field_param`] of an object's map.
pub(crate) fn field_param_of(
    name: &str,
    kind: &str,
    params: &Map<String, Value>,
) -> Result<String> {
    field_param(name, kind, &Value::Object(params.clone())).map(str::to_string)
}

/// A count parameter (`size`, `min_doc_count`, ...) with its default.
pub(crate) fn count_param(name: &str, params: &Value, key: &str, default: u64) -> Result<u64> {
    match params.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .ok_or_else(|| {
                SearchError::parsing(format!(
                    "[{key}] of aggregation [{name}] must be a non-negative integer, got [{v}]"
                ))
            }),
    }
}
