//! The query DSL as a typed tree: a request's query JSON is parsed once,
//! in one pass, into a [`QueryAst`], and the translators in `query/`
//! turn the tree into tantivy queries without reading JSON again.
//!
//! Parsing finds every error of the DSL itself, with Elasticsearch's
//! wording: an object that is not one `{"kind": {...}}` entry, an
//! `unknown query [x]`, an unknown or malformed parameter
//! (`[match] query does not support [foo]`), a clause of `bool` that does
//! not parse (wrapped in `[bool] failed to parse field [must]`), and
//! nesting deeper than [`MAX_NESTED_DEPTH`] (an error, never a deep
//! stack: the parser recurses once per level and stops at the limit).
//! A parse error carries the path of the query it was found in, from
//! the query object down (`bool.must[1].range.ts`, see
//! `SearchError::InQuery`), so the reply can place it in the request.
//! What depends on the index (a field's type, its analyzer, runtime
//! fields, nested paths) is checked when the tree is translated.
//!
//! The tree borrows from the JSON it was parsed from: a field's value
//! (`term`'s value, the list of a `terms` query) stays a reference into
//! the request, so a million-value `terms` query is not copied.
//! [`ParsedQuery`] keeps the two together (through `yoke`): a request's
//! query is parsed once, with the request, and shared by its passes,
//! which narrow it with `bool` nodes over it (`QueryAst::Parsed`) rather
//! than with JSON.
//!
//! One file per family: `compound` (`bool`, `constant_score`, `dis_max`,
//! `match_all`, `match_none`, `nested`), `term_level` (`term`, `terms`,
//! `ids`, `exists`, `range`), `multi_term` (`prefix`, `wildcard`,
//! `regexp`, `fuzzy`), `full_text` (`match`, `match_phrase`,
//! `multi_match`, `match_phrase_prefix`, `match_bool_prefix`), `geo`
//! (`geo_bounding_box`, `geo_distance`), `text_query` (`query_string`,
//! `simple_query_string`), `scoring` (`script`, `script_score`,
//! `function_score`, with `functions` for the latter's functions).

mod compound;
mod full_text;
mod functions;
mod geo;
mod multi_term;
mod scoring;
mod term_level;
#[cfg(test)]
mod tests;
mod text_query;

pub(crate) use compound::wrap_clause_error;
pub use compound::ScoreMode;

/// `bool`, over parsed queries.
pub(crate) type BoolQuery<'a> = compound::BoolNode<QueryAst<'a>>;
/// `constant_score`, over parsed queries.
pub(crate) type ConstantScore<'a> = compound::ConstantScoreNode<QueryAst<'a>>;
/// `dis_max`, over parsed queries.
pub(crate) type DisMax<'a> = compound::DisMaxNode<QueryAst<'a>>;
/// `nested`, over parsed queries.
pub(crate) type NestedAst<'a> = compound::NestedNode<'a, QueryAst<'a>>;
pub(crate) use full_text::{
    text_of, MatchAst, MatchBoolPrefixAst, MatchPhraseAst, MatchPhrasePrefixAst, MultiMatchAst,
    MultiMatchType, ZeroTerms,
};
pub(crate) use functions::{DecayAst, FunctionAst};
/// `function_score`, over parsed queries.
pub(crate) type FunctionScore<'a> = scoring::FunctionScoreNode<'a, QueryAst<'a>>;
/// `script_score`, over parsed queries.
pub(crate) type ScriptScore<'a> = scoring::ScriptScoreNode<QueryAst<'a>>;
pub(crate) use geo::{parse_box, GeoBoxAst, GeoDistanceAst};
pub(crate) use multi_term::{FuzzyAst, PatternAst, RegexpAst};
pub(crate) use scoring::ScriptQueryAst;
pub(crate) use term_level::{ExistsAst, IdsAst, RangeAst, RangeBound, TermAst, TermsAst};
pub(crate) use text_query::{QueryStringAst, SimpleQueryStringAst, TextParams};

use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::query::Query;
use yoke::Yoke;

