//! The query DSL: Elasticsearch query JSON translated into tantivy queries
//! over the shard schema, using the index mapping to pick the field and
//! value type. Unknown queries and parameters are `parsing_exception`s.
//!
//! - `date_range`: `range` on dates, skipping by `zone_map` (per-block
//!   smallest and largest value of a segment's date column).
//! - `segment_cache`: what is derived from a segment's column (zone maps,
//!   term coupons), kept across searches within a byte budget.
//! - `date_math`: `now-1d/d`, `2024-01-01||+1M` in a time zone.
//! - `compound`: `bool`, `constant_score`, `match_all`, `match_none`.
//! - `full_text`: `match`, `match_phrase`, `multi_match`.
//! - `term_level`: `term`, `terms`, `range`, `exists`, `prefix`, `wildcard`, `ids`.
//! - `regexp`: `regexp` and `query_string`'s `/.../`, Lucene's regular
//!   expressions run on the term dictionary.
//! - `geo`: `geo_bounding_box` over geo_point columns; `geo_distance`.
//! - `nested`: the `nested` query and the document levels (root or one
//!   nested object's documents) every search is narrowed to.
//! - `fuzzy`, `dis_max`, `prefix_match` (`match_phrase_prefix`,
//!   `match_bool_prefix`).
//! - `query_string`: the Lucene syntax (Kibana, `q=`).
//! - `simple_query_string`: the forgiving syntax, which never fails on text.
//! - `text_syntax`: the tree `query_string` parses into, over resolved fields.
//! - `terms`: values to tantivy terms.
//! - `context`, `params`, `filter`: the leaves every translator uses (the
//!   [`QueryContext`], parameter parsing, filter scorers). A compound
//!   query recurses through the [`Build`] the dispatcher here passes it,
//!   so no translator imports this module.

pub(crate) mod column_cache;
mod compound;
pub(crate) mod context;
pub mod date_math;
mod date_range;
mod dis_max;
mod filter;
mod full_text;
mod fuzzy;
mod geo;
mod geo_distance;
pub(crate) mod ip_range;
pub mod nested;
pub(crate) mod params;
mod prefix_match;
pub mod query_string;
mod regexp;
pub(crate) mod segment_cache;
pub mod simple_query_string;
mod term_level;
pub mod terms;
mod text_syntax;
pub(crate) mod zone_map;

pub use context::{QueryContext, MAX_NESTED_DEPTH};

use serde_json::Value;
use tantivy::query::Query;

use crate::error::{Result, SearchError};

/// Translates a query object (`{"match": {...}}`).
pub fn build(ctx: &QueryContext<'_>, query: &Value) -> Result<Box<dyn Query>> {
    build_nested(ctx, query, 1)
}

/// Translates a query object found at nesting level `depth` (1 at the
/// top), refusing one deeper than [`MAX_NESTED_DEPTH`].
pub(crate) fn build_nested(
    ctx: &QueryContext<'_>,
    query: &Value,
    depth: usize,
) -> Result<Box<dyn Query>> {
    if depth > MAX_NESTED_DEPTH {
        return Err(SearchError::illegal(
            "The nested depth of the query exceeds the maximum nested depth for queries set in \
             [indices.query.bool.max_nested_depth]",
        ));
    }
    let obj = query
        .as_object()
        .ok_or_else(|| SearchError::parsing("query malformed, must start with start_object"))?;
    let mut entries = obj.iter();
    let (kind, body) = match (entries.next(), entries.next()) {
        (Some(entry), None) => entry,
        (None, _) => return Err(SearchError::parsing("query malformed, empty clause found")),
        (Some(_), Some((second, _))) => {
            return Err(SearchError::parsing(format!(
                "[{}] malformed query, expected [END_OBJECT] but found [FIELD_NAME] ({second})",
                obj.keys().next().map_or("", String::as_str)
            )))
        }
    };
    if let Some(q) = crate::script::runtime_query::build(ctx, kind, body)? {
        return Ok(q);
    }
    match kind.as_str() {
        "match_all" => compound::match_all(body),
        "match_none" => compound::match_none(body),
        "bool" => compound::boolean(ctx, body, depth, build_nested),
        "constant_score" => compound::constant_score(ctx, body, depth, build_nested),
        "match" => full_text::match_query(ctx, body),
        "match_phrase" => full_text::match_phrase(ctx, body),
        "multi_match" => full_text::multi_match(ctx, body),
        "term" => term_level::term(ctx, body),
        "terms" => term_level::terms(ctx, body),
        "range" => term_level::range(ctx, body),
        "exists" => term_level::exists(ctx, body),
        "prefix" => term_level::prefix(ctx, body),
        "wildcard" => term_level::wildcard(ctx, body),
        "regexp" => regexp::regexp(ctx, body),
        "ids" => term_level::ids(ctx, body),
        "geo_bounding_box" => geo::geo_bounding_box(ctx, body),
        "geo_distance" => geo_distance::geo_distance(ctx, body),
        "fuzzy" => fuzzy::fuzzy(ctx, body),
        "dis_max" => dis_max::dis_max(ctx, body, depth, build_nested),
        "nested" => nested::nested(ctx, body, depth, build_nested),
        "match_phrase_prefix" => prefix_match::match_phrase_prefix(ctx, body),
        "match_bool_prefix" => prefix_match::match_bool_prefix(ctx, body),
        "query_string" => query_string::build(ctx, body),
        "simple_query_string" => simple_query_string::build(ctx, body),
        "script_score" => crate::script::score::script_score(ctx, body, depth, build_nested),
        "function_score" => crate::script::score::function_score(ctx, body, depth, build_nested),
        "script" => crate::script::score::script_query(ctx, body),
        other => Err(SearchError::parsing(format!("unknown query [{other}]"))),
    }
}
