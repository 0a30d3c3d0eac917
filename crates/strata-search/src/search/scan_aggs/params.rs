//! Parameters of the scanned aggregations: `field`, counts and the refusal
//! of unknown keys (the parse's, `agg_tree`, which types some of the
//! kinds), with Elasticsearch's errors.

use serde_json::{Map, Value};

pub(crate) use crate::search::agg_tree::{check_keys, count_param, field_param};

use crate::error::Result;

/// [`field_param`] of an object's map.
pub(crate) fn field_param_of(
    name: &str,
    kind: &str,
    params: &Map<String, Value>,
) -> Result<String> {
    field_param(name, kind, &Value::Object(params.clone())).map(str::to_string)
}
