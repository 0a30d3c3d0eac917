//! Numeric `range` as Elasticsearch 8 answers it: exactly the requested
//! ranges (no buckets filling the gaps between them), sorted by `from`
//! then `to`, overlapping ranges allowed (a document counts in each range
//! it falls in, its sub-aggregations and percentiles too), keys and ends
//! as Java writes doubles (`*-100.0`, `from: 100.0`), `keyed`, custom
//! keys, `format`, below `terms` and under a sibling pipeline; counts,
//! sums and percentiles checked against a model of the documents. `missing`
//! of `range` and of `date_range` (a date in the field's format).

use serde_json::{json, Value};
use strata_search::Catalog;

use crate::numeric_percentiles::{aggs, all, index, model};

/// Documents `n` (double) and `int_field`, tag a/b, over several segments.
fn docs() -> (tempfile::TempDir, Catalog, Vec<(String, f64)>) {
    let rows: Vec<(String, f64)> = (0..60)
        .map(|i: i64| {
            let tag = if i % 4 == 0 { "a" } else { "b" };
            (tag.to_string(), ((i * 53) % 61) as f64 * 1.5 - 20.0)
        })
        .collect();
    let docs: Vec<Value> = rows
        .iter()
        .map(|(tag, n)| json!({"string_field": tag, "n": n, "int_field": *n as i64}))
        .collect();
    let (tmp, catalog) = index(&docs, 9);
    (tmp, catalog, rows)
}

/// The values in `[from, to)` (`None`: unbounded) among `rows` of `tag`.
fn inside(
    rows: &[(String, f64)],
    tag: Option<&str>,
    from: Option<f64>,
    to: Option<f64>,
) -> Vec<f64> {
    rows.iter()
        .filter(|r| tag.is_none_or(|t| r.0 == t))
        .map(|r| r.1)
        .filter(|v| from.is_none_or(|f| *v >= f) && to.is_none_or(|t| *v < t))
        .collect()
}

/// `bucket`'s count, `sum` and percentiles 10/50/90 against `values`.
fn check(bucket: &Value, values: &[f64], at: &str) {
    assert_eq!(bucket["doc_count"], json!(values.len()), "{at}: {bucket}");
    let sum: f64 = values.iter().sum();
    let got = bucket["s"]["value"].as_f64().unwrap();
    assert!((got - sum).abs() < 1e-9, "{at} sum: {got} against {sum}");
    for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
        let got = &bucket["p"]["values"][key];
        if values.is_empty() {
            assert!(got.is_null(), "{at} p{p}: {got}");
            continue;
        }
        let want = model(values, p);
        let got = got.as_f64().unwrap_or(f64::NAN);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{at} p{p}: {got} against {want}"
        );
    }
}

fn subs() -> Value {
    json!({"s": {"sum": {"field": "n"}},
           "p": {"percentiles": {"field": "n", "percents": [10, 50, 90]}}})
}

