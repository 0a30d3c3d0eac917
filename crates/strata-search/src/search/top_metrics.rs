//! `top_metrics`: the metrics of a bucket's best documents by one sort
//! (parameters typed by the tree's parse, [`TopMetricsParams`]). Like
//! `top_hits` (whose path it follows) each one is a search of its own
//! over the bucket's query (see `deferred`): at most `size` (≤ 10) hits,
//! sorted by the criterion through the search's own sort machinery (so a
//! `_score` sort scores, and a multi-valued field sorts by its smallest
//! value ascending, its largest descending, as Elasticsearch does), no
//! `_source`, the metrics read as `docvalue_fields`. Documents without a
//! value of the sort field are left out (Elasticsearch's bucketed sort
//! never collects them).
//!
//! The reply is Elasticsearch 8's: `{"top": [{"sort": [v], "metrics":
//! {field: value}}]}`; dates (a sort value or a metric) are formatted in
//! the field's format, booleans are `true`/`false`, a metric the document
//! lacks (or whose field is unmapped) is `null`, a multi-valued metric
//! gives its smallest value.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::agg_tree::TopMetricsParams;
use super::docvalues;
use super::reentry::SearchFn;
use super::request::{SearchRequest, TrackTotalHits};
use super::scan_aggs::values::ValueKind;
use super::source_filter::SourceFilter;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::date::format_millis;
use crate::mapping::{FieldType, Mappings};
use crate::query::ParsedQuery;

/// Checks `params`' fields against `mappings` (the first index's, named
/// `index`) before its search runs: metrics of a type aggregations read,
/// a sort field of a numeric, date or boolean type (or `_score`).
fn check(params: &TopMetricsParams, mappings: &Mappings, index: &str) -> Result<()> {
    for field in &params.metrics {
        ValueKind::of(mappings, field, "top_metrics")?;
    }
    let field = params.sort.field.as_str();
    if field == "_score" {
        return Ok(());
    }
    let Some(leaf) = mappings.leaf(field) else {
        return Err(SearchError::illegal(format!(
            "No mapping found for [{field}] in order to sort on"
        )));
    };
    match leaf.ty {
        FieldType::Text => {
            ValueKind::of(mappings, field, "top_metrics")?;
            Ok(())
        }
        t if t.is_integer() || t.is_float() || t == FieldType::Date || t == FieldType::Boolean => {
            Ok(())
        }
        t => Err(SearchError::illegal(format!(
            "error building sort for field [{field}] of type [{}] in index [{index}]: only supported on numeric fields",
            t.name()
        ))),
    }
}

/// The search of `params` over the documents matching `query`.
fn request(params: &TopMetricsParams, query: &ParsedQuery) -> Result<SearchRequest> {
    let mut req = SearchRequest::parse(&Value::Null)?;
    let field = &params.sort.field;
    req.query = if field == "_score" {
        query.clone()
    } else {
        query.filtered(&[ParsedQuery::parse(json!({"exists": {"field": field}}))?])
    };
    req.size = params.size;
    req.sort = vec![params.sort.clone()];
    req.source = SourceFilter::None;
    req.docvalue_fields = docvalues::parse(&json!(params.metrics))?;
    req.track_total_hits = TrackTotalHits::Off;
    Ok(req)
}

/// Runs `top_metrics` `params` over the documents matching `query` in the
/// snapshot and slice of `outer` (the search it is part of), its hits
/// reserved on the search's memory; `search` runs the search.
pub(crate) fn run(
    search: SearchFn,
    indices: &[Arc<SearchIndex>],
    params: &TopMetricsParams,
    query: &ParsedQuery,
    outer: &SearchRequest,
) -> Result<Value> {
    let mappings = indices.first().map(|i| i.mappings()).unwrap_or_default();
    let index = indices.first().map_or("", |i| i.name());
    check(params, &mappings, index)?;
    let mut req = request(params, query)?;
    req.memory = outer.memory.clone();
    req.snapshot = outer.snapshot.clone();
    req.slice = outer.slice.clone();
    let response = search(indices, &req)?.into_value();
    let hits = response["hits"]["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let top: Vec<Value> = hits
        .iter()
        .map(|hit| render(params, &mappings, hit))
        .collect();
    Ok(json!({ "top": top }))
}

/// One hit as a `top` entry.
fn render(params: &TopMetricsParams, mappings: &Mappings, hit: &Value) -> Value {
    let sort_type = mappings.leaf(&params.sort.field).map(|l| l.ty);
    // A search sorted by score alone may show the score only as `_score`.
    let shown = match &hit["sort"][0] {
        Value::Null if params.sort.field == "_score" => &hit["_score"],
        v => v,
    };
    let sort_value = match (shown, sort_type) {
        (Value::Number(n), Some(FieldType::Date)) => n
            .as_f64()
            .map_or(Value::Null, |ms| json!(format_millis(ms as i64))),
        (Value::Number(n), Some(FieldType::Boolean)) => json!(n.as_f64() != Some(0.0)),
        (v, _) => v.clone(),
    };
    let mut metrics = Map::new();
    for field in &params.metrics {
        let value = hit["fields"][field.as_str()]
            .as_array()
            .and_then(|values| values.first())
            .cloned()
            .unwrap_or(Value::Null);
        metrics.insert(field.clone(), value);
    }
    json!({"sort": [sort_value], "metrics": metrics})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::sort::SortField;

    fn params(sort: &str) -> TopMetricsParams {
        TopMetricsParams {
            metrics: vec!["m".into(), "gone".into()],
            sort: SortField::plain(sort),
            size: 1,
        }
    }

    #[test]
    fn a_hit_renders_its_sort_and_first_metric_values() {
        let mappings = Mappings::default();
        let hit = json!({"sort": [3], "fields": {"m": [2.5, 7.0]}});
        assert_eq!(
            render(&params("s"), &mappings, &hit),
            json!({"sort": [3], "metrics": {"m": 2.5, "gone": null}})
        );
    }

    #[test]
    fn the_search_keeps_only_documents_with_a_sort_value() {
        let query = ParsedQuery::parse(json!({"match_all": {}})).unwrap();
        let req = request(&params("s"), &query).unwrap();
        assert!(format!("{:?}", req.query.json()).contains("exists"));
        assert_eq!((req.size, req.sort.len()), (1, 1));
        let scored = request(&params("_score"), &query).unwrap();
        assert!(!format!("{:?}", scored.query.json()).contains("exists"));
    }
}
