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

pub(crate) mod column_cache;
mod compound;
pub mod date_math;
mod date_range;
mod dis_max;
mod full_text;
mod fuzzy;
mod geo;
mod geo_distance;
pub(crate) mod ip_range;
pub mod nested;
mod prefix_match;
pub mod query_string;
mod regexp;
pub(crate) mod segment_cache;
pub mod simple_query_string;
mod term_level;
pub mod terms;
mod text_syntax;
pub(crate) mod zone_map;

use serde_json::{Map, Value};
use tantivy::query::{AllScorer, BoostQuery, ConstScorer, Explanation, Query, Scorer, Weight};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError};

use crate::breaker::MemoryAccount;
use crate::error::{Result, SearchError};
use crate::index_limits::IndexLimits;
use crate::mapping::{FieldMapping, Mappings};
use crate::store::SchemaFields;

/// The account of translations made without a request (alias filters,
/// filters inside aggregations): counts nothing.
static UNACCOUNTED: MemoryAccount = MemoryAccount::unaccounted();

/// What a translation needs: the mapping, the schema and the analyzers,
/// the index's limits and where expansions are reserved.
pub struct QueryContext<'a> {
    /// The index mapping.
    pub mappings: &'a Mappings,
    /// The shard schema.
    pub fields: &'a SchemaFields,
    /// The index's analyzers.
    pub tokenizers: &'a TokenizerManager,
    /// "now" for date math, epoch milliseconds.
    pub now_millis: i64,
    /// `index.max_terms_count` and the other per-index limits.
    pub limits: IndexLimits,
    /// Where the query's expansions (terms lists, automata) are reserved.
    pub memory: &'a MemoryAccount,
    /// The nested object whose documents the query runs on (inside a
    /// `nested` query or aggregation), `None` for root documents.
    pub nested_scope: Option<String>,
    /// The search's runtime fields (`None`: no search, or none).
    pub runtime: Option<&'a crate::script::fields::ScriptedFields>,
}

impl<'a> QueryContext<'a> {
    /// A context with the default limits that reserves nothing.
    pub fn new(
        mappings: &'a Mappings,
        fields: &'a SchemaFields,
        tokenizers: &'a TokenizerManager,
        now_millis: i64,
    ) -> QueryContext<'a> {
        QueryContext {
            mappings,
            fields,
            tokenizers,
            now_millis,
            limits: IndexLimits::default(),
            memory: &UNACCOUNTED,
            nested_scope: None,
            runtime: None,
        }
    }

    /// This context for the documents of the nested object at `path`.
    pub fn in_nested(&self, path: &str) -> QueryContext<'a> {
        QueryContext {
            mappings: self.mappings,
            fields: self.fields,
            tokenizers: self.tokenizers,
            now_millis: self.now_millis,
            limits: self.limits.clone(),
            memory: self.memory,
            nested_scope: Some(path.to_string()),
            runtime: self.runtime,
        }
    }

    /// The leaf mapping of `path`, if mapped.
    pub fn leaf(&self, path: &str) -> Option<&FieldMapping> {
        self.mappings.leaf(path)
    }
}

/// Deepest nesting of queries inside compound queries, the outermost
/// query being level 1: Elasticsearch's `indices.query.bool.max_nested_depth`
/// default. Translation and tantivy's weights and scorers recurse once per
/// level, so this bounds their stack use.
pub const MAX_NESTED_DEPTH: usize = 30;

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
        "bool" => compound::boolean(ctx, body, depth),
        "constant_score" => compound::constant_score(ctx, body, depth),
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
        "dis_max" => dis_max::dis_max(ctx, body, depth),
        "nested" => nested::nested(ctx, body, depth),
        "match_phrase_prefix" => prefix_match::match_phrase_prefix(ctx, body),
        "match_bool_prefix" => prefix_match::match_bool_prefix(ctx, body),
        "query_string" => query_string::build(ctx, body),
        "simple_query_string" => simple_query_string::build(ctx, body),
        "script_score" => crate::script::score::script_score(ctx, body, depth),
        "function_score" => crate::script::score::function_score(ctx, body, depth),
        "script" => crate::script::score::script_query(ctx, body),
        other => Err(SearchError::parsing(format!("unknown query [{other}]"))),
    }
}

