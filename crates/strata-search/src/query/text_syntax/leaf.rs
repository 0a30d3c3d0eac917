//! One leaf clause of a parsed text query on one concrete field, built
//! with the DSL's own query builders so each value type is handled the
//! way `match`, `match_phrase`, `wildcard`, `prefix`, `regexp`, `range`
//! and `exists` handle it.

use serde_json::{json, Value};
use tantivy::query::{EmptyQuery, Occur, Query};

use super::tree::{bool_query, LeafValue, Options};
use crate::error::Result;
use crate::mapping::FieldType;
use crate::query::ast::{ExistsAst, RangeAst, RangeBound};
use crate::query::context::QueryContext;
use crate::query::full_text::{match_field, phrase_field};
use crate::query::terms::{analyzed_terms, exact_term};
use crate::query::{regexp, term_level};
use crate::search::time_zone::TimeZone;

/// `exists` on `field`.
pub(super) fn exists(ctx: &QueryContext<'_>, field: &str) -> Result<Box<dyn Query>> {
    term_level::exists(ctx, &ExistsAst { field, boost: 1.0 })
}

/// The query of `value` on `field`.
pub(super) fn on_field(
    ctx: &QueryContext<'_>,
    field: &str,
    value: &LeafValue,
    opts: &Options,
) -> Result<Box<dyn Query>> {
    let ty = ctx.leaf(field).map(|l| l.ty);
    match value {
        LeafValue::Word { text, .. } if text == "*" => exists(ctx, field),
        LeafValue::Word {
            text,
            wildcard: true,
        } => wildcard(ctx, field, ty, text, opts),
        LeafValue::Word { text, .. } => {
            match_field(ctx, field, &json!(text), opts.default_and, None, false)
        }
        LeafValue::Phrase { text, slop } => {
            phrase_field(ctx, field, &json!(text), slop.unwrap_or(opts.phrase_slop))
        }
        LeafValue::Fuzzy { text, distance } => fuzzy(ctx, field, ty, text, *distance, opts),
        LeafValue::Regex(pattern) => regexp::on_field(ctx, field, pattern, opts.multi_term),
        LeafValue::Prefix(text) => {
            let text = if ty == Some(FieldType::Text) {
                text.to_lowercase()
            } else {
                text.clone()
            };
            term_level::prefix_on(ctx, field, &text, opts.multi_term)
        }
        LeafValue::Range {
            low,
            high,
            low_inclusive,
            high_inclusive,
        } => {
            let (low, high) = (
                low.clone().map(Value::String),
                high.clone().map(Value::String),
            );
            fn bound(value: &Option<Value>, inclusive: bool) -> Option<RangeBound<'_>> {
                value.as_ref().map(|value| RangeBound { value, inclusive })
            }
            let time_zone = match &opts.time_zone {
                Some(tz) if ty == Some(FieldType::Date) => TimeZone::parse(tz)?,
                _ => TimeZone::UTC,
            };
            let range = RangeAst {
                field,
                lower: bound(&low, *low_inclusive),
                upper: bound(&high, *high_inclusive),
                format: None,
                time_zone,
                boost: 1.0,
            };
            term_level::range(ctx, &range)
        }
    }
}

/// A wildcard term. Text fields hold lower-cased tokens, so the pattern is
/// lower-cased there; with `analyze_wildcard`, a pattern the analyzer
/// would split (`foo-ba*`) becomes all of its parts.
fn wildcard(
    ctx: &QueryContext<'_>,
    field: &str,
    ty: Option<FieldType>,
    text: &str,
    opts: &Options,
) -> Result<Box<dyn Query>> {
    if !opts.leading_wildcard && text.starts_with(['*', '?']) {
        return Err(crate::error::SearchError::QueryShard(format!(
            "Failed to parse query [{text}]: '*' or '?' not allowed as first character in WildcardQuery"
        )));
    }
    if ty != Some(FieldType::Text) {
        return term_level::wildcard_on(ctx, field, text, opts.multi_term);
    }
    let lowered = text.to_lowercase();
    let parts: Vec<&str> = if opts.analyze_wildcard {
        lowered
            .split(|c: char| !(c.is_alphanumeric() || c == '*' || c == '?'))
            .filter(|p| !p.is_empty())
            .collect()
    } else {
        vec![lowered.as_str()]
    };
    let mut clauses = Vec::with_capacity(parts.len());
    for part in parts {
        let q = if part.contains(['*', '?']) {
            term_level::wildcard_on(ctx, field, part, opts.multi_term)?
        } else {
            match_field(ctx, field, &json!(part), true, None, false)?
        };
        clauses.push((Occur::Must, q));
    }
    Ok(match clauses.len() {
        0 => Box::new(EmptyQuery),
        1 => clauses.remove(0).1,
        _ => bool_query(clauses, 0),
    })
}

/// Terms within `distance` edits (at most 2) of the value's terms.
fn fuzzy(
    ctx: &QueryContext<'_>,
    field: &str,
    ty: Option<FieldType>,
    text: &str,
    distance: u8,
    opts: &Options,
) -> Result<Box<dyn Query>> {
    let distance = distance.min(2);
    let fuzzy = |t: tantivy::Term| regexp::fuzzy_term(&t, field, distance, opts.fuzzy);
    match (ty, ctx.leaf(field)) {
        (Some(FieldType::Text), _) => {
            let terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, text)?;
            let occur = if opts.default_and {
                Occur::Must
            } else {
                Occur::Should
            };
            let mut clauses: Vec<_> = terms.into_iter().map(|t| (occur, fuzzy(t))).collect();
            Ok(match clauses.len() {
                0 => Box::new(EmptyQuery),
                1 => clauses.remove(0).1,
                _ => bool_query(clauses, 0),
            })
        }
        (Some(FieldType::Keyword), Some(leaf)) => {
            Ok(match exact_term(ctx.fields, field, leaf, &json!(text))? {
                Some(t) => fuzzy(t),
                None => Box::new(EmptyQuery),
            })
        }
        _ => match_field(ctx, field, &json!(text), opts.default_and, None, false),
    }
}
