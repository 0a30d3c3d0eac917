//! Parameters of the scanned aggregations: `field`, counts, and the
//! refusal of unknown keys, with Elasticsearch's errors.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};

/// The `field` parameter of `kind` aggregation `name`.
pub(crate) fn field_param<'a>(name: &str, kind: &str, params: &'a Value) -> Result<&'a str> {
    match params.get("field") {
        Some(Value::String(f)) => Ok(f),
        Some(other) => Err(SearchError::parsing(format!(
            "[field] of [{kind}] aggregation [{name}] must be a string, got [{other}]"
        ))),
        None => Err(SearchError::illegal(format!(
            "Required one of fields [field, script], but none were specified (aggregation [{name}])"
        ))),
    }
}

/// [`field_param`] of an object's map.
pub(crate) fn field_param_of(
    name: &str,
    kind: &str,
    params: &Map<String, Value>,
) -> Result<String> {
    field_param(name, kind, &Value::Object(params.clone())).map(str::to_string)
}

/// Refuses parameters of `kind` aggregation `name` outside `allowed`.
pub(crate) fn check_keys(name: &str, kind: &str, params: &Value, allowed: &[&str]) -> Result<()> {
    if let Some(obj) = params.as_object() {
        for k in obj.keys() {
            if k == "script" {
                return Err(SearchError::illegal(format!(
                    "[script] of [{kind}] aggregation [{name}] is not supported"
                )));
            }
            if !allowed.contains(&k.as_str()) {
                // Elasticsearch 8's declarative parsers' error.
                return Err(SearchError::FieldParse {
                    reason: format!("[{kind}] unknown field [{k}]"),
                    cause: None,
                });
            }
        }
    }
    Ok(())
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
