//! The full-text queries with a typed node: `match`, `match_phrase`,
//! `multi_match`. The query text stays the JSON value written (a string,
//! or a number or boolean a non-text field takes as its exact value).

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::query::params::{boost_of, check_params, single_field, MinimumShouldMatch};

/// `match`.
#[derive(Debug)]
pub(crate) struct MatchAst<'a> {
    pub field: &'a str,
    pub query: &'a Value,
    /// `operator: and`.
    pub and: bool,
    pub minimum_should_match: Option<MinimumShouldMatch>,
    pub lenient: bool,
    pub boost: f64,
}

/// `match_phrase`.
#[derive(Debug)]
pub(crate) struct MatchPhraseAst<'a> {
    pub field: &'a str,
    pub query: &'a Value,
    pub slop: u32,
    pub boost: f64,
}

/// `multi_match`'s `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MultiMatchType {
    BestFields,
    MostFields,
    Phrase,
}

/// `multi_match`.
#[derive(Debug)]
pub(crate) struct MultiMatchAst<'a> {
    pub query: &'a Value,
    /// The field patterns (`name^boost`, `*` wildcards); all fields when absent.
    pub fields: Vec<String>,
    pub kind: MultiMatchType,
    pub and: bool,
    pub minimum_should_match: Option<MinimumShouldMatch>,
    pub tie_breaker: f32,
    pub slop: u32,
    pub boost: f64,
}

/// A value as query text: a string as it is, anything else as JSON.
pub(crate) fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `{"field": "text"}` or `{"field": {"query": ..., params}}` as (query,
/// params): `Null` params for the bare form.
fn query_and_params<'a>(kind: &str, params: &'a Value) -> Result<(&'a Value, &'a Value)> {
    match params {
        Value::Object(obj) => {
            let query = obj.get("query").ok_or_else(|| {
                SearchError::parsing(format!("No text specified for text query [{kind}]"))
            })?;
            Ok((query, params))
        }
        other => Ok((other, &Value::Null)),
    }
}

/// The keys of `params` (none for `Null`) checked against `allowed`.
fn check(kind: &str, params: &Value, allowed: &[&str]) -> Result<()> {
    match params.as_object() {
        Some(obj) => check_params(kind, obj, allowed),
        None => Ok(()),
    }
}

pub(super) fn match_query(body: &Value) -> Result<MatchAst<'_>> {
    let (field, params) = single_field("match", body)?;
    let (query, opts) = query_and_params("match", params)?;
    check(
        "match",
        opts,
        &[
            "query",
            "operator",
            "minimum_should_match",
            "lenient",
            "zero_terms_query",
            "analyzer",
        ],
    )?;
    if let Some(a) = opts.get("analyzer").and_then(Value::as_str) {
        if a != "standard" && a != "default" {
            return Err(SearchError::illegal(format!(
                "[match] analyzer [{a}] is not supported"
            )));
        }
    }
    let and = match opts
        .get("operator")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
    {
        None => false,
        Some(op) if op == "or" => false,
        Some(op) if op == "and" => true,
        Some(op) => {
            return Err(SearchError::parsing(format!(
                "[match] unknown operator [{op}]"
            )))
        }
    };
    Ok(MatchAst {
        field,
        query,
        and,
        minimum_should_match: MinimumShouldMatch::of(opts, "minimum_should_match")?,
        lenient: opts
            .get("lenient")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        boost: boost_of(opts)?,
    })
}

pub(super) fn match_phrase(body: &Value) -> Result<MatchPhraseAst<'_>> {
    let (field, params) = single_field("match_phrase", body)?;
    let (query, opts) = query_and_params("match_phrase", params)?;
    check(
        "match_phrase",
        opts,
        &["query", "slop", "analyzer", "zero_terms_query"],
    )?;
    Ok(MatchPhraseAst {
        field,
        query,
        slop: opts.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32,
        boost: boost_of(opts)?,
    })
}

/// `multi_match`'s `fields`: a pattern or a list of them.
fn field_patterns(fields: Option<&Value>) -> Result<Vec<String>> {
    Ok(match fields {
        None => vec!["*".to_string()],
        Some(Value::Array(items)) => items.iter().map(text_of).collect(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(other) => return Err(SearchError::parsing(format!("[fields] malformed: {other}"))),
    })
}

pub(super) fn multi_match(body: &Value) -> Result<MultiMatchAst<'_>> {
    let opts = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[multi_match] malformed"))?;
    check_params(
        "multi_match",
        opts,
        &[
            "query",
            "fields",
            "type",
            "operator",
            "minimum_should_match",
            "tie_breaker",
            "lenient",
            "slop",
        ],
    )?;
    let query = opts
        .get("query")
        .ok_or_else(|| SearchError::parsing("No text specified for multi_match query"))?;
    let kind = match opts
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("best_fields")
    {
        "best_fields" => MultiMatchType::BestFields,
        "most_fields" => MultiMatchType::MostFields,
        "phrase" => MultiMatchType::Phrase,
        other => {
            return Err(SearchError::illegal(format!(
                "[multi_match] type [{other}] is not supported"
            )))
        }
    };
    Ok(MultiMatchAst {
        query,
        fields: field_patterns(opts.get("fields"))?,
        kind,
        and: matches!(opts.get("operator").and_then(Value::as_str),
            Some(op) if op.eq_ignore_ascii_case("and")),
        minimum_should_match: MinimumShouldMatch::of(body, "minimum_should_match")?,
        tie_breaker: opts
            .get("tie_breaker")
            .and_then(Value::as_f64)
            .unwrap_or(0.0) as f32,
        slop: opts.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32,
        boost: boost_of(body)?,
    })
}
