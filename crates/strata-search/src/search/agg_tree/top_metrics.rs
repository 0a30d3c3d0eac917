//! [`TopMetricsParams`]: a `top_metrics` aggregation's parameters, typed
//! when the request is parsed, as Elasticsearch 8 reads them: `metrics`,
//! one `{"field": ...}` object or a list of them (required, not empty);
//! `sort`, exactly one criterion, a field (`"f"`, `{"f": "desc"}`,
//! `{"f": {"order": "desc"}}`) or `_score` (required); `size`, default 1,
//! at least 1 and at most [`MAX_SIZE`] (Elasticsearch's default
//! `index.top_metrics_max_size`, same words). A metric's `missing` and
//! `script`, and a sort's options other than `order` (`missing`,
//! `unmapped_type`, `numeric_type`, `format`) and sorts other than a
//! field or `_score` (`_geo_distance`, `_script`, `_doc`), are refused
//! rather than ignored. What needs the mapping (the fields' types) is the
//! aggregation's search's (`search::top_metrics`).

use serde_json::Value;

use super::source::{field_name, object_of, unknown_key};
use crate::error::{Result, SearchError};
use crate::search::sort::{Missing, SortField};

const KIND: &str = "top_metrics";

/// Elasticsearch's default `index.top_metrics_max_size`: the largest
/// `size`.
const MAX_SIZE: usize = 10;

/// The parameters of one `top_metrics` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct TopMetricsParams {
    /// The fields whose values are reported, in request order.
    pub(crate) metrics: Vec<String>,
    /// The one sort criterion: a field or `_score`.
    pub(crate) sort: SortField,
    /// Documents reported, best first (1 to [`MAX_SIZE`]).
    pub(crate) size: usize,
}

impl TopMetricsParams {
    /// The parameters `body` of the `top_metrics` aggregation `name`.
    pub(crate) fn parse(name: &str, body: &Value) -> Result<TopMetricsParams> {
        let (mut metrics, mut sort, mut size) = (None, None, 1);
        for (key, value) in object_of(KIND, name, body)? {
            match key.as_str() {
                "metrics" => metrics = Some(parse_metrics(name, value)?),
                "sort" => sort = Some(parse_sort(value)?),
                "size" => {
                    // A number, or a numeric string as Elasticsearch's
                    // integer fields take.
                    let n = value
                        .as_i64()
                        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
                        .ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[size] of [{KIND}] aggregation [{name}] must be an integer, got [{value}]"
                        ))
                    })?;
                    if n < 1 {
                        return Err(SearchError::illegal(format!(
                            "[size] must be more than 0 but was [{n}]"
                        )));
                    }
                    size = usize::try_from(n).unwrap_or(usize::MAX);
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        // Elasticsearch's constructing parser names what it lacks.
        let required = |what: &str| SearchError::FieldParse {
            reason: format!("Required [{what}]"),
            cause: None,
        };
        let sort = sort.ok_or_else(|| required("sort"))?;
        let metrics = metrics.ok_or_else(|| required("metrics"))?;
        if size > MAX_SIZE {
            return Err(SearchError::illegal(format!(
                "[top_metrics.size] must not be more than [{MAX_SIZE}] but was [{size}]. This limit can be set by changing the [index.top_metrics_max_size] index level setting."
            )));
        }
        Ok(TopMetricsParams {
            metrics,
            sort,
            size,
        })
    }
}

/// `metrics`: one `{"field": ...}` object or a list of them.
fn parse_metrics(name: &str, value: &Value) -> Result<Vec<String>> {
    let items = match value {
        Value::Array(items) => items.as_slice(),
        Value::Object(_) => std::slice::from_ref(value),
        other => {
            return Err(SearchError::parsing(format!(
                "[metrics] of [{KIND}] aggregation [{name}] must be an object or an array of objects, got [{other}]"
            )))
        }
    };
    if items.is_empty() {
        return Err(SearchError::illegal(format!(
            "[metrics] of [{KIND}] aggregation [{name}] must not be empty"
        )));
    }
    items
        .iter()
        .map(|item| {
            let mut field = None;
            for (key, v) in object_of("metrics", name, item)? {
                match key.as_str() {
                    "field" => field = Some(field_name(KIND, name, v)?),
                    "script" => return Err(SearchError::illegal("scripts are not supported")),
                    "missing" => {
                        return Err(SearchError::illegal(format!(
                            "[missing] of a metric of [{KIND}] aggregation [{name}] is not supported by this server"
                        )))
                    }
                    other => return Err(unknown_key("field_config", other)),
                }
            }
            field.ok_or_else(|| {
                SearchError::illegal(format!(
                    "[field] must be set for a metric of [{KIND}] aggregation [{name}]"
                ))
            })
        })
        .collect()
}

/// `sort`: exactly one criterion, on a field or `_score`, with no option
/// but `order`.
fn parse_sort(value: &Value) -> Result<SortField> {
    let mut list = SortField::parse_list(value)?;
    if list.len() != 1 {
        return Err(SearchError::illegal("[sort] must contain exactly one sort"));
    }
    let sort = list.remove(0);
    let field = sort.field.as_str();
    if matches!(field, "_doc" | "_shard_doc" | "_geo_distance" | "_script") {
        return Err(SearchError::illegal(format!(
            "sorting [{KIND}] by [{field}] is not supported by this server"
        )));
    }
    let option = if sort.missing != Missing::Last {
        Some("missing")
    } else if sort.unmapped_type.is_some() {
        Some("unmapped_type")
    } else if sort.numeric_type.is_some() {
        Some("numeric_type")
    } else if sort.format.is_some() {
        Some("format")
    } else {
        None
    };
    if let Some(option) = option {
        return Err(SearchError::illegal(format!(
            "[{option}] of the sort of [{KIND}] is not supported by this server"
        )));
    }
    Ok(sort)
}

#[cfg(test)]
#[path = "top_metrics_tests.rs"]
mod tests;
