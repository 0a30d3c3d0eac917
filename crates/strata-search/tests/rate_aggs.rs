//! `rate` under `date_histogram`, as Elasticsearch 8 answers it: a
//! bucket's documents, or the sum or count of a field's values, per
//! `unit` of the bucket's length (a month's own days for a month over
//! days), also under a `terms` inside the histogram; its refusals.

use crate::common;

use serde_json::{json, Value};
use strata_search::Catalog;

/// `sales`: three documents in January 2024, two in February, one in
/// March, over two shards and several segments; `price` on all but one,
/// `type` a/b.
fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"date": {"type": "date"}, "price": {"type": "double"},
               "type": {"type": "keyword"}}),
    );
    let docs = [
        json!({"date": "2024-01-01T10:00:00Z", "price": 200, "type": "a"}),
        json!({"date": "2024-01-01T11:30:00Z", "price": 10, "type": "b"}),
        json!({"date": "2024-01-17", "price": 150, "type": "a"}),
        json!({"date": "2024-02-01", "price": 50, "type": "a"}),
        json!({"date": "2024-02-28", "type": "b"}),
        json!({"date": "2024-03-05", "price": 175.5, "type": "a"}),
    ];
    common::index_in_pairs(&index, &docs);
    (tmp, catalog)
}

fn monthly(catalog: &Catalog, sub: Value) -> Vec<Value> {
    let body = json!({"size": 0, "aggs": {"by_date": {
        "date_histogram": {"field": "date", "calendar_interval": "month"},
        "aggs": sub}}});
    let resp = common::search_logs(catalog, &body);
    resp["aggregations"]["by_date"]["buckets"]
        .as_array()
        .unwrap()
        .clone()
}

fn values(buckets: &[Value], name: &str) -> Vec<Value> {
    buckets.iter().map(|b| b[name]["value"].clone()).collect()
}

#[test]
fn documents_and_sums_per_unit_of_each_bucket() {
    let (_tmp, catalog) = setup();
    // Elasticsearch's documented example: monthly buckets as yearly rates.
    let b = monthly(&catalog, json!({"r": {"rate": {"unit": "year"}}}));
    assert_eq!(values(&b, "r"), [json!(36.0), json!(24.0), json!(12.0)]);
    // Per day: each month's own days (2024 is a leap year).
    let b = monthly(
        &catalog,
        json!({"r": {"rate": {"field": "price", "unit": "day"}}}),
    );
    assert_eq!(
        values(&b, "r"),
        [json!(360.0 / 31.0), json!(50.0 / 29.0), json!(175.5 / 31.0)]
    );
    // value_count counts values (February's second document has none);
    // no unit: the bucket's own total.
    let b = monthly(
        &catalog,
        json!({"c": {"rate": {"field": "price", "mode": "value_count", "unit": "month"}},
               "s": {"rate": {"field": "price"}}}),
    );
    assert_eq!(values(&b, "c"), [json!(3.0), json!(1.0), json!(1.0)]);
    assert_eq!(values(&b, "s"), [json!(360.0), json!(50.0), json!(175.5)]);
}

#[test]
fn fixed_intervals_terms_inside_and_empty_buckets() {
    let (_tmp, catalog) = setup();
    let body = json!({"size": 0, "query": {"range": {"date": {"lt": "2024-01-02"}}},
        "aggs": {"h": {"date_histogram": {"field": "date", "fixed_interval": "1h", "min_doc_count": 0},
            "aggs": {"per_min": {"rate": {"field": "price", "unit": "minute"}},
                     "t": {"terms": {"field": "type"},
                           "aggs": {"r": {"rate": {"unit": "second"}}}}}}}});
    let resp = common::search_logs(&catalog, &body);
    let buckets = resp["aggregations"]["h"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 2, "{buckets:?}");
    assert_eq!(
        values(buckets, "per_min"),
        [json!(200.0 / 60.0), json!(10.0 / 60.0)]
    );
    let inner = &buckets[0]["t"]["buckets"][0];
    assert_eq!(
        (inner["key"].clone(), inner["r"]["value"].clone()),
        (json!("a"), json!(1.0 / 3600.0))
    );
}

#[test]
fn misplaced_or_mixed_units_are_refused() {
    let (_tmp, catalog) = setup();
    for (aggs, reason) in [
        (
            json!({"r": {"rate": {"unit": "day"}}}),
            "The rate aggregation can only be used inside a date histogram",
        ),
        (
            json!({"h": {"date_histogram": {"field": "date", "fixed_interval": "30s"},
                "aggs": {"r": {"rate": {"field": "price", "unit": "month"}}}}}),
            "Cannot use month-based rate unit [month] with fixed interval based histogram",
        ),
        (
            json!({"h": {"date_histogram": {"field": "date", "calendar_interval": "month"},
                "aggs": {"r": {"rate": {"field": "type", "unit": "day"}}}}}),
            "Field [type] of type [keyword] is not supported for aggregation [rate]",
        ),
        (
            json!({"c": {"composite": {"sources": [{"d": {"date_histogram": {"field": "date", "calendar_interval": "day"}}}]},
                "aggs": {"r": {"rate": {"unit": "hour"}}}}}),
            "[rate] aggregation [r] under a [composite] aggregation is not supported by this server",
        ),
    ] {
        let err = common::try_search(&catalog, &json!({"size": 0, "aggs": aggs})).unwrap_err();
        assert!(err.to_string().contains(reason), "{err}");
    }
}
