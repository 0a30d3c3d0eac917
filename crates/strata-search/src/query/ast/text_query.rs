//! The query-text queries with a typed node: `query_string` (Lucene's
//! syntax) and `simple_query_string` (the forgiving one). Their
//! parameters are parsed here, the ones both take by one loop; their
//! query text stays a string, parsed by its syntax when the node is
//! translated (`query/query_string`, `query/simple_query_string`), as its
//! fields resolve against the mapping then.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};
use crate::query::params::{boost_of, MinimumShouldMatch};
use crate::query::term_options::{FuzzyOptions, MultiTermOptions};
use crate::query::text_params::{FieldSpec, SimpleFlags};

/// What `query_string` and `simple_query_string` both take.
#[derive(Debug)]
pub(crate) struct TextParams<'a> {
    /// The query text, in the query's syntax.
    pub query: &'a str,
    /// The fields (names, patterns, `^boosts`) bare values search.
    pub fields: Vec<FieldSpec>,
    /// `default_operator: and`.
    pub default_and: bool,
    pub lenient: bool,
    pub analyze_wildcard: bool,
    /// `fuzzy_*` of `value~N` leaves.
    pub fuzzy: FuzzyOptions,
    pub minimum_should_match: Option<MinimumShouldMatch>,
    pub boost: f64,
}

/// `query_string`.
#[derive(Debug)]
pub(crate) struct QueryStringAst<'a> {
    pub text: TextParams<'a>,
    pub phrase_slop: u32,
    pub tie_breaker: f32,
    pub time_zone: Option<String>,
    /// `rewrite`, `max_determinized_states` of the multi-term leaves.
    pub multi_term: MultiTermOptions,
    /// `allow_leading_wildcard`.
    pub leading_wildcard: bool,
}

/// `simple_query_string`.
#[derive(Debug)]
pub(crate) struct SimpleQueryStringAst<'a> {
    pub text: TextParams<'a>,
    /// The operators the syntax reads.
    pub flags: SimpleFlags,
}

/// `default_operator`: true for AND.
fn and_operator(kind: &str, v: &Value) -> Result<bool> {
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("and") => Ok(true),
        Some("or") => Ok(false),
        _ => Err(SearchError::parsing(format!(
            "[{kind}] default operator [{v}] is not allowed"
        ))),
    }
}

/// An `analyzer` (or `quote_analyzer`): only the standard one is supported.
fn standard_analyzer(kind: &str, key: &str, v: &Value) -> Result<()> {
    match v.as_str() {
        Some("standard" | "default") => Ok(()),
        _ => Err(SearchError::illegal(format!(
            "[{kind}] {key} [{v}] is not supported"
        ))),
    }
}

/// A parameter refused: a known one with a value of the wrong type.
fn unsupported(kind: &str, key: &str, v: &Value) -> SearchError {
    SearchError::parsing(format!(
        "[{kind}] query does not support [{key}] with value [{v}]"
    ))
}

/// The parameters of a `kind` query as the shared ones, the `fields` it
/// names, and those `own` takes (it returns false for a key it does not
/// know; `unknown` is the error of such a key). `query` is required.
fn text_params<'a>(
    kind: &str,
    params: &'a Map<String, Value>,
    mut own: impl FnMut(&str, &'a Value) -> Result<bool>,
    unknown: impl Fn(&str) -> SearchError,
) -> Result<(TextParams<'a>, Option<Vec<FieldSpec>>)> {
    let mut query = None;
    let mut fields = None;
    let mut msm = None;
    let mut text = TextParams {
        query: "",
        fields: Vec::new(),
        default_and: false,
        lenient: false,
        analyze_wildcard: false,
        fuzzy: FuzzyOptions::default(),
        minimum_should_match: None,
        boost: 1.0,
    };
    for (key, v) in params {
        let bad = || unsupported(kind, key, v);
        match key.as_str() {
            "query" => query = Some(v.as_str().ok_or_else(bad)?),
            "fields" => fields = Some(FieldSpec::parse_list(kind, v)?),
            "default_operator" => text.default_and = and_operator(kind, v)?,
            "lenient" => text.lenient = v.as_bool().ok_or_else(bad)?,
            "analyze_wildcard" => text.analyze_wildcard = v.as_bool().ok_or_else(bad)?,
            "minimum_should_match" => msm = Some(v),
            k if k.starts_with("fuzzy_") && text.fuzzy.set(kind, k, v)? => {}
            k if own(k, v)? => {}
            "analyzer" => standard_analyzer(kind, key, v)?,
            "quote_field_suffix" => {
                return Err(SearchError::illegal(format!(
                    "[{kind}] [{key}] is not supported by this server"
                )))
            }
            "auto_generate_synonyms_phrase_query" | "boost" | "_name" => {}
            _ => return Err(unknown(key)),
        }
    }
    text.query = query.ok_or_else(|| {
        SearchError::parsing(if kind == "query_string" {
            "[query_string] must be provided with a [query]"
        } else {
            "[simple_query_string] query text missing"
        })
    })?;
    text.minimum_should_match = msm.map(MinimumShouldMatch::parse).transpose()?;
    Ok((text, fields))
}

