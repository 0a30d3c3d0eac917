//! `match_phrase_prefix` and `match_bool_prefix`: the query text analyzed
//! as `match` does, its last term taken as a prefix. On a field that is not
//! `text` the whole value is one term, so both become a prefix query on it.
//!
//! - `match_phrase_prefix`: the terms as a phrase (with `slop`) whose last
//!   term is any of the first `max_expansions` terms starting with it.
//! - `match_bool_prefix`: a `bool` of the terms (`operator`,
//!   `minimum_should_match`; `fuzziness` makes each but the last fuzzy)
//!   with the last as a prefix query.

use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhrasePrefixQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::ast::{MatchBoolPrefixAst, MatchPhrasePrefixAst, ZeroTerms};
use super::context::QueryContext;
use super::params::with_boost;
use super::regexp::fuzzy_term;
use super::term_level::prefix_on;
use super::term_options::{MultiTermOptions, Rewrite};
use super::terms::analyzed_terms;
use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::store::json_term;

/// The value text of a term of the text field at `field`.
fn term_text(ctx: &QueryContext<'_>, field: &str, term: &Term) -> String {
    let mut path = json_term(ctx.fields.text, field);
    path.append_type_and_str("");
    term.serialized_value_bytes()
        .strip_prefix(path.serialized_value_bytes())
        .map(|v| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default()
}

/// Terms of `field` starting with `prefix`, the `limit` most frequent.
fn prefix_terms(
    ctx: &QueryContext<'_>,
    field: &str,
    prefix: &str,
    limit: u64,
) -> Result<Box<dyn Query>> {
    let options = MultiTermOptions {
        rewrite: Rewrite::TopTerms(usize::try_from(limit).unwrap_or(usize::MAX).max(1)),
        ..MultiTermOptions::default()
    };
    prefix_on(ctx, field, prefix, options)
}

/// Translates a `match_phrase_prefix` node.
pub fn match_phrase_prefix(
    ctx: &QueryContext<'_>,
    q: &MatchPhrasePrefixAst<'_>,
) -> Result<Box<dyn Query>> {
    let field = q.field;
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty != FieldType::Text {
        let query = prefix_terms(ctx, field, &q.text, q.max_expansions)?;
        return Ok(with_boost(query, q.boost));
    }
    let mut terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &q.text)?;
    let query: Box<dyn Query> = match terms.len() {
        0 => match q.zero_terms {
            ZeroTerms::None => Box::new(EmptyQuery),
            ZeroTerms::All => Box::new(AllQuery),
        },
        1 => {
            let last = terms.remove(0);
            prefix_terms(ctx, field, &term_text(ctx, field, &last), q.max_expansions)?
        }
        _ => {
            let mut p = PhrasePrefixQuery::new(terms);
            p.set_max_expansions(u32::try_from(q.max_expansions).unwrap_or(u32::MAX));
            if q.slop > 0 {
                return Err(SearchError::illegal(
                    "[match_phrase_prefix] slop is not supported on phrases of more than one term",
                ));
            }
            Box::new(p)
        }
    };
    Ok(with_boost(query, q.boost))
}

/// Translates a `match_bool_prefix` node.
pub fn match_bool_prefix(
    ctx: &QueryContext<'_>,
    q: &MatchBoolPrefixAst<'_>,
) -> Result<Box<dyn Query>> {
    let field = q.field;
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty != FieldType::Text {
        let query = prefix_terms(ctx, field, &q.text, q.max_expansions)?;
        return Ok(with_boost(query, q.boost));
    }
    let mut terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &q.text)?;
    let Some(last) = terms.pop() else {
        return Ok(Box::new(EmptyQuery));
    };
    let occur = if q.and { Occur::Must } else { Occur::Should };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() + 1);
    for t in terms {
        let clause: Box<dyn Query> = match q.fuzziness {
            Some(f) => fuzzy_term(&t, field, f.edits(&term_text(ctx, field, &t)), q.fuzzy),
            None => Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)),
        };
        clauses.push((occur, clause));
    }
    let last = term_text(ctx, field, &last);
    clauses.push((occur, prefix_terms(ctx, field, &last, q.max_expansions)?));
    let n = clauses.len();
    let required = match (q.and, &q.minimum_should_match) {
        (false, Some(m)) => m.resolve(n)?.max(1),
        _ => 0,
    };
    let query = if required > 1 {
        BooleanQuery::with_minimum_required_clauses(clauses, required)
    } else {
        BooleanQuery::new(clauses)
    };
    Ok(with_boost(Box::new(query), q.boost))
}
