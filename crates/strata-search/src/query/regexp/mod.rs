//! Multi-term queries on the term dictionary: the `regexp` query and
//! `query_string`'s `field:/expression/`, and the automata `wildcard` and
//! `prefix` run on. The expression (Lucene syntax, translated by `lucene`)
//! is compiled to a [`TermAutomaton`] under `max_determinized_states` and
//! run over the terms of the field, as Elasticsearch runs it over
//! Lucene's: it must match a whole term (a token of a `text` field, the
//! value of a `keyword`), never part of one. `rewrite` picks how matches
//! score ([`Rewrite`]).

mod automaton;
mod fuzzy;
mod lucene;
mod rewrite;

use serde_json::Value;
use tantivy::query::{EmptyQuery, Query};
use tantivy::schema::Field;
use tantivy::Term;

use automaton::{TermAutomaton, DEFAULT_MAX_DETERMINIZED_STATES};
use fuzzy::FuzzyMatcher;
pub(crate) use lucene::escape;
use lucene::{translate, Flags};
use rewrite::MultiTermQuery;
pub(crate) use rewrite::Rewrite;

use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::query::context::QueryContext;
use crate::query::params::{boosted, single_field, value_and_params};
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

/// The JSON field a string query on `field` runs against, or `None` if unmapped.
pub(crate) fn string_field(
    ctx: &QueryContext<'_>,
    kind: &str,
    field: &str,
) -> Result<Option<tantivy::schema::Field>> {
    Ok(match ctx.leaf(field).map(|l| l.ty) {
        None => None,
        Some(FieldType::Text) => Some(ctx.fields.text),
        Some(FieldType::Keyword) => Some(ctx.fields.values),
        // Numbers, dates and addresses take no patterns, as in
        // Elasticsearch (for an `ip` field, a range or a CIDR block says
        // what `10.0.*` would).
        Some(other) => {
            return Err(SearchError::QueryShard(format!(
                "failed to create query: Can only use {kind} queries on keyword and text fields - not on [{field}] which is of type [{}]",
                other.name()
            )))
        }
    })
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
    let q = term_regex(ctx, target, field, &translated, options, "regexp")?;
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
    term_regex(ctx, target, field, &translated, options, "query_string")
}

/// A query for the terms of `field` in the JSON column `target` whose
/// values match `value_pattern` (a `regex-syntax` pattern) whole. The term
/// dictionary key of a JSON field starts with the path and type: the
/// automaton matches those bytes first, then the value.
pub(crate) fn term_regex(
    ctx: &QueryContext<'_>,
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
        ctx.memory,
    )?;
    Ok(Box::new(MultiTermQuery::new(
        target,
        key_prefix,
        automaton,
        options.rewrite,
    )))
}

/// `value~N` options (`query_string`'s `fuzzy_*` parameters), as Lucene's
/// `FuzzyQuery` takes them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FuzzyOptions {
    /// Leading characters that must match exactly.
    pub prefix_length: usize,
    /// Most terms a value expands to (the default rewrite's N).
    pub max_expansions: usize,
    /// A swap of two adjacent characters is one edit, not two.
    pub transpositions: bool,
    /// `None`: `top_terms_blended_freqs_{max_expansions}`, as Lucene.
    pub rewrite: Option<Rewrite>,
}

impl Default for FuzzyOptions {
    fn default() -> Self {
        FuzzyOptions {
            prefix_length: 0,
            max_expansions: 50,
            transpositions: true,
            rewrite: None,
        }
    }
}

impl FuzzyOptions {
    /// Sets the option named by a `kind` query's parameter (`fuzzy_*`);
    /// false if `key` is not one.
    pub fn set(&mut self, kind: &str, key: &str, value: &Value) -> Result<bool> {
        let bad = || {
            SearchError::parsing(format!(
                "[{kind}] [{key}] must be {}, got [{value}]",
                if key == "fuzzy_transpositions" {
                    "a boolean"
                } else {
                    "a non-negative integer"
                }
            ))
        };
        let count = || {
            value
                .as_u64()
                .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)
        };
        match key {
            "fuzzy_prefix_length" => self.prefix_length = count()?,
            "fuzzy_max_expansions" => {
                self.max_expansions = count()?;
                if self.max_expansions == 0 {
                    return Err(SearchError::illegal(format!(
                        "[{kind}] [fuzzy_max_expansions] must be greater than 0"
                    )));
                }
            }
            "fuzzy_transpositions" => self.transpositions = value.as_bool().ok_or_else(bad)?,
            "fuzzy_rewrite" => self.rewrite = Some(Rewrite::parse(kind, Some(value))?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Terms within `distance` edits of `term` (a string term of `field`),
/// ranked and scored by `options` (see [`FuzzyOptions`]). A term that is
/// not a string matches nothing.
pub(crate) fn fuzzy_term(
    term: &Term,
    field: &str,
    distance: u8,
    options: FuzzyOptions,
) -> Box<dyn Query> {
    let target = term.field();
    let mut prefix = json_term(target, field);
    prefix.append_type_and_str("");
    let path = prefix.serialized_value_bytes();
    let value = term
        .serialized_value_bytes()
        .strip_prefix(path)
        .and_then(|v| std::str::from_utf8(v).ok());
    let Some(value) = value else {
        return Box::new(EmptyQuery);
    };
    let matcher = FuzzyMatcher::new(
        path,
        value,
        distance,
        options.prefix_length,
        options.transpositions,
    );
    let rewrite = options
        .rewrite
        .unwrap_or(Rewrite::TopTermsBlendedFreqs(options.max_expansions));
    Box::new(MultiTermQuery::new(target, path, matcher, rewrite))
}