/// The single `{field: params}` entry of a field-level query.
pub(crate) fn single_field<'a>(kind: &str, body: &'a Value) -> Result<(&'a str, &'a Value)> {
    let obj = body.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "[{kind}] query malformed, no start_object after query name"
        ))
    })?;
    let fields: Vec<_> = obj
        .iter()
        .filter(|(k, _)| k.as_str() != "boost" && k.as_str() != "_name")
        .collect();
    match fields.as_slice() {
        [(field, params)] => Ok((field.as_str(), params)),
        [] => Err(SearchError::parsing(format!(
            "[{kind}] query doesn't support empty field name"
        ))),
        _ => Err(SearchError::parsing(format!(
            "[{kind}] query doesn't support multiple fields, found [{}] and [{}]",
            fields[0].0, fields[1].0
        ))),
    }
}

/// Checks that `params` only has `allowed` keys.
pub(crate) fn check_params(
    kind: &str,
    params: &Map<String, Value>,
    allowed: &[&str],
) -> Result<()> {
    for key in params.keys() {
        if !allowed.contains(&key.as_str()) && key != "boost" && key != "_name" {
            return Err(SearchError::parsing(format!(
                "[{kind}] query does not support [{key}]"
            )));
        }
    }
    Ok(())
}

/// Applies a `boost` parameter.
pub(crate) fn boosted(query: Box<dyn Query>, params: &Value) -> Result<Box<dyn Query>> {
    match params.get("boost") {
        None => Ok(query),
        Some(b) => {
            let boost = b
                .as_f64()
                .or_else(|| b.as_str().and_then(|s| s.parse().ok()))
                .ok_or_else(|| {
                    SearchError::parsing(format!("[boost] must be a number, got [{b}]"))
                })?;
            if boost == 1.0 {
                Ok(query)
            } else {
                Ok(Box::new(BoostQuery::new(query, boost as f32)))
            }
        }
    }
}

/// Resolves `minimum_should_match` (`2`, `"75%"`, `"-1"`, `"-25%"`) for `optional` clauses.
pub(crate) fn minimum_should_match(value: &Value, optional: usize) -> Result<usize> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        other => {
            return Err(SearchError::parsing(format!(
                "[minimum_should_match] malformed: {other}"
            )))
        }
    };
    let n = optional as i64;
    let required = if let Some(pct) = text.strip_suffix('%') {
        let p: i64 = pct
            .parse()
            .map_err(|_| SearchError::parsing(format!("invalid minimum_should_match [{text}]")))?;
        let part = n * p.abs() / 100;
        if p < 0 {
            n - part
        } else {
            part
        }
    } else {
        let k: i64 = text
            .parse()
            .map_err(|_| SearchError::parsing(format!("invalid minimum_should_match [{text}]")))?;
        if k < 0 {
            n + k
        } else {
            k
        }
    };
    Ok(required.clamp(0, n) as usize)
}

/// The scorer of a filter that matches every document of `reader`. At
/// boost 1.0 (always, when scores are not needed) it is tantivy's bare
/// `AllScorer`, which a boolean query drops from its intersections instead
/// of stepping through it document by document; any other boost needs a
/// wrapper, which tantivy does not recognise.
pub(crate) fn all_docs(reader: &SegmentReader, boost: Score) -> Box<dyn Scorer> {
    let all = AllScorer::new(reader.max_doc());
    if boost == 1.0 {
        Box::new(all)
    } else {
        Box::new(ConstScorer::new(all, boost))
    }
}

/// `Weight::explain` of a filter that scores every match 1.0: the
/// explanation `name` when `doc` matches, an error otherwise.
pub(crate) fn explain_filter(
    weight: &dyn Weight,
    reader: &SegmentReader,
    doc: DocId,
    name: &'static str,
) -> tantivy::Result<Explanation> {
    let mut scorer = weight.scorer(reader, 1.0)?;
    // A scorer already past `doc` (or terminated) must not seek back.
    let at = scorer.doc();
    if at == doc || (at < doc && scorer.seek(doc) == doc) {
        Ok(Explanation::new(name, 1.0))
    } else {
        Err(TantivyError::InvalidArgument(format!(
            "document {doc} does not match [{name}]"
        )))
    }
}
