//! The query DSL: Elasticsearch query JSON parsed once into a typed tree
//! (`ast`), then translated into tantivy queries over the shard schema,
//! using the index mapping to pick the field and value type. Unknown
//! queries and parameters are `parsing_exception`s, found by the parse.
//!
//! - `column_set`: exact numbers and dates, found in their columns;
//!   `filter_cache`: the matches of such a filter repeated on a large segment.
//! - `date_range`: `range` on dates, skipping by `zone_map` (per-block
//!   smallest and largest value of a segment's date column).
//! - `segment_cache`: what is derived from a segment's column (zone maps,
//!   term fingerprints, filter matches), kept across searches within a
//!   byte budget.
//! - `date_math`: `now-1d/d`, `2024-01-01||+1M` in a time zone.
//! - `compound`: `bool`, `constant_score`, `match_all`, `match_none`.
//! - `full_text`: `match`, `match_phrase`, `multi_match`.
//! - `term_level`: `term`, `terms`, `range`, `exists`, `prefix`, `wildcard`, `ids`.
//! - `regexp`: `regexp` and `query_string`'s `/.../`, Lucene's regular
//!   expressions run on the term dictionary; `term_options`: the parsed
//!   options (`rewrite`, flags, fuzziness) of the multi-term queries.
//! - `geo`: `geo_bounding_box` and `geo_distance` over geo_point columns;
//!   `geo_shape`: the box and distance they match points against.
//! - `random_sample`: the `random_sampler` aggregation's sample of
//!   documents by `_id` (not a query of the DSL); `doc_set`: the
//!   `sampler` aggregations' fixed documents per segment (neither).
//! - `nested`: the `nested` query and the document levels (root or one
//!   nested object's documents) every search is narrowed to.
//! - `fuzzy`, `dis_max`, `prefix_match` (`match_phrase_prefix`,
//!   `match_bool_prefix`).
//! - `query_string`: the Lucene syntax (Kibana, `q=`).
//! - `simple_query_string`: the forgiving syntax, which never fails on text.
//! - `text_syntax`: the tree `query_string` parses into, over resolved fields;
//!   `text_params`: the field lists and flags of the query-text queries.
//! - `terms`: values to tantivy terms.
//! - `context`, `params`, `filter`: the leaves every translator uses (the
//!   [`QueryContext`], parameter parsing, filter scorers). A compound
//!   query recurses through the `ast::Translate` the dispatcher here passes it,
//!   so no translator imports this module.

pub(crate) mod ast;
pub(crate) mod column_cache;
mod column_set;
mod compound;
pub(crate) mod context;
pub mod date_math;
mod date_range;
mod dis_max;
pub(crate) mod doc_set;
mod filter;
mod filter_cache;
mod full_text;
mod fuzzy;
mod geo;
mod geo_shape;
pub(crate) mod ip_range;
pub mod nested;
pub(crate) mod params;
mod prefix_match;
pub mod query_string;
pub(crate) mod random_sample;
mod regexp;
pub(crate) mod segment_cache;
pub mod simple_query_string;
mod term_level;
mod term_options;
pub mod terms;
mod text_params;
mod text_syntax;
pub(crate) mod zone_map;

pub use ast::ParsedQuery;
pub(crate) use context::QueryContext;
pub use context::MAX_NESTED_DEPTH;
pub(crate) use geo_shape::BoundingBox;

use serde_json::Value;
use tantivy::query::Query;

use crate::error::Result;
use ast::QueryAst;

/// Translates a parsed query.
pub(crate) fn build(ctx: &QueryContext<'_>, query: &ParsedQuery) -> Result<Box<dyn Query>> {
    translate(ctx, query.ast(), 1)
}

/// Parses and translates a query object (`{"match": {...}}`) that is
/// still JSON: an alias's filter when it is checked.
pub(crate) fn build_json(ctx: &QueryContext<'_>, query: &Value) -> Result<Box<dyn Query>> {
    build_nested(ctx, query, 1)
}

/// Parses and translates a query object found at nesting level `depth`
/// (1 at the top), refusing one deeper than [`MAX_NESTED_DEPTH`].
pub(crate) fn build_nested(
    ctx: &QueryContext<'_>,
    query: &Value,
    depth: usize,
) -> Result<Box<dyn Query>> {
    translate(ctx, &ast::parse(query, depth)?, depth)
}

/// Translates the parsed query `query` found at nesting level `depth`.
fn translate(ctx: &QueryContext<'_>, query: &QueryAst<'_>, depth: usize) -> Result<Box<dyn Query>> {
    if let Some(q) = crate::script::runtime_query::build(ctx, query)? {
        return Ok(q);
    }
    match query {
        QueryAst::Parsed(q) => translate(ctx, q.ast(), depth),
        QueryAst::MatchAll { boost } => Ok(compound::match_all(*boost)),
        QueryAst::MatchNone => Ok(compound::match_none()),
        QueryAst::Bool(q) => compound::boolean(ctx, q, depth, translate),
        QueryAst::ConstantScore(q) => compound::constant_score(ctx, q, depth, translate),
        QueryAst::DisMax(q) => dis_max::dis_max(ctx, q, depth, translate),
        QueryAst::Nested(q) => nested::nested(ctx, q, depth, translate),
        QueryAst::Match(q) => full_text::match_query(ctx, q),
        QueryAst::MatchPhrase(q) => full_text::match_phrase(ctx, q),
        QueryAst::MultiMatch(q) => full_text::multi_match(ctx, q),
        QueryAst::Term(q) => term_level::term(ctx, q),
        QueryAst::Terms(q) => term_level::terms(ctx, q),
        QueryAst::Ids(q) => term_level::ids(ctx, q),
        QueryAst::Exists(q) => term_level::exists(ctx, q),
        QueryAst::Range(q) => term_level::range(ctx, q),
        QueryAst::MatchPhrasePrefix(q) => prefix_match::match_phrase_prefix(ctx, q),
        QueryAst::MatchBoolPrefix(q) => prefix_match::match_bool_prefix(ctx, q),
        QueryAst::GeoBoundingBox(q) => geo::geo_bounding_box(ctx, q),
        QueryAst::GeoDistance(q) => geo::geo_distance(ctx, q),
        QueryAst::QueryString(q) => query_string::build(ctx, q),
        QueryAst::SimpleQueryString(q) => simple_query_string::build(ctx, q),
        QueryAst::Prefix(q) => term_level::prefix(ctx, q),
        QueryAst::Wildcard(q) => term_level::wildcard(ctx, q),
        QueryAst::Regexp(q) => regexp::regexp(ctx, q),
        QueryAst::Fuzzy(q) => fuzzy::fuzzy(ctx, q),
        QueryAst::Script(q) => crate::script::score::script_query(ctx, q),
        QueryAst::ScriptScore(q) => crate::script::score::script_score(ctx, q, depth, translate),
        QueryAst::FunctionScore(q) => {
            crate::script::score::function_score(ctx, q, depth, translate)
        }
        QueryAst::RandomSample(q) => Ok(random_sample::build(ctx, q)),
        QueryAst::DocSet(q) => Ok(doc_set::build(q)),
    }
}
