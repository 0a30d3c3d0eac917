//! The parameter parsing every query translator shares: the single
//! `{field: params}` entry of a field-level query, the check for unknown
//! parameters, `boost`, `minimum_should_match`, and a value written bare
//! or as `{"value": ...}`; and the typed forms of `boost` and
//! `minimum_should_match` the query tree (`query/ast`) holds.
//!
//! A leaf of the query module: plain functions over JSON, naming no
//! translator, so every translator can use them without depending on
//! the dispatcher in `query/mod.rs`.

use serde_json::{Map, Value};
use tantivy::query::{BoostQuery, Query};

use crate::error::{Result, SearchError};

/// The single `{field: params}` entry of a field-level query.
pub(crate) fn single_field<'a>(kind: &str, body: &'a Value) -> Result<(&'a str, &'a Value)> {
    let obj = body.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "[{kind}] query malformed, no start_object after query name"
        ))
    })?;
    let fields: Vec<_> = obj
        .iter()
        .filter(|(k, _)| k.as_str() != "boost" && k.as_str() != "_name")
        .collect();
    match fields.as_slice() {
        [(field, params)] => Ok((field.as_str(), params)),
        [] => Err(SearchError::parsing(format!(
            "[{kind}] query doesn't support empty field name"
        ))),
        _ => Err(SearchError::parsing(format!(
            "[{kind}] query doesn't support multiple fields, found [{}] and [{}]",
            fields[0].0, fields[1].0
        ))),
    }
}

/// Checks that `params` only has `allowed` keys.
pub(crate) fn check_params(
    kind: &str,
    params: &Map<String, Value>,
    allowed: &[&str],
) -> Result<()> {
    for key in params.keys() {
        if !allowed.contains(&key.as_str()) && key != "boost" && key != "_name" {
            return Err(SearchError::parsing(format!(
                "[{kind}] query does not support [{key}]"
            )));
        }
    }
    Ok(())
}

/// `query` boosted by `boost` (itself at 1.0).
pub(crate) fn with_boost(query: Box<dyn Query>, boost: f64) -> Box<dyn Query> {
    if boost == 1.0 {
        query
    } else {
        Box::new(BoostQuery::new(query, boost as f32))
    }
}

/// `{"field": value}` or `{"field": {"value": v, ...}}` as (value, params).
pub(crate) fn value_and_params<'a>(
    kind: &str,
    params: &'a Value,
    allowed: &[&str],
) -> Result<(&'a Value, &'a Value)> {
    match params {
        Value::Object(obj) => {
            check_params(kind, obj, allowed)?;
            let v = obj
                .get("value")
                .ok_or_else(|| SearchError::parsing(format!("[{kind}] query requires a value")))?;
            Ok((v, params))
        }
        other => Ok((other, &Value::Null)),
    }
}

/// `boost` beside a query's parameters: 1.0 when absent, a number or a
/// numeric string otherwise.
pub(crate) fn boost_of(params: &Value) -> Result<f64> {
    Ok(number_of(params, "boost")?.unwrap_or(1.0))
}

/// The parameter `key` of `params` as a number: `None` when absent, a
/// number or a numeric string (Elasticsearch's parser coerces strings),
/// anything else a parsing error naming the key.
pub(crate) fn number_of(params: &Value, key: &str) -> Result<Option<f64>> {
    params
        .get(key)
        .map(|v| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .ok_or_else(|| SearchError::parsing(format!("[{key}] must be a number, got [{v}]")))
        })
        .transpose()
}

/// `minimum_should_match` as written (`2`, `"75%"`, `"-1"`, `"-25%"`),
/// resolved against the number of optional clauses when translated.
#[derive(Debug, Clone)]
pub(crate) struct MinimumShouldMatch(String);

impl MinimumShouldMatch {
    /// Parses a number or a string; anything else is malformed.
    pub(crate) fn parse(value: &Value) -> Result<MinimumShouldMatch> {
        match value {
            Value::Number(n) => Ok(MinimumShouldMatch(n.to_string())),
            Value::String(s) => Ok(MinimumShouldMatch(s.trim().to_string())),
            other => Err(SearchError::parsing(format!(
                "[minimum_should_match] malformed: {other}"
            ))),
        }
    }

    /// Optional `key` of `params`.
    pub(crate) fn of(params: &Value, key: &str) -> Result<Option<MinimumShouldMatch>> {
        params.get(key).map(MinimumShouldMatch::parse).transpose()
    }

    /// How many of `optional` clauses must match.
    pub(crate) fn resolve(&self, optional: usize) -> Result<usize> {
        let text = &self.0;
        let invalid = || SearchError::parsing(format!("invalid minimum_should_match [{text}]"));
        let n = optional as i64;
        let required = if let Some(pct) = text.strip_suffix('%') {
            let p: i64 = pct.parse().map_err(|_| invalid())?;
            let part = n * p.abs() / 100;
            if p < 0 {
                n - part
            } else {
                part
            }
        } else {
            let k: i64 = text.parse().map_err(|_| invalid())?;
            if k < 0 {
                n + k
            } else {
                k
            }
        };
        Ok(required.clamp(0, n) as usize)
    }
}
