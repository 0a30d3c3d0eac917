//! The `field` parameter read from an object's map, with Elasticsearch's
//! errors (the scanned kinds' parameters are typed by the request's
//! parse, `agg_tree`, which refuses unknown keys and bad counts).

use serde_json::{Map, Value};

pub(crate) use crate::search::agg_tree::field_param;

use crate::error::Result;

/// [`field_param`] of an object's map.
pub(crate) fn field_param_of(
    name: &str,
    kind: &str,
    params: &Map<String, Value>,
) -> Result<String> {
    field_param(name, kind, &Value::Object(params.clone())).map(str::to_string)
}
