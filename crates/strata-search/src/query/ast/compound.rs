//! The compound queries, whose parameters hold queries: `bool`,
//! `constant_score`, `dis_max`, `nested`; and `match_all`, `match_none`.
//! Each parses its sub-queries at the next nesting level through the
//! parser it is given (`Sub`), and the nodes are generic over the query
//! type they hold, so this module does not import the tree it is part of.
//! A sub-query's parse error gets the key (and index) it was found at
//! (see `SearchError::InQuery`).

use std::borrow::Cow;

use serde_json::Value;

use crate::error::{QueryStep, Result, SearchError};
use crate::query::params::{boost_of, check_params, MinimumShouldMatch};

/// The parser of a sub-query found at a nesting level (the dispatcher).
pub(crate) type Sub<'s, 'a, Q> = &'s dyn Fn(&'a Value, usize) -> Result<Q>;

/// `bool`.
#[derive(Debug)]
pub(crate) struct BoolNode<Q> {
    pub must: Vec<Q>,
    pub filter: Vec<Q>,
    pub should: Vec<Q>,
    pub must_not: Vec<Q>,
    pub minimum_should_match: Option<MinimumShouldMatch>,
    pub boost: f64,
}

impl<Q> BoolNode<Q> {
    /// `{"bool": {"must": [must], "filter": filter}}`, as the engine's
    /// passes narrow a query (no `should`, boost 1).
    pub(crate) fn conjunction(must: Vec<Q>, filter: Vec<Q>) -> BoolNode<Q> {
        BoolNode {
            must,
            filter,
            should: Vec::new(),
            must_not: Vec::new(),
            minimum_should_match: None,
            boost: 1.0,
        }
    }
}

/// `constant_score`.
#[derive(Debug)]
pub(crate) struct ConstantScoreNode<Q> {
    pub filter: Box<Q>,
    pub boost: f64,
}

/// `dis_max`.
#[derive(Debug)]
pub(crate) struct DisMaxNode<Q> {
    pub queries: Vec<Q>,
    pub tie_breaker: f64,
    pub boost: f64,
}

/// How a `nested` query scores a parent from its matching children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreMode {
    /// Their mean (the default).
    Avg,
    /// The highest.
    Max,
    /// The lowest.
    Min,
    /// Their sum.
    Sum,
    /// No score: 0.
    None,
}

impl ScoreMode {
    fn parse(value: &Value) -> Result<ScoreMode> {
        Ok(match value.as_str() {
            Some("avg") => ScoreMode::Avg,
            Some("max") => ScoreMode::Max,
            Some("min") => ScoreMode::Min,
            Some("sum") | Some("total") => ScoreMode::Sum,
            Some("none") => ScoreMode::None,
            _ => {
                return Err(SearchError::parsing(format!(
                    "[nested] illegal score_mode [{}]",
                    value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_string)
                )))
            }
        })
    }
}

/// `nested`.
#[derive(Debug)]
pub(crate) struct NestedNode<'a, Q> {
    /// Borrowed from the request; owned in a query the engine composes
    /// (`reverse_nested`'s parents).
    pub path: Cow<'a, str>,
    pub query: Box<Q>,
    pub score_mode: ScoreMode,
    pub ignore_unmapped: bool,
    pub boost: f64,
}

/// `match_all`: its boost.
pub(super) fn match_all(body: &Value) -> Result<f64> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[match_all] malformed"))?;
    check_params("match_all", params, &[])?;
    boost_of(body)
}

/// `match_none`, checked.
pub(super) fn match_none(body: &Value) -> Result<()> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[match_none] malformed"))?;
    check_params("match_none", params, &[])
}

/// One query or an array of them, the `bool` clause `name`, its queries
/// at level `depth`. Elasticsearch parses `bool` with an `ObjectParser`,
/// which wraps a clause's parse error in "[bool] failed to parse field
/// [name]" (an `x_content_parse_exception` caused by it); the nesting
/// limit's error stays as it is.
fn clauses<'a, Q>(
    name: &str,
    value: Option<&'a Value>,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<Vec<Q>> {
    let one = |q: &'a Value| parse(q, depth).map_err(|e| wrap_clause_error(name, e));
    match value {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, q)| one(q).map_err(|e| at_index(name, i, e)))
            .collect(),
        Some(q @ Value::Object(_)) => Ok(vec![one(q).map_err(|e| at_key(name, e))?]),
        Some(other) => Err(SearchError::parsing(format!(
            "[bool] clause malformed: {other}"
        ))),
    }
}

/// A sub-query's error found under `key`.
pub(super) fn at_key(key: &str, e: SearchError) -> SearchError {
    e.in_query(QueryStep::Key(key.to_string()))
}

/// A sub-query's error found at `index` of the array under `key`.
pub(super) fn at_index(key: &str, index: usize, e: SearchError) -> SearchError {
    at_key(key, e.in_query(QueryStep::Index(index)))
}

