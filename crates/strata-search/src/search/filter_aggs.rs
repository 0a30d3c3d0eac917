//! The `filter` aggregation at the top level of `aggs`: `{"filter":
//! {<query>}, "aggs": {...}}` answers `{"doc_count": N, <sub-aggregations>}`
//! over the documents that match both the search's query and the filter.
//!
//! Each one is computed by its own search pass with the query
//! `bool { must: [search query], filter: [filter query] }`, size 0 and the
//! sub-aggregations as that pass's top-level `aggs`, so every aggregation
//! the engine supports at the top level (tantivy's and the geo ones, and
//! `filter` itself) works beneath it. [`split`] takes them out of the
//! request; `filter` below another aggregation goes to tantivy's filter
//! aggregation instead (`agg_filters`), where geo sub-aggregations are
//! not available.

use serde_json::{json, Map, Value};

use crate::error::{Result, SearchError};
use crate::query::ParsedQuery;

/// One top-level `filter` aggregation.
#[derive(Debug, Clone)]
pub struct FilterAgg {
    /// Its name in `aggs`.
    pub name: String,
    /// The filter query, parsed.
    pub filter: ParsedQuery,
    /// Sub-aggregations, as written.
    pub aggs: Option<Value>,
}

impl FilterAgg {
    /// The query of this aggregation's pass under the search query `query`.
    pub fn query(&self, query: &ParsedQuery) -> ParsedQuery {
        query.filtered(std::slice::from_ref(&self.filter))
    }

    /// The aggregation's result from its pass's `hits.total.value` and
    /// `aggregations`.
    pub fn result(doc_count: u64, aggregations: Option<&Value>) -> Value {
        let mut out = Map::new();
        out.insert("doc_count".into(), json!(doc_count));
        if let Some(Value::Object(subs)) = aggregations {
            out.extend(subs.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Value::Object(out)
    }
}

/// Takes the top-level `filter` aggregations out of `aggs`; returns them and
/// the rest (`None` when nothing is left).
pub fn split(aggs: &Value) -> Result<(Vec<FilterAgg>, Option<Value>)> {
    let Some(obj) = aggs.as_object() else {
        return Ok((Vec::new(), Some(aggs.clone())));
    };
    let mut filters = Vec::new();
    let mut rest = Map::new();
    for (name, body) in obj {
        match parse(name, body)? {
            Some(f) => filters.push(f),
            None => {
                rest.insert(name.clone(), body.clone());
            }
        }
    }
    Ok((filters, (!rest.is_empty()).then_some(Value::Object(rest))))
}

fn parse(name: &str, body: &Value) -> Result<Option<FilterAgg>> {
    let Some(obj) = body.as_object() else {
        return Ok(None);
    };
    let Some(filter) = obj.get("filter") else {
        return Ok(None);
    };
    let mut aggs = None;
    for (k, v) in obj {
        match k.as_str() {
            "filter" => {}
            "aggs" | "aggregations" => {
                if !v.is_object() {
                    return Err(SearchError::parsing(format!(
                        "Expected [START_OBJECT] under [{k}] of [{name}]"
                    )));
                }
                aggs = Some(v.clone());
            }
            "meta" => {
                return Err(SearchError::illegal(
                    "[meta] on aggregations is not supported",
                ))
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "Found two aggregation type definitions in [{name}]: [filter] and [{other}]"
                )))
            }
        }
    }
    if filter.as_object().is_none_or(|o| o.is_empty()) {
        return Err(SearchError::parsing(format!(
            "[filter] of aggregation [{name}] must be a query object, got [{filter}]"
        )));
    }
    Ok(Some(FilterAgg {
        name: name.to_string(),
        filter: ParsedQuery::parse(filter.clone())?,
        aggs: aggs.filter(|a| a.as_object().is_some_and(|o| !o.is_empty())),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_checks() {
        let aggs = json!({
            "f": {"filter": {"term": {"a": 1}}, "aggs": {"t": {"terms": {"field": "b"}}}},
            "x": {"terms": {"field": "b"}}
        });
        let (filters, rest) = split(&aggs).unwrap();
        assert_eq!(filters.len(), 1);
        assert_eq!(filters[0].name, "f");
        assert!(rest.unwrap().get("x").is_some());
        assert!(split(&json!({"f": {"filter": {}}})).is_err());
        assert!(split(&json!({"f": {"filter": {"match_all": {}}, "terms": {}}})).is_err());
        let r = FilterAgg::result(3, Some(&json!({"t": {"value": 1}})));
        assert_eq!(r, json!({"doc_count": 3, "t": {"value": 1}}));
    }
}
