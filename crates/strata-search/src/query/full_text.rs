//! `match`, `match_phrase` and `multi_match`: text fields are analyzed,
//! other fields take the query as one exact value.

use serde_json::Value;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;

use super::ast::{text_of, MatchAst, MatchPhraseAst, MultiMatchAst, MultiMatchType};
use super::context::QueryContext;
use super::params::{with_boost, MinimumShouldMatch};
use super::terms::{analyzed_terms, exact_query};
use crate::error::{Result, SearchError};
use crate::mapping::FieldType;

pub fn match_query(ctx: &QueryContext<'_>, q: &MatchAst<'_>) -> Result<Box<dyn Query>> {
    let m = match_field(
        ctx,
        q.field,
        q.query,
        q.and,
        q.minimum_should_match.as_ref(),
        q.lenient,
    )?;
    Ok(with_boost(m, q.boost))
}

/// The `match` of `query` on one field.
pub(super) fn match_field(
    ctx: &QueryContext<'_>,
    field: &str,
    query: &Value,
    and: bool,
    msm: Option<&MinimumShouldMatch>,
    lenient: bool,
) -> Result<Box<dyn Query>> {
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty == FieldType::Ip {
        match super::ip_range::cidr_query(field, query) {
            Some(Err(_)) if lenient => return Ok(Box::new(EmptyQuery)),
            Some(block) => return block,
            None => {}
        }
    }
    if leaf.ty != FieldType::Text {
        let values = std::slice::from_ref(query);
        return match exact_query(
            ctx.fields,
            field,
            leaf,
            values,
            IndexRecordOption::WithFreqs,
        ) {
            Err(_) if lenient => Ok(Box::new(EmptyQuery)),
            result => result,
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
        (false, Some(m)) => m.resolve(n)?.max(1),
        _ => 0,
    };
    Ok(Box::new(if required > 1 {
        BooleanQuery::with_minimum_required_clauses(clauses, required)
    } else {
        BooleanQuery::new(clauses)
    }))
}

pub fn match_phrase(ctx: &QueryContext<'_>, q: &MatchPhraseAst<'_>) -> Result<Box<dyn Query>> {
    Ok(with_boost(
        phrase_field(ctx, q.field, q.query, q.slop)?,
        q.boost,
    ))
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
    patterns: &[String],
) -> Result<Vec<(String, f32)>> {
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

pub fn multi_match(ctx: &QueryContext<'_>, q: &MultiMatchAst<'_>) -> Result<Box<dyn Query>> {
    let mut per_field = Vec::new();
    for (field, boost) in expand_fields(ctx, &q.fields)? {
        let m = match q.kind {
            MultiMatchType::BestFields | MultiMatchType::MostFields => match_field(
                ctx,
                &field,
                q.query,
                q.and,
                q.minimum_should_match.as_ref(),
                true,
            )?,
            MultiMatchType::Phrase => phrase_field(ctx, &field, q.query, q.slop)?,
        };
        per_field.push(if boost == 1.0 {
            m
        } else {
            Box::new(BoostQuery::new(m, boost)) as Box<dyn Query>
        });
    }
    let m: Box<dyn Query> = if q.kind == MultiMatchType::MostFields {
        Box::new(BooleanQuery::new(
            per_field.into_iter().map(|q| (Occur::Should, q)).collect(),
        ))
    } else {
        Box::new(DisjunctionMaxQuery::with_tie_breaker(
            per_field,
            q.tie_breaker,
        ))
    };
    Ok(with_boost(m, q.boost))
}
