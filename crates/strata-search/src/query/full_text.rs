//! `match`, `match_phrase` and `multi_match`: text fields are analyzed,
//! other fields take the query as one exact value.

use serde_json::{Map, Value};
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;

use super::context::QueryContext;
use super::params::{boosted, check_params, minimum_should_match, single_field};
use super::terms::{analyzed_terms, exact_term};
use crate::error::{Result, SearchError};
use crate::mapping::FieldType;

/// `{"field": "text"}` or `{"field": {"query": ..., params}}` as (query, params).
fn query_and_params<'a>(kind: &str, params: &'a Value) -> Result<(&'a Value, Map<String, Value>)> {
    match params {
        Value::Object(obj) => {
            let query = obj.get("query").ok_or_else(|| {
                SearchError::parsing(format!("No text specified for text query [{kind}]"))
            })?;
            Ok((query, obj.clone()))
        }
        other => Ok((other, Map::new())),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn match_query(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let (field, params) = single_field("match", body)?;
    let (query, opts) = query_and_params("match", params)?;
    check_params(
        "match",
        &opts,
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
    let lenient = opts
        .get("lenient")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let q = match_field(
        ctx,
        field,
        query,
        and,
        opts.get("minimum_should_match"),
        lenient,
    )?;
    boosted(q, params)
}

/// The `match` of `query` on one field.
pub(super) fn match_field(
    ctx: &QueryContext<'_>,
    field: &str,
    query: &Value,
    and: bool,
    msm: Option<&Value>,
    lenient: bool,
) -> Result<Box<dyn Query>> {
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty == FieldType::Ip {
        match super::ip_range::cidr_query(ctx.fields.values, field, query) {
            Some(Err(_)) if lenient => return Ok(Box::new(EmptyQuery)),
            Some(block) => return block,
            None => {}
        }
    }
    if leaf.ty != FieldType::Text {
        return match exact_term(ctx.fields, field, leaf, query) {
            Ok(Some(t)) => Ok(Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs))),
            Ok(None) => Ok(Box::new(EmptyQuery)),
            Err(_) if lenient => Ok(Box::new(EmptyQuery)),
            Err(e) => Err(e),
        };
    }
    let terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &text_of(query))?;
    if terms.len() == 1 {
        let t = terms
            .into_iter()
            .next()
            .ok_or_else(|| SearchError::illegal("no term"))?;
        return Ok(Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)));
    }
    if terms.is_empty() {
        return Ok(Box::new(EmptyQuery));
    }
    let n = terms.len();
    let occur = if and { Occur::Must } else { Occur::Should };
    let clauses: Vec<(Occur, Box<dyn Query>)> = terms
        .into_iter()
        .map(|t| {
            (
                occur,
                Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)) as Box<dyn Query>,
            )
        })
        .collect();
    let required = match (and, msm) {
        (false, Some(v)) => minimum_should_match(v, n)?.max(1),
        _ => 0,
    };
    Ok(Box::new(if required > 1 {
        BooleanQuery::with_minimum_required_clauses(clauses, required)
    } else {
        BooleanQuery::new(clauses)
    }))
}

pub fn match_phrase(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let (field, params) = single_field("match_phrase", body)?;
    let (query, opts) = query_and_params("match_phrase", params)?;
    check_params(
        "match_phrase",
        &opts,
        &["query", "slop", "analyzer", "zero_terms_query"],
    )?;
    let slop = opts.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32;
    boosted(phrase_field(ctx, field, query, slop)?, params)
}

pub(super) fn phrase_field(
    ctx: &QueryContext<'_>,
    field: &str,
    query: &Value,
    slop: u32,
) -> Result<Box<dyn Query>> {
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty != FieldType::Text {
        return match_field(ctx, field, query, false, None, false);
    }
    let terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &text_of(query))?;
    Ok(match terms.len() {
        0 => Box::new(EmptyQuery),
        1 => {
            let t = terms
                .into_iter()
                .next()
                .ok_or_else(|| SearchError::illegal("no term"))?;
            Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs))
        }
        _ => {
            let mut p = PhraseQuery::new(terms);
            p.set_slop(slop);
            Box::new(p)
        }
    })
}

/// Fields of `multi_match`/`query_string` (`name^boost`, `*` wildcards) as (path, boost).
pub(super) fn expand_fields(
    ctx: &QueryContext<'_>,
    fields: Option<&Value>,
) -> Result<Vec<(String, f32)>> {
    let patterns: Vec<String> = match fields {
        None => vec!["*".to_string()],
        Some(Value::Array(items)) => items.iter().map(text_of).collect(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(other) => return Err(SearchError::parsing(format!("[fields] malformed: {other}"))),
    };
    let mut out = Vec::new();
    for pattern in patterns {
        let (name, boost) = match pattern.split_once('^') {
            Some((n, b)) => (
                n.to_string(),
                b.parse::<f32>()
                    .map_err(|_| SearchError::parsing(format!("bad boost in [{pattern}]")))?,
            ),
            None => (pattern.clone(), 1.0),
        };
        if name.contains('*') {
            for (path, leaf) in ctx.mappings.leaf_paths() {
                let searchable = matches!(leaf.ty, FieldType::Text | FieldType::Keyword);
                if searchable && crate::catalog::wildcard_match(&name, path) {
                    out.push((path.clone(), boost));
                }
            }
        } else {
            out.push((name, boost));
        }
    }
    Ok(out)
}

pub fn multi_match(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
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
    let and = matches!(opts.get("operator").and_then(Value::as_str), Some(op) if op.eq_ignore_ascii_case("and"));
    let tie = opts
        .get("tie_breaker")
        .and_then(Value::as_f64)
        .unwrap_or(0.0) as f32;
    let slop = opts.get("slop").and_then(Value::as_u64).unwrap_or(0) as u32;
    let kind = opts
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("best_fields");
    let mut per_field = Vec::new();
    for (field, boost) in expand_fields(ctx, opts.get("fields"))? {
        let q = match kind {
            "best_fields" | "most_fields" => match_field(
                ctx,
                &field,
                query,
                and,
                opts.get("minimum_should_match"),
                true,
            )?,
            "phrase" => phrase_field(ctx, &field, query, slop)?,
            other => {
                return Err(SearchError::illegal(format!(
                    "[multi_match] type [{other}] is not supported"
                )))
            }
        };
        per_field.push(if boost == 1.0 {
            q
        } else {
            Box::new(BoostQuery::new(q, boost)) as Box<dyn Query>
        });
    }
    let q: Box<dyn Query> = if kind == "most_fields" {
        Box::new(BooleanQuery::new(
            per_field.into_iter().map(|q| (Occur::Should, q)).collect(),
        ))
    } else {
        Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, tie))
    };
    boosted(q, body)
}
