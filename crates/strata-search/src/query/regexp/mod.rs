//! Regular expressions on the term dictionary: the `regexp` query and
//! `query_string`'s `field:/expression/`. The expression (Lucene syntax,
//! translated by `lucene`) is run by tantivy's `RegexQuery` over the
//! terms of the field, as Elasticsearch runs it over Lucene's: it must
//! match a whole term (a token of a `text` field, the value of a
//! `keyword`), never part of one.

mod lucene;

use serde_json::Value;
use tantivy::query::{ConstScoreQuery, EmptyQuery, Query, RegexQuery};
use tantivy::schema::Field;

pub(crate) use lucene::escape;
use lucene::{translate, Flags};

use super::term_level::{string_field, value_and_params};
use super::{boosted, single_field, QueryContext};
use crate::error::{Result, SearchError};
use crate::store::json_term;

/// `{"regexp": {"field": "expr"}}` or
/// `{"regexp": {"field": {"value", "flags", "case_insensitive", ...}}}`.
/// `max_determinized_states` and `rewrite` are accepted and have no effect
/// (tantivy's automaton has no state limit to set; there is one rewrite).
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
    let case_insensitive = match params.get("case_insensitive") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[regexp] case_insensitive must be a boolean, got [{other}]"
            )))
        }
    };
    let Some(target) = string_field(ctx, "regexp", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let translated = translate(pattern, flags)?;
    let q = term_regex(target, field, &translated, case_insensitive, "regexp")?;
    boosted(Box::new(ConstScoreQuery::new(q, 1.0)), params)
}

/// `field:/expression/` in `query_string`, with all optional operators.
/// On a `text` field the expression is lower-cased first, as Lucene's
/// query parser normalizes it with the field's analyzer (whose terms are
/// lower case).
pub(crate) fn on_field(
    ctx: &QueryContext<'_>,
    field: &str,
    pattern: &str,
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
    let q = term_regex(target, field, &translated, false, "query_string")?;
    Ok(Box::new(ConstScoreQuery::new(q, 1.0)))
}

/// A `RegexQuery` over the terms of `field` in the JSON column `target`
/// whose values match `value_pattern` (a `regex-syntax` pattern). The term
/// dictionary key of a JSON field starts with the path and type: the
/// automaton is anchored there and matches the value after it.
pub(crate) fn term_regex(
    target: Field,
    field: &str,
    value_pattern: &str,
    case_insensitive: bool,
    kind: &str,
) -> Result<Box<dyn Query>> {
    let mut prefix = json_term(target, field);
    prefix.append_type_and_str("");
    let mut pattern = String::new();
    for b in prefix.serialized_value_bytes() {
        if b.is_ascii_alphanumeric() {
            pattern.push(*b as char);
        } else {
            pattern.push_str(&format!("\\x{b:02x}"));
        }
    }
    let flags = if case_insensitive { "si" } else { "s" };
    pattern.push_str(&format!("(?{flags}:{value_pattern})"));
    let q = RegexQuery::from_pattern(&pattern, target)
        .map_err(|e| SearchError::parsing(format!("[{kind}] invalid pattern: {e}")))?;
    Ok(Box::new(q))
}
