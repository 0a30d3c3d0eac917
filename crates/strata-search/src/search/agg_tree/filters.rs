//! [`FilterParams`] and [`FiltersParams`]: the `filter` and `filters`
//! aggregations' parameters, typed when the request is parsed. Their
//! queries are parsed here, once, into [`ParsedQuery`]s (the query's tree
//! with the JSON it borrows from, owned together and shared by reference
//! count), so a bad query is refused with the aggregation's path
//! (`[aggs][f][filters][filters][errors]` and on into the query) before any
//! index is touched, and the passes that run them never walk their JSON
//! again. What the queries mean against the mapping (fields' types,
//! analyzers) is checked when they are translated, per index.
//!
//! `filter`'s body is its query, a non-empty object. `filters` takes
//! `filters` (an object of named queries, or an array of anonymous ones,
//! keyed by their position) and `keyed` (a boolean, checked and unused:
//! the buckets are an object for named filters, an array for anonymous
//! ones); `other_bucket` and `other_bucket_key` are refused as not
//! supported, any other key as unknown.

use serde_json::Value;

use crate::error::{QueryStep, Result, SearchError};
use crate::query::ParsedQuery;

/// The parameters of one `filter` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterParams {
    /// The documents the bucket holds.
    pub query: ParsedQuery,
}

impl FilterParams {
    /// The parameters `body` (the query) of the `filter` aggregation
    /// `name`.
    pub fn parse(name: &str, body: &Value) -> Result<FilterParams> {
        if body.as_object().is_none_or(|o| o.is_empty()) {
            return Err(SearchError::parsing(format!(
                "[filter] of aggregation [{name}] must be a query object, got [{body}]"
            )));
        }
        Ok(FilterParams {
            query: ParsedQuery::parse(body.clone())?,
        })
    }
}

/// The parameters of one `filters` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct FiltersParams {
    /// The buckets' keys (the names, or the positions of anonymous
    /// filters) and queries, in request order.
    pub filters: Vec<(String, ParsedQuery)>,
    /// Whether the filters were named (an object) rather than listed.
    pub named: bool,
    /// `keyed`, if written (checked, unused).
    pub keyed: Option<bool>,
}

impl FiltersParams {
    /// The parameters `body` of the `filters` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<FiltersParams> {
        let obj = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[filters] of [{name}] must be an object"))
        })?;
        let mut filters = None;
        let mut keyed = None;
        for (k, v) in obj {
            match k.as_str() {
                "filters" => {
                    filters =
                        Some(entries(name, v).map_err(|e| e.in_query(QueryStep::Key(k.clone())))?)
                }
                "keyed" => {
                    keyed = Some(boolean(v).ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[keyed] of [filters] aggregation [{name}] must be a boolean, got [{v}]"
                        ))
                    })?)
                }
                "other_bucket" | "other_bucket_key" => {
                    return Err(SearchError::illegal(format!(
                        "[filters] [{k}] of [{name}] is not supported by this server"
                    )))
                }
                other => {
                    return Err(SearchError::parsing(format!(
                        "[filters] unknown field [{other}] in [{name}]"
                    )))
                }
            }
        }
        let (filters, named) = filters.ok_or_else(|| {
            SearchError::parsing(format!("[filters] of [{name}] needs [filters]"))
        })?;
        Ok(FiltersParams {
            filters,
            named,
            keyed,
        })
    }
}

/// The keyed queries of `filters`' `filters` value, and whether they were
/// named; a query's parse error carries its key or position.
fn entries(name: &str, value: &Value) -> Result<(Vec<(String, ParsedQuery)>, bool)> {
    let parse =
        |q: &Value, step: QueryStep| ParsedQuery::parse(q.clone()).map_err(|e| e.in_query(step));
    match value {
        Value::Object(named) => {
            let list = named
                .iter()
                .map(|(k, q)| Ok((k.clone(), parse(q, QueryStep::Key(k.clone()))?)))
                .collect::<Result<_>>()?;
            Ok((list, true))
        }
        Value::Array(listed) => {
            let list = listed
                .iter()
                .enumerate()
                .map(|(i, q)| Ok((i.to_string(), parse(q, QueryStep::Index(i))?)))
                .collect::<Result<_>>()?;
            Ok((list, false))
        }
        other => Err(SearchError::parsing(format!(
            "[filters] of [{name}] must be an object of named queries or an array of queries, got [{other}]"
        ))),
    }
}

/// A boolean, as Elasticsearch reads one (`true`, or the string `"true"`).
pub(super) fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
#[path = "filters_tests.rs"]
mod tests;
