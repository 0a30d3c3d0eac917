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

use tantivy::query::{EmptyQuery, Query};
use tantivy::schema::Field;
use tantivy::Term;

use automaton::TermAutomaton;
use fuzzy::FuzzyMatcher;
pub(crate) use lucene::escape;
use lucene::translate;
use rewrite::MultiTermQuery;

use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::query::ast::RegexpAst;
use crate::query::context::QueryContext;
use crate::query::params::with_boost;
use crate::query::term_options::{Flags, FuzzyOptions, MultiTermOptions, Rewrite};
use crate::store::json_term;

/// The JSON field a string query on `field` runs against, or `None` if unmapped.
pub(crate) fn string_field(
    ctx: &QueryContext<'_>,
    kind: &str,
    field: &str,
) -> Result<Option<tantivy::schema::Field>> {
    Ok(match ctx.leaf(field).map(|l| l.ty) {
        None => None,
        Some(FieldType::Text) => Some(ctx.fields.text),
        Some(FieldType::Keyword) => Some(ctx.fields.terms),
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

/// Translates a `regexp` node: an unmapped field matches nothing; the
/// expression is translated (and refused if malformed) only for a field
/// that takes patterns.
pub fn regexp(ctx: &QueryContext<'_>, q: &RegexpAst<'_>) -> Result<Box<dyn Query>> {
    let Some(target) = string_field(ctx, "regexp", q.field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let translated = translate(q.pattern, q.flags)?;
    let query = term_regex(ctx, target, q.field, &translated, q.options, "regexp")?;
    Ok(with_boost(query, q.boost))
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
