//! [`MultiTermsParams`]: a `multi_terms` aggregation's parameters, typed
//! when the request is parsed, as Elasticsearch 8 reads them: `terms`, 2
//! to [`MAX_TERMS`] `{"field", "missing"?}` sources; `size` (default 10)
//! and `shard_size` above 0; `min_doc_count` at least 1 (default 1);
//! `show_term_doc_count_error` a boolean; `order` one criterion or a list
//! (`_count`, `_key`, or a sub-aggregation's path), default `_count`
//! descending then `_key` ascending. Errors in its words: the builder's
//! (`[size] must be greater than 0. Found [0] in [name]`) under the
//! parser's `[multi_terms] failed to parse field [size]`.
//!
//! Refused rather than ignored: a source's `script`, `value_type`,
//! `format` and `time_zone`; `shard_min_doc_count` other than 0 and
//! `collect_mode` (this server's counts are exact, per document, with no
//! per-shard pruning or deferred collection to tune). Whether an order
//! path names a sub-aggregation it can sort by, and the fields' types,
//! are the scan's to judge (`scan_aggs/multi_terms`).

use serde_json::{Map, Value};

use super::source::{field_name, object_of, unknown_key};
use crate::error::{Result, SearchError};

const KIND: &str = "multi_terms";

/// Elasticsearch's cap on the sources of one `multi_terms`.
const MAX_TERMS: usize = 128;

/// One of `terms`: a field, and the value documents without one take.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TermSource {
    pub(crate) field: String,
    /// As written: converting it to the field's type is the scan's.
    pub(crate) missing: Option<Value>,
}

/// What buckets are ordered by.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OrderKey {
    /// The bucket's document count.
    Count,
    /// The key, source by source.
    Key,
    /// A sub-aggregation's value: `name` or `name.metric`, as written.
    Path(String),
}

/// The parameters of one `multi_terms` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiTermsParams {
    pub(crate) terms: Vec<TermSource>,
    pub(crate) size: usize,
    /// Checked above 0; counts here are exact, so it bounds nothing.
    pub(crate) shard_size: Option<usize>,
    pub(crate) min_doc_count: u64,
    pub(crate) show_term_doc_count_error: bool,
    /// Criteria (descending?) in order; ties end on the key ascending.
    pub(crate) order: Vec<(OrderKey, bool)>,
}

impl MultiTermsParams {
    /// The parameters `body` of the `multi_terms` aggregation `name`.
    pub(crate) fn parse(name: &str, body: &Value) -> Result<MultiTermsParams> {
        let mut out = MultiTermsParams {
            terms: Vec::new(),
            size: 10,
            shard_size: None,
            min_doc_count: 1,
            show_term_doc_count_error: false,
            order: vec![(OrderKey::Count, true)],
        };
        let failed = |field: &str, message: String| {
            SearchError::field_parse(KIND, field, SearchError::illegal(message))
        };
        for (key, value) in object_of(KIND, name, body)? {
            match key.as_str() {
                "terms" => out.terms = parse_terms(name, value)?,
                "size" => {
                    let n = integer(name, key, value)?;
                    if n <= 0 {
                        let m = format!("[size] must be greater than 0. Found [{n}] in [{name}]");
                        return Err(failed(key, m));
                    }
                    out.size = usize::try_from(n).unwrap_or(usize::MAX);
                }
                "shard_size" => {
                    let n = integer(name, key, value)?;
                    if n <= 0 {
                        let m =
                            format!("[shardSize] must be greater than 0. Found [{n}] in [{name}]");
                        return Err(failed(key, m));
                    }
                    out.shard_size = Some(usize::try_from(n).unwrap_or(usize::MAX));
                }
                "min_doc_count" => {
                    let n = integer(name, key, value)?;
                    if n < 1 {
                        let m = format!(
                            "[minDocCount] must be greater than or equal to 1. Found [{n}] in [{name}]"
                        );
                        return Err(failed(key, m));
                    }
                    out.min_doc_count = n as u64;
                }
                "shard_min_doc_count" => {
                    let n = integer(name, key, value)?;
                    if n < 0 {
                        let m = format!(
                            "[shardMinDocCount] must be greater than or equal to 0. Found [{n}] in [{name}]"
                        );
                        return Err(failed(key, m));
                    }
                    if n > 0 {
                        return Err(unsupported(name, key));
                    }
                }
                "show_term_doc_count_error" => {
                    out.show_term_doc_count_error = value.as_bool().ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[{key}] of [{KIND}] aggregation [{name}] must be a boolean, got [{value}]"
                        ))
                    })?;
                }
                "order" => out.order = parse_order(name, value)?,
                "collect_mode" => return Err(unsupported(name, key)),
                other => return Err(unknown_key(KIND, other)),
            }
        }
        if out.terms.len() < 2 {
            let hint = if out.terms.len() == 1 {
                " For a single field user terms aggregation."
            } else {
                ""
            };
            return Err(failed(
                "terms",
                format!(
                    "The [terms] parameter in the aggregation [{name}] must be present and have at least 2 fields or scripts.{hint}"
                ),
            ));
        }
        Ok(out)
    }
}

