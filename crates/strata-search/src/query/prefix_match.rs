//! `match_phrase_prefix` and `match_bool_prefix`: the query text analyzed
//! as `match` does, its last term taken as a prefix. On a field that is not
//! `text` the whole value is one term, so both become a prefix query on it.
//!
//! - `match_phrase_prefix`: the terms as a phrase (with `slop`) whose last
//!   term is any of the first `max_expansions` terms starting with it.
//! - `match_bool_prefix`: a `bool` of the terms (`operator`,
//!   `minimum_should_match`; `fuzziness` makes each but the last fuzzy)
//!   with the last as a prefix query.

use serde_json::{Map, Value};
use tantivy::query::{
    AllQuery, BooleanQuery, EmptyQuery, Occur, PhrasePrefixQuery, Query, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::context::QueryContext;
use super::params::{boosted, check_params, minimum_should_match, single_field};
use super::regexp::fuzzy_term;
use super::term_level::prefix_on;
use super::term_options::{Fuzziness, FuzzyOptions, MultiTermOptions, Rewrite};
use super::terms::analyzed_terms;
use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::store::json_term;

/// Elasticsearch's default `max_expansions` of the last term.
const MAX_EXPANSIONS: u64 = 50;

fn query_and_params(kind: &str, params: &Value) -> Result<(String, Map<String, Value>)> {
    let (query, opts) = match params {
        Value::Object(obj) => (
            obj.get("query").ok_or_else(|| {
                SearchError::parsing(format!("No text specified for text query [{kind}]"))
            })?,
            obj.clone(),
        ),
        other => (other, Map::new()),
    };
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
    Ok((text, opts))
}

fn check_analyzer(kind: &str, opts: &Map<String, Value>) -> Result<()> {
    match opts.get("analyzer").and_then(Value::as_str) {
        None | Some("standard") | Some("default") => Ok(()),
        Some(a) => Err(SearchError::illegal(format!(
            "[{kind}] analyzer [{a}] is not supported"
        ))),
    }
}

/// `zero_terms_query`: what a query whose text analyzes to nothing matches.
fn zero_terms(kind: &str, opts: &Map<String, Value>) -> Result<Box<dyn Query>> {
    match opts.get("zero_terms_query").and_then(Value::as_str) {
        None => Ok(Box::new(EmptyQuery)),
        Some(z) if z.eq_ignore_ascii_case("none") => Ok(Box::new(EmptyQuery)),
        Some(z) if z.eq_ignore_ascii_case("all") => Ok(Box::new(AllQuery)),
        Some(z) => Err(SearchError::parsing(format!(
            "[{kind}] unsupported zero_terms_query value [{z}]"
        ))),
    }
}

fn count(kind: &str, opts: &Map<String, Value>, key: &str, default: u64) -> Result<u64> {
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
    limit: usize,
) -> Result<Box<dyn Query>> {
    let options = MultiTermOptions {
        rewrite: Rewrite::TopTerms(limit.max(1)),
        ..MultiTermOptions::default()
    };
    prefix_on(ctx, field, prefix, options)
}

/// `{"match_phrase_prefix": {"field": {"query", "slop", "max_expansions",
/// "analyzer", "zero_terms_query"}}}`.
pub fn match_phrase_prefix(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    const KIND: &str = "match_phrase_prefix";
    let (field, params) = single_field(KIND, body)?;
    let (text, opts) = query_and_params(KIND, params)?;
    check_params(
        KIND,
        &opts,
        &[
            "query",
            "slop",
            "max_expansions",
            "analyzer",
            "zero_terms_query",
        ],
    )?;
    check_analyzer(KIND, &opts)?;
    let slop = count(KIND, &opts, "slop", 0)?;
    let expansions = count(KIND, &opts, "max_expansions", MAX_EXPANSIONS)?;
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty != FieldType::Text {
        return boosted(
            prefix_terms(ctx, field, &text, expansions as usize)?,
            params,
        );
    }
    let mut terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &text)?;
    let q: Box<dyn Query> = match terms.len() {
        0 => zero_terms(KIND, &opts)?,
        1 => {
            let last = terms.remove(0);
            prefix_terms(
                ctx,
                field,
                &term_text(ctx, field, &last),
                expansions as usize,
            )?
        }
        _ => {
            let mut p = PhrasePrefixQuery::new(terms);
            p.set_max_expansions(u32::try_from(expansions).unwrap_or(u32::MAX));
            if slop > 0 {
                return Err(SearchError::illegal(format!(
                    "[{KIND}] slop is not supported on phrases of more than one term"
                )));
            }
            Box::new(p)
        }
    };
    boosted(q, params)
}

/// `{"match_bool_prefix": {"field": {"query", "operator",
/// "minimum_should_match", "fuzziness", "prefix_length", "max_expansions",
/// "fuzzy_transpositions", "fuzzy_rewrite", "analyzer"}}}`.
pub fn match_bool_prefix(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    const KIND: &str = "match_bool_prefix";
    let (field, params) = single_field(KIND, body)?;
    let (text, opts) = query_and_params(KIND, params)?;
    check_params(
        KIND,
        &opts,
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
    check_analyzer(KIND, &opts)?;
    let and = match opts.get("operator").and_then(Value::as_str) {
        None => false,
        Some(op) if op.eq_ignore_ascii_case("or") => false,
        Some(op) if op.eq_ignore_ascii_case("and") => true,
        Some(op) => {
            return Err(SearchError::parsing(format!(
                "[{KIND}] unknown operator [{op}]"
            )))
        }
    };
    let fuzziness = opts
        .get("fuzziness")
        .map(|f| Fuzziness::parse(KIND, f))
        .transpose()?;
    let mut fuzzy = FuzzyOptions::default();
    fuzzy.read(KIND, params, true)?;
    let expansions = count(KIND, &opts, "max_expansions", MAX_EXPANSIONS)? as usize;
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty != FieldType::Text {
        return boosted(prefix_terms(ctx, field, &text, expansions)?, params);
    }
    let mut terms = analyzed_terms(ctx.fields, ctx.tokenizers, field, &text)?;
    let Some(last) = terms.pop() else {
        return Ok(Box::new(EmptyQuery));
    };
    let occur = if and { Occur::Must } else { Occur::Should };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len() + 1);
    for t in terms {
        let q: Box<dyn Query> = match fuzziness {
            Some(f) => fuzzy_term(&t, field, f.edits(&term_text(ctx, field, &t)), fuzzy),
            None => Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)),
        };
        clauses.push((occur, q));
    }
    clauses.push((
        occur,
        prefix_terms(ctx, field, &term_text(ctx, field, &last), expansions)?,
    ));
    let n = clauses.len();
    let required = match (and, opts.get("minimum_should_match")) {
        (false, Some(v)) => minimum_should_match(v, n)?.max(1),
        _ => 0,
    };
    let q = if required > 1 {
        BooleanQuery::with_minimum_required_clauses(clauses, required)
    } else {
        BooleanQuery::new(clauses)
    };
    boosted(Box::new(q), params)
}