/// A `bool` clause's parse error wrapped as Elasticsearch's `ObjectParser`
/// does (inside the path it carries); other errors (the shard's, the
/// nesting limit's, Strata's `illegal_argument_exception`s) as they are.
pub(crate) fn wrap_clause_error(name: &str, e: SearchError) -> SearchError {
    match e {
        SearchError::InQuery { path, error } => SearchError::InQuery {
            path,
            error: Box::new(wrap_clause_error(name, *error)),
        },
        SearchError::Parsing(_) | SearchError::FieldParse { .. } => {
            SearchError::field_parse("bool", name, e)
        }
        other => other,
    }
}

/// `bool`, its clauses at level `depth`.
pub(super) fn boolean<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<BoolNode<Q>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[bool] malformed"))?;
    // Elasticsearch 8 parses `bool` declaratively: an unknown key is an
    // `x_content_parse_exception`.
    const KEYS: [&str; 8] = [
        "must",
        "should",
        "filter",
        "must_not",
        "minimum_should_match",
        "adjust_pure_negative",
        "boost",
        "_name",
    ];
    if let Some(key) = params.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(SearchError::FieldParse {
            reason: format!("[bool] unknown field [{key}]"),
            cause: None,
        });
    }
    Ok(BoolNode {
        must: clauses("must", params.get("must"), depth, parse)?,
        filter: clauses("filter", params.get("filter"), depth, parse)?,
        should: clauses("should", params.get("should"), depth, parse)?,
        must_not: clauses("must_not", params.get("must_not"), depth, parse)?,
        minimum_should_match: MinimumShouldMatch::of(body, "minimum_should_match")?,
        boost: boost_of(body)?,
    })
}

/// `constant_score`, its filter at level `depth`.
pub(super) fn constant_score<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<ConstantScoreNode<Q>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[constant_score] malformed"))?;
    check_params("constant_score", params, &["filter"])?;
    let filter = params
        .get("filter")
        .ok_or_else(|| SearchError::parsing("[constant_score] requires a 'filter' element"))?;
    Ok(ConstantScoreNode {
        filter: Box::new(parse(filter, depth).map_err(|e| at_key("filter", e))?),
        // A boost that is not a number is taken as 1.
        boost: params.get("boost").and_then(Value::as_f64).unwrap_or(1.0),
    })
}

/// `{"dis_max": {"queries": [...], "tie_breaker": 0.7}}`, its queries at
/// level `depth`.
pub(super) fn dis_max<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<DisMaxNode<Q>> {
    let params = body.as_object().ok_or_else(|| {
        SearchError::parsing("[dis_max] query malformed, no start_object after query name")
    })?;
    check_params("dis_max", params, &["queries", "tie_breaker"])?;
    let none =
        || SearchError::parsing("[dis_max] requires 'queries' field with at least one clause");
    let queries: Vec<Q> = match params.get("queries") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, q)| parse(q, depth).map_err(|e| at_index("queries", i, e)))
            .collect::<Result<_>>()?,
        Some(q @ Value::Object(_)) => vec![parse(q, depth).map_err(|e| at_key("queries", e))?],
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[dis_max] queries malformed: {other}"
            )))
        }
        None => return Err(none()),
    };
    if queries.is_empty() {
        return Err(none());
    }
    let tie_breaker = match params.get("tie_breaker") {
        None => 0.0,
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .filter(|t| t.is_finite())
            .ok_or_else(|| {
                SearchError::parsing(format!("[dis_max] tie_breaker must be a number, got [{v}]"))
            })?,
    };
    Ok(DisMaxNode {
        queries,
        tie_breaker,
        boost: boost_of(body)?,
    })
}

/// `nested`, its query at level `depth`.
pub(super) fn nested<'a, Q>(
    body: &'a Value,
    depth: usize,
    parse: Sub<'_, 'a, Q>,
) -> Result<NestedNode<'a, Q>> {
    let params = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[nested] query malformed, no start_object"))?;
    check_params(
        "nested",
        params,
        &[
            "path",
            "query",
            "score_mode",
            "ignore_unmapped",
            "inner_hits",
        ],
    )?;
    let path = params
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| SearchError::parsing("[nested] requires 'path' field"))?;
    let query = params
        .get("query")
        .ok_or_else(|| SearchError::parsing("[nested] requires 'query' field"))?;
    let score_mode = match params.get("score_mode") {
        Some(v) => ScoreMode::parse(v)?,
        None => ScoreMode::Avg,
    };
    let ignore_unmapped = match params.get("ignore_unmapped") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[nested] query does not support [ignore_unmapped] with value [{other}]"
            )))
        }
    };
    if params.contains_key("inner_hits") {
        return Err(SearchError::illegal(
            "[inner_hits] of a [nested] query is not supported by this server",
        ));
    }
    Ok(NestedNode {
        path: Cow::Borrowed(path),
        query: Box::new(parse(query, depth).map_err(|e| at_key("query", e))?),
        score_mode,
        ignore_unmapped,
        boost: boost_of(body)?,
    })
}