#[test]
fn only_the_requested_ranges_no_gap_buckets() {
    let (_tmp, catalog, rows) = docs();
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"range": {"field": "int_field",
            "ranges": [{"to": 15}, {"from": 20, "to": 30}, {"from": 30}]}}}),
    );
    let buckets = out["r"]["buckets"].as_array().unwrap();
    let keys: Vec<&str> = buckets.iter().map(|b| b["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["*-15.0", "20.0-30.0", "30.0-*"]);
    let ints: Vec<(String, f64)> = rows
        .iter()
        .map(|(t, n)| (t.clone(), (*n as i64) as f64))
        .collect();
    for (b, (from, to)) in buckets.iter().zip([
        (None, Some(15.0)),
        (Some(20.0), Some(30.0)),
        (Some(30.0), None),
    ]) {
        let want = inside(&ints, None, from, to).len();
        assert_eq!(b["doc_count"], json!(want), "{b}");
    }
}

#[test]
fn overlapping_ranges_count_a_document_in_each() {
    let (_tmp, catalog, rows) = docs();
    // Out of order on purpose: the buckets come sorted by from, then to.
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"range": {"field": "n",
            "ranges": [{"from": 20, "to": 40}, {"to": 30}, {"from": 0}, {"from": 0, "to": 25}, {"from": 500}]},
            "aggs": subs()},
            "best": {"max_bucket": {"buckets_path": "r>s"}}}),
    );
    let buckets = out["r"]["buckets"].as_array().unwrap();
    let expect = [
        ("*-30.0", None, Some(30.0)),
        ("0.0-25.0", Some(0.0), Some(25.0)),
        ("0.0-*", Some(0.0), None),
        ("20.0-40.0", Some(20.0), Some(40.0)),
        ("500.0-*", Some(500.0), None),
    ];
    assert_eq!(buckets.len(), expect.len(), "{out}");
    let mut best = f64::NEG_INFINITY;
    for (b, (key, from, to)) in buckets.iter().zip(expect) {
        assert_eq!(b["key"], json!(key));
        let values = inside(&rows, None, from, to);
        check(b, &values, key);
        best = best.max(values.iter().sum());
    }
    // Some document is in two ranges: the counts add up past the total.
    let total: u64 = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert!(total > rows.len() as u64);
    assert!(
        (out["best"]["value"].as_f64().unwrap() - best).abs() < 1e-9,
        "{out}"
    );
    // Below `terms`, per tag.
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": {
            "r": {"range": {"field": "n", "ranges": [{"from": 10}, {"to": 20}]}, "aggs": subs()}}}}),
    );
    for t in out["t"]["buckets"].as_array().unwrap() {
        let tag = t["key"].as_str().unwrap();
        let r = t["r"]["buckets"].as_array().unwrap();
        assert_eq!(r.len(), 2);
        check(
            &r[0],
            &inside(&rows, Some(tag), None, Some(20.0)),
            "terms > *-20",
        );
        check(
            &r[1],
            &inside(&rows, Some(tag), Some(10.0), None),
            "terms > 10-*",
        );
    }
}

#[test]
fn keys_and_ends_as_elasticsearch_writes_them() {
    // The example of Elasticsearch's `range` documentation.
    let (_tmp, catalog, rows) = docs();
    let body = json!({"r": {"range": {"field": "n",
        "ranges": [{"to": 100}, {"from": 100, "to": 200}, {"from": 200}]}}});
    let out = aggs(&catalog, all(), body);
    let low = inside(&rows, None, None, Some(100.0)).len();
    let written = serde_json::to_string(&out["r"]).unwrap();
    assert_eq!(
        written,
        format!(
            r#"{{"buckets":[{{"doc_count":{low},"key":"*-100.0","to":100.0}},{{"doc_count":0,"from":100.0,"key":"100.0-200.0","to":200.0}},{{"doc_count":0,"from":200.0,"key":"200.0-*"}}]}}"#
        )
    );
    // Keyed, custom keys beside a default one: buckets by key, without
    // their `key` (as Elasticsearch writes keyed ranges).
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"range": {"field": "n", "keyed": true,
            "ranges": [{"to": 0, "key": "neg"}, {"from": 0, "to": 50}, {"from": 50, "key": "high"}]}}}),
    );
    assert_eq!(
        out["r"]["buckets"],
        json!({
            "neg": {"to": 0.0, "doc_count": inside(&rows, None, None, Some(0.0)).len()},
            "0.0-50.0": {"from": 0.0, "to": 50.0,
                         "doc_count": inside(&rows, None, Some(0.0), Some(50.0)).len()},
            "high": {"from": 50.0, "doc_count": inside(&rows, None, Some(50.0), None).len()},
        })
    );
    // A format writes the ends' strings, and the default key in it.
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"range": {"field": "n", "format": "0.00", "ranges": [{"from": 1.5, "to": 30}]}}}),
    );
    assert_eq!(
        out["r"]["buckets"],
        json!([{"key": "1.50-30.00", "from": 1.5, "from_as_string": "1.50", "to": 30.0,
                "to_as_string": "30.00", "doc_count": inside(&rows, None, Some(1.5), Some(30.0)).len()}])
    );
}

/// Forty documents of `field(i)` with `n` i and `double_field` 1, and
/// eight without that field, their `n` 100..107 and `double_field` 2.
fn with_and_without(field: impl Fn(i64) -> Value) -> (tempfile::TempDir, Catalog) {
    let mut docs: Vec<Value> = (0..40)
        .map(|i: i64| {
            let mut doc = field(i);
            doc["n"] = json!(i as f64);
            doc["double_field"] = json!(1.0);
            doc
        })
        .collect();
    docs.extend((0..8).map(|i: i64| json!({"n": 100.0 + i as f64, "double_field": 2.0})));
    index(&docs, 7)
}

