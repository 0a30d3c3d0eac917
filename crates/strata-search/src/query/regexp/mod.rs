//! Multi-term queries on the term dictionary: the `regexp` query and
//! `query_string`'s `field:/expression/`, and the automata `wildcard` and
//! `prefix` run on. The expression (Lucene syntax, translated by `lucene`)
//! is compiled to a [`TermAutomaton`] under `max_determinized_states` and
//! run over the terms of the field, as Elasticsearch runs it over
//! Lucene's: it must match a whole term (a token of a `text` field, the
//! value of a `keyword`), never part of one. `rewrite` picks how matches
//! score ([`Rewrite`]).

mod automaton;
mod lucene;
mod rewrite;

use serde_json::Value;
use tantivy::query::{EmptyQuery, Query};
use tantivy::schema::Field;

use automaton::{TermAutomaton, DEFAULT_MAX_DETERMINIZED_STATES};
pub(crate) use lucene::escape;
use lucene::{translate, Flags};
use rewrite::{MultiTermQuery, Rewrite};

use super::term_level::{string_field, value_and_params};
use super::{boosted, single_field, QueryContext};
use crate::error::{Result, SearchError};
use crate::store::json_term;

/// How a multi-term query's automaton is built and scored.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MultiTermOptions {
    pub case_insensitive: bool,
    pub max_states: usize,
    pub rewrite: Rewrite,
}

impl Default for MultiTermOptions {
    fn default() -> Self {
        MultiTermOptions {
            case_insensitive: false,
            max_states: DEFAULT_MAX_DETERMINIZED_STATES,
            rewrite: Rewrite::default(),
        }
    }
}

impl MultiTermOptions {
    /// `case_insensitive`, `max_determinized_states` and `rewrite` of a
    /// `kind` query's parameters (each optional).
    pub fn parse(kind: &str, params: &Value) -> Result<MultiTermOptions> {
        let case_insensitive = match params.get("case_insensitive") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[{kind}] case_insensitive must be a boolean, got [{other}]"
                )))
            }
        };
        let max_states = match params.get("max_determinized_states") {
            None => DEFAULT_MAX_DETERMINIZED_STATES,
            Some(v) => v
                .as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                .filter(|&n| n > 0)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    SearchError::parsing(format!(
                        "[{kind}] max_determinized_states must be a positive integer, got [{v}]"
                    ))
                })?,
        };
        Ok(MultiTermOptions {
            case_insensitive,
            max_states,
            rewrite: Rewrite::parse(kind, params.get("rewrite"))?,
        })
    }
}

/// `{"regexp": {"field": "expr"}}` or
/// `{"regexp": {"field": {"value", "flags", "case_insensitive",
/// "max_determinized_states", "rewrite", ...}}}`.
pub fn regexp(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let (field, params) = single_field("regexp", body)?;
    let (value, params) = value_and_params(
        "regexp",
        params,
        &[
            "value",
            "flags",
            "flags_value",
            "case_insensitive",
            "max_determinized_states",
            "rewrite",
        ],
    )?;
    let pattern = value
        .as_str()
        .ok_or_else(|| SearchError::parsing("[regexp] value must be a string"))?;
    let flags = match params.get("flags") {
        None => Flags::ALL,
        Some(Value::String(s)) => Flags::parse(s)?,
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[regexp] flags must be a string, got [{other}]"
            )))
        }
    };
    let options = MultiTermOptions::parse("regexp", params)?;
    let Some(target) = string_field(ctx, "regexp", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let translated = translate(pattern, flags)?;
    let q = term_regex(target, field, &translated, options, "regexp")?;
    boosted(q, params)
}

/// `field:/expression/` in `query_string`, with all optional operators.
/// On a `text` field the expression is lower-cased first, as Lucene's
/// query parser normalizes it with the field's analyzer (whose terms are
/// lower case).
pub(crate) fn on_field(
    ctx: &QueryContext<'_>,
    field: &str,
    pattern: &str,
    options: MultiTermOptions,
) -> Result<Box<dyn Query>> {
    let Some(target) = string_field(ctx, "regexp", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let pattern = if target == ctx.fields.text {
        pattern.to_lowercase()
    } else {
        pattern.to_string()
    };
    let translated = translate(&pattern, Flags::ALL)?;
    term_regex(target, field, &translated, options, "query_string")
}

/// A query for the terms of `field` in the JSON column `target` whose
/// values match `value_pattern` (a `regex-syntax` pattern) whole. The term
/// dictionary key of a JSON field starts with the path and type: the
/// automaton matches those bytes first, then the value.
pub(crate) fn term_regex(
    target: Field,
    field: &str,
    value_pattern: &str,
    options: MultiTermOptions,
    kind: &str,
) -> Result<Box<dyn Query>> {
    let mut prefix = json_term(target, field);
    prefix.append_type_and_str("");
    let key_prefix = prefix.serialized_value_bytes();
    let automaton = TermAutomaton::new(
        key_prefix,
        value_pattern,
        options.case_insensitive,
        options.max_states,
        kind,
    )?;
    Ok(Box::new(MultiTermQuery::new(
        target,
        key_prefix,
        automaton,
        options.rewrite,
    )))
}
