//! [`SourceParams`]: the parameters every values-source aggregation
//! (`min`, `percentiles`, ...) reads alike: `field` (required), `missing`,
//! `script` (refused: no scripts on aggregations here), and `format` and
//! `value_type` (accepted; only the kinds that read dates, `percentiles`
//! and `percentile_ranks`, use `format`, and take a `missing` that is a
//! date rather than a number: [`MissingValue`]). Each kind's own parser
//! (`metric.rs`, `percentiles.rs`) handles the rest.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};

/// A `missing` as the request writes it, before the field's type says
/// how to read it.
#[derive(Debug, Clone, PartialEq)]
pub enum MissingValue {
    /// A number or numeric string (on a date field: epoch milliseconds).
    Number(f64),
    /// Other text: only a date field reads it (a date in the format, or
    /// date math such as `now-1d`).
    Date(String),
}

impl MissingValue {
    /// The value on a field that is not a date: the number, or the
    /// parse's error for text (as a numeric-only `missing` is refused).
    pub fn number(&self, kind: &str, name: &str) -> Result<f64> {
        match self {
            MissingValue::Number(n) => Ok(*n),
            MissingValue::Date(text) => number(kind, name, "missing", &Value::from(text.as_str())),
        }
    }
}

/// The common parameters read so far.
#[derive(Debug, Default)]
pub(super) struct SourceParams {
    field: Option<String>,
    missing: Option<MissingValue>,
    format: Option<String>,
    /// Whether a `missing` that is not a number is kept for a date field
    /// to read (else it is the parse's error).
    dated: bool,
}

impl SourceParams {
    /// The common parameters of a kind that reads date fields too.
    pub(super) fn dated() -> SourceParams {
        SourceParams {
            dated: true,
            ..SourceParams::default()
        }
    }

    /// Reads `key` if it is a common parameter of the `kind` aggregation
    /// `name` (`Ok(false)`: it is not, the kind's own parser goes on).
    pub(super) fn read(
        &mut self,
        kind: &str,
        name: &str,
        key: &str,
        value: &Value,
    ) -> Result<bool> {
        match key {
            "field" => self.field = Some(field_name(kind, name, value)?),
            "missing" => {
                self.missing = Some(match (number(kind, name, key, value), value) {
                    (Ok(n), _) => MissingValue::Number(n),
                    (Err(_), Value::String(text)) if self.dated => MissingValue::Date(text.clone()),
                    (Err(e), _) => return Err(e),
                })
            }
            "format" => match value {
                Value::String(text) => self.format = Some(text.clone()),
                _ => return Ok(false),
            },
            "value_type" if value.is_string() => {}
            "script" => return Err(SearchError::illegal("scripts are not supported")),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The `format` read so far.
    pub(super) fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }

    /// The field (required) and `missing` of the aggregation `name`.
    pub(super) fn finish(self, name: &str) -> Result<(String, Option<f64>)> {
        // Without `dated`, `read` kept only numbers.
        let missing = match self.missing {
            Some(MissingValue::Number(n)) => Some(n),
            _ => None,
        };
        Ok((required_field(name, self.field)?, missing))
    }

    /// The field (required), `missing` and `format` of the aggregation
    /// `name` (of a kind read with [`SourceParams::dated`]).
    pub(super) fn finish_dated(
        self,
        name: &str,
    ) -> Result<(String, Option<MissingValue>, Option<String>)> {
        Ok((required_field(name, self.field)?, self.missing, self.format))
    }
}

/// The `field` parameter of the `kind` aggregation `name`: a string.
pub(super) fn field_name(kind: &str, name: &str, value: &Value) -> Result<String> {
    match value {
        Value::String(f) => Ok(f.clone()),
        other => Err(SearchError::parsing(format!(
            "[field] of [{kind}] aggregation [{name}] must be a string, got [{other}]"
        ))),
    }
}

/// The field read for the aggregation `name`, which must have one.
pub(super) fn required_field(name: &str, field: Option<String>) -> Result<String> {
    field.ok_or_else(|| {
        SearchError::illegal(format!(
            "Required one of fields [field, script], but none were specified (aggregation [{name}])"
        ))
    })
}

/// `body` as the object of parameters of the `kind` aggregation `name`.
pub(super) fn object_of<'b>(
    kind: &str,
    name: &str,
    body: &'b Value,
) -> Result<&'b Map<String, Value>> {
    body.as_object()
        .ok_or_else(|| SearchError::parsing(format!("[{kind}] of [{name}] must be an object")))
}

/// Elasticsearch 8's declarative parsers' error for a key `kind` does not
/// know.
pub(super) fn unknown_key(kind: &str, key: &str) -> SearchError {
    SearchError::FieldParse {
        reason: format!("[{kind}] unknown field [{key}]"),
        cause: None,
    }
}

/// A number, written as one or as a numeric string (as Elasticsearch
/// takes them).
pub(super) fn number(kind: &str, name: &str, key: &str, value: &Value) -> Result<f64> {
    value
        .as_f64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|n: &f64| n.is_finite())
        .ok_or_else(|| {
            SearchError::parsing(format!(
                "[{key}] of [{kind}] aggregation [{name}] must be a number, got [{value}]"
            ))
        })
}

/// Checks that the bucket aggregation `name` names its field (a string)
/// and no script, in the words translation refused them before.
pub(super) fn checked_field(name: &str, params: &Map<String, Value>) -> Result<()> {
    if !params.get("field").is_some_and(Value::is_string) {
        return Err(SearchError::illegal(format!(
            "Required one of fields [field, script], but none were specified (aggregation [{name}])"
        )));
    }
    if params.contains_key("script") {
        return Err(SearchError::illegal("scripts are not supported"));
    }
    Ok(())
}

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

/// A count parameter (`size`, `min_doc_count`, ...) of aggregation `name`
/// with its default: a non-negative integer or a string of one.
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