/// The sub-aggregations `check` reads, and `d`, the sum of `double_field`.
fn missing_subs() -> Value {
    json!({"s": {"sum": {"field": "n"}},
           "p": {"percentiles": {"field": "n", "percents": [10, 50, 90]}},
           "d": {"sum": {"field": "double_field"}}})
}

/// The `n` of `with_and_without`'s documents `lo..hi`, and of those
/// without the field when `missing`.
fn with(lo: i64, hi: i64, missing: bool) -> Vec<f64> {
    let mut v: Vec<f64> = (lo..hi).map(|i| i as f64).collect();
    if missing {
        v.extend((0..8).map(|i| 100.0 + f64::from(i)));
    }
    v
}

/// `missing`: documents without the field count in every range holding
/// the value, with their sub-aggregations (a `sum` of another field and
/// `percentiles`, computed per bucket then) and top hits; ranges not
/// holding it are unchanged. A `missing` that is not a number is a 400.
#[test]
fn missing_counts_in_the_ranges_holding_it() {
    let (_tmp, catalog) = with_and_without(|i| json!({"int_field": i}));
    let sub = missing_subs();
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"range": {"field": "int_field", "missing": 25,
                               "ranges": [{"to": 10}, {"from": 20, "to": 30}, {"from": 22}]},
                     "aggs": sub}}),
    );
    let buckets = out["r"]["buckets"].as_array().unwrap();
    check(&buckets[0], &with(0, 10, false), "*-10.0");
    check(&buckets[1], &with(20, 30, true), "20.0-30.0");
    check(&buckets[2], &with(22, 40, true), "22.0-*");
    // The documents without the field hold `double_field` 2.
    assert_eq!(buckets[1]["d"]["value"], json!(10.0 + 16.0), "{out}");
    assert_eq!(buckets[0]["d"]["value"], json!(10.0), "{out}");
    let body = json!({"size": 0, "aggs": {"r": {"range": {"field": "int_field", "missing": "x",
                                                          "ranges": [{"to": 1}]}}}});
    let err = crate::common::try_search(&catalog, &body).unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
}

/// `date_range`'s (and `range`'s on a date field) `missing`: a date in the
/// field's format; documents without the field count in every range
/// holding it, with their sub-aggregations; a `missing` outside every
/// range changes nothing; one that is not a date is a 400.
#[test]
fn date_missing_counts_in_the_ranges_holding_it() {
    const DAY: i64 = 86_400_000;
    const JAN_1_2024: i64 = 1_704_067_200_000;
    let (_tmp, catalog) = with_and_without(|i| json!({"s": JAN_1_2024 + i * DAY}));
    let sub = missing_subs();
    // `s` is `yyyy/MM/dd||epoch_millis`: day 25 is 2024/01/26.
    let ranges = json!([{"to": "2024/01/11"}, {"from": "2024/01/21", "to": "2024/01/31"},
                        {"from": "2024/01/23"}]);
    for kind in ["date_range", "range"] {
        let out = aggs(
            &catalog,
            all(),
            json!({"r": {kind: {"field": "s", "missing": "2024/01/26", "ranges": ranges},
                         "aggs": sub}}),
        );
        let buckets = out["r"]["buckets"].as_array().unwrap();
        check(&buckets[0], &with(0, 10, false), kind);
        check(&buckets[1], &with(20, 30, true), kind);
        check(&buckets[2], &with(22, 40, true), kind);
        assert_eq!(buckets[1]["key"], "2024/01/21-2024/01/31", "{out}");
        // The documents without the field hold `double_field` 2.
        assert_eq!(buckets[1]["d"]["value"], json!(10.0 + 16.0), "{out}");
    }
    // In the gap between the ranges (date math in the field's format),
    // nothing moves.
    let out = aggs(
        &catalog,
        all(),
        json!({"r": {"date_range": {"field": "s", "missing": "2024/01/11||+4d",
                                    "ranges": ranges}, "aggs": sub}}),
    );
    let buckets = out["r"]["buckets"].as_array().unwrap();
    check(&buckets[0], &with(0, 10, false), "in the gap");
    check(&buckets[1], &with(20, 30, false), "in the gap");
    check(&buckets[2], &with(22, 40, false), "in the gap");
    for bad in [json!("not a date"), json!({}), json!(true)] {
        let body = json!({"size": 0, "aggs": {"r": {"date_range": {"field": "s", "missing": bad,
                                                                  "ranges": [{"to": "now"}]}}}});
        let err = crate::common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
    }
}
