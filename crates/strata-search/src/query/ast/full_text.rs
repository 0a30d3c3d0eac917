//! The full-text queries with a typed node: `match`, `match_phrase`,
//! `multi_match`, `match_phrase_prefix`, `match_bool_prefix`. The query
//! text of the first three stays the JSON value written (a string, or a
//! number or boolean a non-text field takes as its exact value); the
//! prefix queries take it as text.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::query::params::{boost_of, check_params, single_field, MinimumShouldMatch};
use crate::query::term_options::{Fuzziness, FuzzyOptions};

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
    let and = match opts.get("operator").and_then(Value::as_str) {
        None => false,
        Some(op) => is_and("match", &op.to_ascii_lowercase())?,
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

/// `operator`: true for `and`, false for `or` (either case).
fn is_and(kind: &str, op: &str) -> Result<bool> {
    if op.eq_ignore_ascii_case("and") {
        Ok(true)
    } else if op.eq_ignore_ascii_case("or") {
        Ok(false)
    } else {
        Err(SearchError::parsing(format!(
            "[{kind}] unknown operator [{op}]"
        )))
    }
}

/// Elasticsearch's default `max_expansions` of a prefix query's last term.
const MAX_EXPANSIONS: u64 = 50;

/// What a query whose text analyzes to no term matches (`zero_terms_query`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ZeroTerms {
    /// Nothing (the default).
    None,
    /// Every document.
    All,
}

/// `match_phrase_prefix`.
#[derive(Debug)]
pub(crate) struct MatchPhrasePrefixAst<'a> {
    pub field: &'a str,
    pub text: String,
    pub slop: u64,
    /// The most terms the last term expands to.
    pub max_expansions: u64,
    pub zero_terms: ZeroTerms,
    pub boost: f64,
}

/// `match_bool_prefix`.
#[derive(Debug)]
pub(crate) struct MatchBoolPrefixAst<'a> {
    pub field: &'a str,
    pub text: String,
    /// `operator: and`.
    pub and: bool,
    pub minimum_should_match: Option<MinimumShouldMatch>,
    /// Every term but the last is fuzzy when set.
    pub fuzziness: Option<Fuzziness>,
    pub fuzzy: FuzzyOptions,
    /// The most terms the last term expands to.
    pub max_expansions: u64,
    pub boost: f64,
}

/// The field, query text and params of a prefix query, its params checked
/// against `allowed` and its `analyzer`. The text is a string, or a number
/// or boolean as JSON; a list or an object is refused as Elasticsearch's
/// parser refuses the token.
fn prefix_text<'a>(
    kind: &str,
    body: &'a Value,
    allowed: &[&str],
) -> Result<(&'a str, String, &'a Value)> {
    let (field, params) = single_field(kind, body)?;
    let (query, opts) = query_and_params(kind, params)?;
    let text = match query {
        Value::String(s) => s.clone(),
        Value::Number(_) | Value::Bool(_) => query.to_string(),
        other => {
            return Err(SearchError::parsing(format!(
                "[{kind}] unknown token [{}] after [query]",
                if other.is_array() {
                    "START_ARRAY"
                } else {
                    "START_OBJECT"
                }
            )))
        }
    };
    check(kind, opts, allowed)?;
    check_analyzer(kind, opts)?;
    Ok((field, text, opts))
}

/// `analyzer`: only the standard one is supported.
fn check_analyzer(kind: &str, opts: &Value) -> Result<()> {
    match opts.get("analyzer").and_then(Value::as_str) {
        None | Some("standard") | Some("default") => Ok(()),
        Some(a) => Err(SearchError::illegal(format!(
            "[{kind}] analyzer [{a}] is not supported"
        ))),
    }
}

/// The non-negative integer `key` of `opts`, `default` when absent.
fn count(kind: &str, opts: &Value, key: &str, default: u64) -> Result<u64> {
    match opts.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .ok_or_else(|| {
                SearchError::parsing(format!(
                    "[{kind}] [{key}] must be a non-negative integer, got [{v}]"
                ))
            }),
    }
}

pub(super) fn match_phrase_prefix(body: &Value) -> Result<MatchPhrasePrefixAst<'_>> {
    const KIND: &str = "match_phrase_prefix";
    let (field, text, opts) = prefix_text(
        KIND,
        body,
        &[
            "query",
            "slop",
            "max_expansions",
            "analyzer",
            "zero_terms_query",
        ],
    )?;
    let zero_terms = match opts.get("zero_terms_query").and_then(Value::as_str) {
        None => ZeroTerms::None,
        Some(z) if z.eq_ignore_ascii_case("none") => ZeroTerms::None,
        Some(z) if z.eq_ignore_ascii_case("all") => ZeroTerms::All,
        Some(z) => {
            return Err(SearchError::parsing(format!(
                "[{KIND}] unsupported zero_terms_query value [{z}]"
            )))
        }
    };
    Ok(MatchPhrasePrefixAst {
        field,
        text,
        slop: count(KIND, opts, "slop", 0)?,
        max_expansions: count(KIND, opts, "max_expansions", MAX_EXPANSIONS)?,
        zero_terms,
        boost: boost_of(opts)?,
    })
}

pub(super) fn match_bool_prefix(body: &Value) -> Result<MatchBoolPrefixAst<'_>> {
    const KIND: &str = "match_bool_prefix";
    let (field, text, opts) = prefix_text(
        KIND,
        body,
        &[
            "query",
            "operator",
            "minimum_should_match",
            "fuzziness",
            "prefix_length",
            "max_expansions",
            "fuzzy_transpositions",
            "fuzzy_rewrite",
            "analyzer",
        ],
    )?;
    let and = match opts.get("operator").and_then(Value::as_str) {
        None => false,
        Some(op) => is_and(KIND, op)?,
    };
    let fuzziness = opts
        .get("fuzziness")
        .map(|f| Fuzziness::parse(KIND, f))
        .transpose()?;
    let mut fuzzy = FuzzyOptions::default();
    fuzzy.read(KIND, opts, true)?;
    Ok(MatchBoolPrefixAst {
        field,
        text,
        and,
        minimum_should_match: MinimumShouldMatch::of(opts, "minimum_should_match")?,
        fuzziness,
        fuzzy,
        max_expansions: count(KIND, opts, "max_expansions", MAX_EXPANSIONS)?,
        boost: boost_of(opts)?,
    })
}