/// The object of a `kind` query.
fn object<'a>(kind: &str, body: &'a Value) -> Result<&'a Map<String, Value>> {
    body.as_object().ok_or_else(|| {
        SearchError::parsing(format!(
            "[{kind}] query malformed, no start_object after query name"
        ))
    })
}

pub(super) fn query_string(body: &Value) -> Result<QueryStringAst<'_>> {
    const KIND: &str = "query_string";
    let params = object(KIND, body)?;
    // `rewrite`, `max_determinized_states` (skipped by the loop below).
    let multi_term = MultiTermOptions::parse(KIND, body)?;
    let (mut phrase_slop, mut tie_breaker, mut time_zone) = (0, 0.0, None);
    let (mut default_field, mut leading_wildcard) = (None, true);
    let (mut text, fields) = text_params(
        KIND,
        params,
        |key, v| {
            let bad = || unsupported(KIND, key, v);
            match key {
                "default_field" => default_field = Some(v.as_str().ok_or_else(bad)?),
                "phrase_slop" => phrase_slop = v.as_u64().ok_or_else(bad)? as u32,
                "tie_breaker" => tie_breaker = v.as_f64().ok_or_else(bad)? as f32,
                "time_zone" => time_zone = Some(v.as_str().ok_or_else(bad)?.to_string()),
                "type" => match v.as_str() {
                    Some("best_fields") => {}
                    Some("most_fields") => tie_breaker = 1.0,
                    _ => {
                        return Err(SearchError::illegal(format!(
                            "[{KIND}] type [{v}] is not supported (best_fields and most_fields are)"
                        )))
                    }
                },
                "allow_leading_wildcard" => leading_wildcard = v.as_bool().ok_or_else(bad)?,
                "quote_analyzer" => standard_analyzer(KIND, key, v)?,
                "fuzziness" => {
                    return Err(SearchError::illegal(format!(
                        "[{KIND}] [{key}] is not supported by this server"
                    )))
                }
                // Accepted without effect: the standard analyzer makes no
                // stop-word position gaps, and `escape` has no effect in
                // Elasticsearch either. Read above: rewrite options.
                "enable_position_increments" | "escape" | "rewrite" | "max_determinized_states" => {
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        |key| SearchError::parsing(format!("[{KIND}] query does not support [{key}]")),
    )?;
    text.fields = match (default_field, fields) {
        (Some(_), Some(f)) if !f.is_empty() => {
            return Err(SearchError::QueryShard(
                "failed to create query: Validation Failed: 1: cannot use [fields] parameter in conjunction with [default_field];".into(),
            ))
        }
        (Some(df), _) => vec![FieldSpec::parse(df)?],
        (None, Some(f)) if !f.is_empty() => f,
        _ => vec![FieldSpec::parse("*")?],
    };
    text.boost = boost_of(body)?;
    Ok(QueryStringAst {
        text,
        phrase_slop,
        tie_breaker,
        time_zone,
        multi_term,
        leading_wildcard,
    })
}

pub(super) fn simple_query_string(body: &Value) -> Result<SimpleQueryStringAst<'_>> {
    const KIND: &str = "simple_query_string";
    let params = object(KIND, body)?;
    let mut flags = SimpleFlags::ALL;
    let (mut text, fields) = text_params(
        KIND,
        params,
        |key, v| {
            if key == "flags" {
                flags = SimpleFlags::parse(v)?;
                return Ok(true);
            }
            Ok(false)
        },
        |key| SearchError::parsing(format!("[{KIND}] unsupported field [{key}]")),
    )?;
    text.fields = match fields {
        Some(f) if !f.is_empty() => f,
        _ => vec![FieldSpec::parse("*")?],
    };
    text.boost = boost_of(body)?;
    Ok(SimpleQueryStringAst { text, flags })
}