/// An integer parameter (a number or a numeric string).
fn integer(name: &str, key: &str, value: &Value) -> Result<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| {
            SearchError::parsing(format!(
                "[{key}] of [{KIND}] aggregation [{name}] must be an integer, got [{value}]"
            ))
        })
}

fn unsupported(name: &str, key: &str) -> SearchError {
    SearchError::illegal(format!(
        "[{key}] of [{KIND}] aggregation [{name}] is not supported by this server: its counts are exact"
    ))
}

/// `terms`: a list of `{"field", "missing"?}` objects, at most
/// [`MAX_TERMS`].
fn parse_terms(name: &str, value: &Value) -> Result<Vec<TermSource>> {
    let items = value.as_array().ok_or_else(|| {
        SearchError::parsing(format!(
            "[terms] of [{KIND}] aggregation [{name}] must be an array of objects, got [{value}]"
        ))
    })?;
    if items.len() > MAX_TERMS {
        return Err(SearchError::field_parse(
            KIND,
            "terms",
            SearchError::illegal(format!(
                "The [terms] parameter in the aggregation [{name}] cannot have more than {MAX_TERMS} fields or scripts. Found [{}].",
                items.len()
            )),
        ));
    }
    items
        .iter()
        .map(|item| {
            let (mut field, mut missing) = (None, None);
            for (key, v) in object_of("terms", name, item)? {
                match key.as_str() {
                    "field" => field = Some(field_name(KIND, name, v)?),
                    "missing" if !v.is_null() => missing = Some(v.clone()),
                    "missing" => {}
                    "script" => return Err(SearchError::illegal("scripts are not supported")),
                    "value_type" | "format" | "time_zone" => {
                        return Err(SearchError::illegal(format!(
                            "[{key}] of a term of [{KIND}] aggregation [{name}] is not supported by this server"
                        )))
                    }
                    other => return Err(unknown_key("field_config", other)),
                }
            }
            let field = field.ok_or_else(|| {
                SearchError::illegal(format!(
                    "[field] must be set for a term of [{KIND}] aggregation [{name}]"
                ))
            })?;
            Ok(TermSource { field, missing })
        })
        .collect()
}

/// `order`: `{"<key>": "asc"|"desc"}` or a list of them.
fn parse_order(name: &str, value: &Value) -> Result<Vec<(OrderKey, bool)>> {
    let items = match value {
        Value::Array(items) => items.as_slice(),
        Value::Object(_) => std::slice::from_ref(value),
        other => {
            return Err(SearchError::parsing(format!(
                "[order] of [{KIND}] aggregation [{name}] must be an object or an array of objects, got [{other}]"
            )))
        }
    };
    let one = |obj: &Map<String, Value>| -> Result<(OrderKey, bool)> {
        let (key, dir) = match obj.iter().next() {
            Some(entry) if obj.len() == 1 => entry,
            _ => {
                return Err(SearchError::parsing(format!(
                    "[order] of [{KIND}] aggregation [{name}] must hold one key per object"
                )))
            }
        };
        let descending = match dir.as_str().map(str::to_ascii_lowercase).as_deref() {
            Some("asc") => false,
            Some("desc") => true,
            _ => {
                return Err(SearchError::parsing(format!(
                    "Unknown order direction [{}]",
                    dir.as_str().map_or_else(|| dir.to_string(), str::to_string)
                )))
            }
        };
        let key = match key.as_str() {
            "_count" => OrderKey::Count,
            "_key" | "_term" => OrderKey::Key,
            path => OrderKey::Path(path.to_string()),
        };
        Ok((key, descending))
    };
    if items.is_empty() {
        return Err(SearchError::parsing(format!(
            "[order] of [{KIND}] aggregation [{name}] must not be empty"
        )));
    }
    items
        .iter()
        .map(|item| match item {
            Value::Object(obj) => one(obj),
            other => Err(SearchError::parsing(format!(
                "[order] of [{KIND}] aggregation [{name}] must be an object, got [{other}]"
            ))),
        })
        .collect()
}

#[cfg(test)]
#[path = "multi_terms_tests.rs"]
mod tests;