use super::context::{QueryContext, MAX_NESTED_DEPTH};
use super::doc_set::DocSetAst;
use super::random_sample::SampleAst;
use crate::error::{QueryStep, Result, SearchError};

/// The translator of a parsed query found inside another at nesting level
/// `depth`: the dispatcher in `query/mod.rs`, passed down to the compound
/// queries' translators so that they do not import it.
pub(crate) type Translate = fn(&QueryContext<'_>, &QueryAst<'_>, usize) -> Result<Box<dyn Query>>;

/// One query of the DSL, parsed.
#[derive(Debug, yoke::Yokeable)]
// The derive's `unsafe impl Yokeable` is yoke's, checked by it: it
// compiles only if the tree is covariant in `'a` (it holds shared borrows
// and owned values, never a `&mut` or a cell).
pub(crate) enum QueryAst<'a> {
    /// A query parsed on its own and shared: the request's query inside
    /// the `bool` a pass narrows it with.
    Parsed(ParsedQuery),
    /// `match_all`, with its boost.
    MatchAll { boost: f64 },
    /// `match_none`.
    MatchNone,
    /// `bool`.
    Bool(BoolQuery<'a>),
    /// `constant_score`.
    ConstantScore(ConstantScore<'a>),
    /// `dis_max`.
    DisMax(DisMax<'a>),
    /// `nested`.
    Nested(NestedAst<'a>),
    /// `term`.
    Term(TermAst<'a>),
    /// `terms`.
    Terms(TermsAst<'a>),
    /// `ids`.
    Ids(IdsAst<'a>),
    /// `exists`.
    Exists(ExistsAst<'a>),
    /// `range`.
    Range(RangeAst<'a>),
    /// `match`.
    Match(MatchAst<'a>),
    /// `match_phrase`.
    MatchPhrase(MatchPhraseAst<'a>),
    /// `multi_match`.
    MultiMatch(MultiMatchAst<'a>),
    /// `match_phrase_prefix`.
    MatchPhrasePrefix(MatchPhrasePrefixAst<'a>),
    /// `match_bool_prefix`.
    MatchBoolPrefix(MatchBoolPrefixAst<'a>),
    /// `geo_bounding_box`.
    GeoBoundingBox(GeoBoxAst<'a>),
    /// `geo_distance`.
    GeoDistance(GeoDistanceAst<'a>),
    /// `query_string`.
    QueryString(QueryStringAst<'a>),
    /// `simple_query_string`.
    SimpleQueryString(SimpleQueryStringAst<'a>),
    /// `prefix`.
    Prefix(PatternAst<'a>),
    /// `wildcard`.
    Wildcard(PatternAst<'a>),
    /// `regexp`.
    Regexp(RegexpAst<'a>),
    /// `fuzzy`.
    Fuzzy(FuzzyAst<'a>),
    /// `script`.
    Script(ScriptQueryAst),
    /// `script_score`.
    ScriptScore(ScriptScore<'a>),
    /// `function_score`.
    FunctionScore(FunctionScore<'a>),
    /// The `random_sampler` aggregation's sample (composed only: no
    /// request writes it).
    RandomSample(SampleAst),
    /// The `sampler` aggregations' documents (composed only).
    DocSet(DocSetAst),
}

/// A query of a request, parsed once when the request is and shared by
/// every pass, index and shard that runs it (a clone is a reference
/// count).
///
/// It keeps its JSON as the canonical form: as written for a parsed
/// query, as composed (the `bool` of a pass) for one the engine builds.
/// Highlighting walks it for terms, nested scopes and tantivy's filter
/// aggregation carry it (the latter serializes its request); nothing
/// parses it again.
#[derive(Clone)]
pub struct ParsedQuery(Arc<Parsed>);

struct Parsed {
    /// The JSON form; a parsed tree's cart is this same allocation.
    json: Arc<Value>,
    /// The tree, borrowing from the JSON it was parsed from (the cart);
    /// a composed tree owns what it holds and has no cart.
    ast: Yoke<QueryAst<'static>, Option<Arc<Value>>>,
}

impl ParsedQuery {
    /// Parses the query object `json` (`{"match": {...}}`).
    pub fn parse(json: Value) -> Result<ParsedQuery> {
        let json = Arc::new(json);
        let ast =
            Yoke::<QueryAst<'static>, Arc<Value>>::try_attach_to_cart(Arc::clone(&json), |q| {
                parse(q, 1)
            })?;
        Ok(ParsedQuery(Arc::new(Parsed {
            json,
            ast: ast.wrap_cart_in_option(),
        })))
    }

    /// `match_all`, the query of a request without one.
    pub(crate) fn match_all() -> ParsedQuery {
        ParsedQuery::composed(QueryAst::MatchAll { boost: 1.0 }, json!({"match_all": {}}))
    }

    /// A tree the engine built (owning what it holds, its own queries
    /// `Parsed` nodes) with its JSON form `json`.
    pub(crate) fn composed(ast: QueryAst<'static>, json: Value) -> ParsedQuery {
        ParsedQuery(Arc::new(Parsed {
            json: Arc::new(json),
            ast: Yoke::new_owned(ast),
        }))
    }

    /// This query narrowed by `filters`: `{"bool": {"must": [this],
    /// "filter": filters}}` (this query itself without filters).
    pub fn filtered(&self, filters: &[ParsedQuery]) -> ParsedQuery {
        if filters.is_empty() {
            return self.clone();
        }
        let json = json!({"bool": {
            "must": [self.json()],
            "filter": filters.iter().map(ParsedQuery::json).collect::<Vec<_>>(),
        }});
        let node = BoolQuery::conjunction(
            vec![QueryAst::Parsed(self.clone())],
            filters.iter().cloned().map(QueryAst::Parsed).collect(),
        );
        ParsedQuery::composed(QueryAst::Bool(node), json)
    }

    /// This query narrowed to the documents of the sample `sample` (see
    /// `query::random_sample`); its JSON form names the sample
    /// `random_sampler`.
    pub(crate) fn random_sample(&self, sample: SampleAst) -> ParsedQuery {
        let json = json!({"bool": {
            "must": [self.json()],
            "filter": [{"random_sampler": {
                "probability": sample.probability,
                "seed": sample.seed,
            }}],
        }});
        let node = BoolQuery::conjunction(
            vec![QueryAst::Parsed(self.clone())],
            vec![QueryAst::RandomSample(sample)],
        );
        ParsedQuery::composed(QueryAst::Bool(node), json)
    }

    /// This query narrowed to the documents of `docs` (see
    /// `query::doc_set`); its JSON form names them `sampler_docs`, with a
    /// random id so that no two sets are one query.
    pub(crate) fn doc_set(&self, docs: DocSetAst) -> ParsedQuery {
        let json = json!({"bool": {
            "must": [self.json()],
            "filter": [{"sampler_docs": {
                "id": rand::random::<u64>(),
                "docs": docs.len(),
            }}],
        }});
        let node = BoolQuery::conjunction(
            vec![QueryAst::Parsed(self.clone())],
            vec![QueryAst::DocSet(docs)],
        );
        ParsedQuery::composed(QueryAst::Bool(node), json)
    }

    /// The tree.
    pub(crate) fn ast(&self) -> &QueryAst<'_> {
        self.0.ast.get()
    }

    /// The JSON form (see the type's doc).
    pub(crate) fn json(&self) -> &Value {
        &self.0.json
    }
}

impl std::fmt::Debug for ParsedQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParsedQuery({})", self.0.json)
    }
}

/// Two queries are equal when their JSON forms are.
impl PartialEq for ParsedQuery {
    fn eq(&self, other: &ParsedQuery) -> bool {
        self.json() == other.json()
    }
}

/// Parses the query object `query` (`{"match": {...}}`) found at nesting
/// level `depth` (1 at the top), refusing one deeper than
/// [`MAX_NESTED_DEPTH`].
pub(crate) fn parse(query: &Value, depth: usize) -> Result<QueryAst<'_>> {
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
    match parse_kind(kind, body, depth + 1) {
        Ok(Some(parsed)) => Ok(parsed),
        Ok(None) => Err(SearchError::parsing(format!("unknown query [{kind}]"))),
        Err(e) => Err(located(kind, body, e)),
    }
}

/// The `kind` query of body `body`, its sub-queries at level `inner`;
/// `None` for a kind the DSL does not have.
fn parse_kind<'a>(kind: &str, body: &'a Value, inner: usize) -> Result<Option<QueryAst<'a>>> {
    Ok(Some(match kind {
        "match_all" => QueryAst::MatchAll {
            boost: compound::match_all(body)?,
        },
        "match_none" => {
            compound::match_none(body)?;
            QueryAst::MatchNone
        }
        "bool" => QueryAst::Bool(compound::boolean(body, inner, &parse)?),
        "constant_score" => QueryAst::ConstantScore(compound::constant_score(body, inner, &parse)?),
        "dis_max" => QueryAst::DisMax(compound::dis_max(body, inner, &parse)?),
        "nested" => QueryAst::Nested(compound::nested(body, inner, &parse)?),
        "term" => QueryAst::Term(term_level::term(body)?),
        "terms" => QueryAst::Terms(term_level::terms(body)?),
        "ids" => QueryAst::Ids(term_level::ids(body)?),
        "exists" => QueryAst::Exists(term_level::exists(body)?),
        "range" => QueryAst::Range(term_level::range(body)?),
        "match" => QueryAst::Match(full_text::match_query(body)?),
        "match_phrase" => QueryAst::MatchPhrase(full_text::match_phrase(body)?),
        "multi_match" => QueryAst::MultiMatch(full_text::multi_match(body)?),
        "match_phrase_prefix" => QueryAst::MatchPhrasePrefix(full_text::match_phrase_prefix(body)?),
        "match_bool_prefix" => QueryAst::MatchBoolPrefix(full_text::match_bool_prefix(body)?),
        "geo_bounding_box" => QueryAst::GeoBoundingBox(geo::geo_bounding_box(body)?),
        "geo_distance" => QueryAst::GeoDistance(geo::geo_distance(body)?),
        "query_string" => QueryAst::QueryString(text_query::query_string(body)?),
        "simple_query_string" => {
            QueryAst::SimpleQueryString(text_query::simple_query_string(body)?)
        }
        "prefix" => QueryAst::Prefix(multi_term::prefix(body)?),
        "wildcard" => QueryAst::Wildcard(multi_term::wildcard(body)?),
        "regexp" => QueryAst::Regexp(multi_term::regexp(body)?),
        "fuzzy" => QueryAst::Fuzzy(multi_term::fuzzy(body)?),
        "script" => QueryAst::Script(scoring::script(body)?),
        "script_score" => QueryAst::ScriptScore(scoring::script_score(body, inner, &parse)?),
        "function_score" => QueryAst::FunctionScore(scoring::function_score(body, inner, &parse)?),
        _ => return Ok(None),
    }))
}

/// The queries on one field, written `{"kind": {"field": ...}}`.
const ON_ONE_FIELD: [&str; 11] = [
    "term",
    "terms",
    "range",
    "match",
    "match_phrase",
    "match_phrase_prefix",
    "match_bool_prefix",
    "prefix",
    "wildcard",
    "regexp",
    "fuzzy",
];

/// A parse error of the `kind` query of body `body`, placed at the query
/// (and at its field, for a query on one field).
fn located(kind: &str, body: &Value, e: SearchError) -> SearchError {
    let field = body
        .as_object()
        .filter(|_| ON_ONE_FIELD.contains(&kind))
        .and_then(|obj| {
            let mut fields = obj.keys().filter(|k| *k != "boost" && *k != "_name");
            match (fields.next(), fields.next()) {
                (Some(f), None) => Some(f),
                _ => None,
            }
        });
    let e = match field {
        Some(f) => e.in_query(QueryStep::Key(f.clone())),
        None => e,
    };
    e.in_query(QueryStep::Key(kind.to_string()))
}
