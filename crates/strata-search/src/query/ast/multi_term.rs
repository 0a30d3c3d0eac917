//! The multi-term queries with a typed node: `prefix`, `wildcard`,
//! `regexp`, `fuzzy`, which match the terms of one field by a pattern or
//! an edit distance. Their options are the leaf types of
//! `query/term_options`; whether the field takes a pattern (a `keyword`
//! or `text` field) and the pattern's own syntax are checked when the
//! node is translated, so an unmapped field stays an empty match.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::query::params::{boost_of, single_field, value_and_params};
use crate::query::term_options::{Flags, Fuzziness, FuzzyOptions, MultiTermOptions};

/// `prefix` and `wildcard`: terms of `field` starting with (or matching
/// the `*`/`?` pattern) `value`.
#[derive(Debug)]
pub(crate) struct PatternAst<'a> {
    pub field: &'a str,
    pub value: &'a str,
    pub options: MultiTermOptions,
    pub boost: f64,
}

/// `regexp`: terms of `field` matching a Lucene expression whole.
#[derive(Debug)]
pub(crate) struct RegexpAst<'a> {
    pub field: &'a str,
    /// The expression as written (translated when the node is).
    pub pattern: &'a str,
    pub flags: Flags,
    pub options: MultiTermOptions,
    pub boost: f64,
}

/// `fuzzy`: terms of `field` within an edit distance of `value`.
#[derive(Debug)]
pub(crate) struct FuzzyAst<'a> {
    pub field: &'a str,
    /// The value as text (a number or boolean written as JSON).
    pub value: String,
    pub fuzziness: Fuzziness,
    pub options: FuzzyOptions,
    pub boost: f64,
}

/// The string `value` of a `prefix` or `wildcard` query and its params.
fn string_param<'a>(kind: &str, params: &'a Value) -> Result<(&'a str, &'a Value)> {
    let (value, params) =
        value_and_params(kind, params, &["value", "rewrite", "case_insensitive"])?;
    let s = value
        .as_str()
        .ok_or_else(|| SearchError::parsing(format!("[{kind}] value must be a string")))?;
    Ok((s, params))
}

/// A pattern node from its value and params.
fn pattern<'a>(
    kind: &str,
    field: &'a str,
    value: &'a str,
    params: &Value,
) -> Result<PatternAst<'a>> {
    Ok(PatternAst {
        field,
        value,
        options: MultiTermOptions::parse(kind, params)?,
        boost: boost_of(params)?,
    })
}

pub(super) fn prefix(body: &Value) -> Result<PatternAst<'_>> {
    let (field, params) = single_field("prefix", body)?;
    let (value, params) = string_param("prefix", params)?;
    pattern("prefix", field, value, params)
}

pub(super) fn wildcard(body: &Value) -> Result<PatternAst<'_>> {
    let (field, params) = single_field("wildcard", body)?;
    // `{"wildcard": "pattern"}` is Elasticsearch's other name for `value`.
    let (value, params) = match params.get("wildcard") {
        Some(Value::String(s)) => (s.as_str(), params),
        _ => string_param("wildcard", params)?,
    };
    pattern("wildcard", field, value, params)
}

pub(super) fn regexp(body: &Value) -> Result<RegexpAst<'_>> {
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
    Ok(RegexpAst {
        field,
        pattern,
        flags,
        options: MultiTermOptions::parse("regexp", params)?,
        boost: boost_of(params)?,
    })
}

pub(super) fn fuzzy(body: &Value) -> Result<FuzzyAst<'_>> {
    let (field, params) = single_field("fuzzy", body)?;
    let (value, params) = value_and_params(
        "fuzzy",
        params,
        &[
            "value",
            "fuzziness",
            "max_expansions",
            "prefix_length",
            "transpositions",
            "rewrite",
        ],
    )?;
    let value = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => {
            return Err(SearchError::parsing(format!(
                "[fuzzy] value must be a string, got [{other}]"
            )))
        }
    };
    let fuzziness = match params.get("fuzziness") {
        None => Fuzziness::AUTO,
        Some(v) => Fuzziness::parse("fuzzy", v)?,
    };
    let mut options = FuzzyOptions::default();
    options.read("fuzzy", params, false)?;
    Ok(FuzzyAst {
        field,
        value,
        fuzziness,
        options,
        boost: boost_of(params)?,
    })
}
