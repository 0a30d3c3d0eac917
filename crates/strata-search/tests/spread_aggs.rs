//! `boxplot` and `median_absolute_deviation` as Elasticsearch 8.15
//! answers them: its REST tests' numbers (`analytics/boxplot.yml`,
//! `median_absolute_deviation_metric.yml`, `empty_field_metric.yml`),
//! `missing`, `format`, empty and unmapped fields, every bucket kind that
//! batches them and a `filter` that does not, more than 2,000 values over
//! several segments, and the refusals (400s, never a panic).

use crate::common;
use crate::numeric_percentiles::{aggs, all, index};

use serde_json::{json, Value};
use strata_search::Catalog;

/// boxplot.yml's `load_time` (2, 3, 5, 10, 15 and a document without
/// one) in `double_field`, its runtime field's values (20, 30, 50, 10000
/// for 10, 150) in `int_field`, each document's group in `string_field`.
fn latency() -> (tempfile::TempDir, Catalog) {
    let docs: Vec<Value> = [(2, 20), (3, 30), (5, 50), (10, 10000), (15, 150)]
        .iter()
        .enumerate()
        .map(|(i, &(load, adjusted))| {
            json!({"double_field": f64::from(load), "int_field": adjusted,
                   "string_field": if i % 2 == 0 { "even" } else { "odd" }, "n": i})
        })
        .chain([json!({"string_field": "none"})])
        .collect();
    index(&docs, 2)
}

fn one(catalog: &Catalog, kind: &str, params: Value) -> Value {
    aggs(catalog, all(), json!({"a": {kind: params}}))["a"].clone()
}

#[test]
fn elasticsearchs_boxplot_rest_test_numbers() {
    let (_tmp, catalog) = latency();
    let plot = |params| one(&catalog, "boxplot", params);
    assert_eq!(
        plot(json!({"field": "double_field"})),
        json!({"min": 2.0, "max": 15.0, "q1": 3.0, "q2": 5.0, "q3": 10.0,
               "lower": 2.0, "upper": 15.0})
    );
    assert_eq!(
        plot(json!({"field": "double_field", "missing": 10000})),
        json!({"min": 2.0, "max": 10000.0, "q1": 3.5, "q2": 7.5, "q3": 13.75,
               "lower": 2.0, "upper": 15.0})
    );
    // "Search With Runtime Field"'s numbers, from an integer field.
    assert_eq!(
        plot(json!({"field": "int_field", "compression": 200, "execution_hint": "default"})),
        json!({"min": 20.0, "max": 10000.0, "q1": 30.0, "q2": 50.0, "q3": 150.0,
               "lower": 20.0, "upper": 150.0})
    );
    // With a format, each number also as a string.
    let out = plot(json!({"field": "double_field", "format": "0.00"}));
    assert_eq!(out["q3_as_string"], "10.00");
    assert_eq!(out["upper_as_string"], "15.00");
    assert_eq!(out["q1"], 3.0);
    assert_eq!(out.as_object().unwrap().len(), 14);
}

#[test]
fn elasticsearchs_median_absolute_deviation_rest_test_numbers() {
    let docs = [
        json!({"int_field": 100, "double_field": 100.0, "n": 1000}),
        json!({"int_field": 200, "double_field": 200.0, "n": 2000}),
        json!({"int_field": 300, "double_field": 300.0}),
    ];
    let (_tmp, catalog) = index(&docs, 2);
    let mad = |params| one(&catalog, "median_absolute_deviation", params);
    for params in [
        json!({"field": "int_field"}),
        json!({"field": "double_field"}),
        json!({"field": "int_field", "compression": 500}),
        json!({"field": "int_field", "execution_hint": "high_accuracy"}),
        json!({"field": "int_field", "execution_hint": "default"}),
    ] {
        assert_eq!(mad(params.clone()), json!({"value": 100.0}), "{params}");
    }
    assert_eq!(
        mad(json!({"field": "n", "missing": 3000})),
        json!({"value": 1000.0})
    );
    assert_eq!(
        mad(json!({"field": "n", "format": "0.0"})),
        json!({"value": 500.0, "value_as_string": "500.0"})
    );
    // "no documents": null, and no string even with a format.
    let none = json!({"bool": {"filter": {"term": {"non_existent_field": "x"}}}});
    let out = aggs(
        &catalog,
        none,
        json!({"m": {"median_absolute_deviation": {"field": "non_existent_field", "format": "0"}}}),
    );
    assert_eq!(out["m"], json!({"value": null}));
    // "bad arguments" and the execution hint's refusal.
    for (params, words) in [
        (
            json!({"field": "int_field", "compression": 0}),
            "[compression] must be greater than 0. Found [0.0] in [mad]",
        ),
        (
            json!({"field": "int_field", "compression": -1}),
            "[compression] must be greater than 0. Found [-1.0] in [mad]",
        ),
        (
            json!({"field": "int_field", "execution_hint": "no_such_hint"}),
            "Invalid execution_hint [no_such_hint], valid values are [default, high_accuracy]",
        ),
    ] {
        let body = json!({"size": 0, "aggs": {"mad": {"median_absolute_deviation": params}}});
        let err = common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400, "{body}: {err}");
        assert!(err.to_string().contains(words), "{body}: {err}");
    }
}

#[test]
fn empty_and_unmapped_fields_read_as_elasticsearchs_empty_digest() {
    let (_tmp, catalog) = latency();
    let empty = json!({"min": "Infinity", "max": "-Infinity", "q1": "NaN", "q2": "NaN",
                       "q3": "NaN", "lower": "NaN", "upper": "-Infinity"});
    assert_eq!(one(&catalog, "boxplot", json!({"field": "nowhere"})), empty);
    // empty_field_metric.yml: a boxplot in buckets without values has
    // every number.
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field", "order": {"_key": "asc"}},
                     "aggs": {"b": {"boxplot": {"field": "double_field"}},
                              "m": {"median_absolute_deviation": {"field": "double_field"}}}}}),
    );
    let buckets = out["t"]["buckets"].as_array().unwrap();
    let none = buckets.iter().find(|b| b["key"] == "none").unwrap();
    assert_eq!(none["b"], empty);
    assert_eq!(none["m"], json!({"value": null}));
    // An unmapped field with `missing`: every document counts it.
    assert_eq!(
        one(
            &catalog,
            "median_absolute_deviation",
            json!({"field": "nowhere", "missing": 4})
        ),
        json!({"value": 0.0})
    );
}

/// The exact boxplot of `values` (Elasticsearch's sorting digest), for
/// comparison: min, max, q1, q2, q3.
fn exact(values: &[f64]) -> [f64; 5] {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let index = q * (v.len() - 1) as f64;
        let low = index.floor() as usize;
        let high = (low + 1).min(v.len() - 1);
        v[low] + (index - low as f64) * (v[high] - v[low])
    };
    [v[0], v[v.len() - 1], at(0.25), at(0.5), at(0.75)]
}

#[test]
fn every_bucket_kind_answers_as_its_own_search_would() {
    // 60 documents: `n` 0..60 (squares, so quartiles interpolate), groups
    // by `n % 3`.
    let docs: Vec<Value> = (0..60)
        .map(|i| {
            json!({"n": f64::from(i * i), "int_field": i, "t": i * 1000,
                   "string_field": format!("g{}", i % 3)})
        })
        .collect();
    let (_tmp, catalog) = index(&docs, 7);
    let metrics = json!({"b": {"boxplot": {"field": "n"}},
                         "m": {"median_absolute_deviation": {"field": "n"}}});
    let wrappers = [
        json!({"terms": {"field": "string_field"}}),
        json!({"histogram": {"field": "int_field", "interval": 20}}),
        json!({"range": {"field": "int_field", "ranges": [{"to": 20}, {"from": 20, "to": 45}, {"from": 45}]}}),
        json!({"date_histogram": {"field": "t", "fixed_interval": "20s"}}),
        json!({"filter": {"range": {"int_field": {"gte": 20, "lt": 45}}}}),
    ];
    for wrapper in wrappers {
        let mut agg = wrapper.clone();
        agg["aggs"] = metrics.clone();
        let out = aggs(&catalog, all(), json!({"w": agg}));
        let buckets = match out["w"]["buckets"].as_array() {
            Some(list) => list.clone(),
            None => vec![out["w"].clone()],
        };
        assert!(!buckets.is_empty(), "{wrapper}");
        for bucket in buckets {
            let values: Vec<f64> = (0..60)
                .filter(|&i| in_bucket(&wrapper, &bucket, i))
                .map(|i| f64::from(i * i))
                .collect();
            assert_eq!(values.len() as u64, bucket["doc_count"].as_u64().unwrap());
            let want = exact(&values);
            let b = &bucket["b"];
            let got = ["min", "max", "q1", "q2", "q3"].map(|k| b[k].as_f64().unwrap());
            assert_eq!(got, want, "{wrapper}: {bucket}");
            // The top level, filtered to the same documents, agrees.
            let top = aggs(&catalog, bucket_query(&wrapper, &bucket), metrics.clone());
            assert_eq!((&top["b"], &top["m"]), (b, &bucket["m"]), "{wrapper}");
        }
    }
}

/// Whether document `i` is in `bucket` of `wrapper`.
fn in_bucket(wrapper: &Value, bucket: &Value, i: i32) -> bool {
    if wrapper.get("terms").is_some() {
        return bucket["key"] == format!("g{}", i % 3);
    }
    if wrapper.get("filter").is_some() {
        return (20..45).contains(&i);
    }
    if wrapper.get("date_histogram").is_some() {
        let from = bucket["key"].as_i64().unwrap();
        return (from..from + 20_000).contains(&(i64::from(i) * 1000));
    }
    let from = bucket
        .get("from")
        .and_then(Value::as_f64)
        .unwrap_or(f64::NEG_INFINITY);
    let from = if wrapper.get("histogram").is_some() {
        bucket["key"].as_f64().unwrap()
    } else {
        from
    };
    let to = match wrapper.get("histogram") {
        Some(_) => from + 20.0,
        None => bucket
            .get("to")
            .and_then(Value::as_f64)
            .unwrap_or(f64::INFINITY),
    };
    (from..to).contains(&f64::from(i))
}

/// A query selecting `bucket`'s documents.
fn bucket_query(wrapper: &Value, bucket: &Value) -> Value {
    if wrapper.get("terms").is_some() {
        return json!({"term": {"string_field": bucket["key"]}});
    }
    if let Some(f) = wrapper.get("filter") {
        return f.clone();
    }
    if wrapper.get("date_histogram").is_some() {
        let from = bucket["key"].as_i64().unwrap();
        return json!({"range": {"t": {"gte": from, "lt": from + 20_000}}});
    }
    let (from, to) = if wrapper.get("histogram").is_some() {
        let low = bucket["key"].as_f64().unwrap();
        (json!(low), json!(low + 20.0))
    } else {
        (
            bucket.get("from").cloned().unwrap_or(Value::Null),
            bucket.get("to").cloned().unwrap_or(Value::Null),
        )
    };
    json!({"range": {"int_field": {"gte": from, "lt": to}}})
}

#[test]
fn past_two_thousand_values_answers_stay_near_the_exact_ones() {
    // 5,000 values 0..5000 shuffled over several segments per shard.
    let docs: Vec<Value> = (0..5000u64)
        .map(|i| json!({"n": ((i * 2999) % 5000) as f64}))
        .collect();
    let (_tmp, catalog) = index(&docs, 700);
    let b = one(&catalog, "boxplot", json!({"field": "n"}));
    let want = [0.0, 4999.0, 1249.75, 2499.5, 3749.25];
    for (k, w) in ["min", "max", "q1", "q2", "q3"].iter().zip(want) {
        let got = b[k].as_f64().unwrap();
        assert!((got - w).abs() <= 50.0, "{k}: {got} vs {w}");
    }
    let mad = one(&catalog, "median_absolute_deviation", json!({"field": "n"}));
    let got = mad["value"].as_f64().unwrap();
    assert!((got - 1250.0).abs() <= 50.0, "{got}");
}

#[test]
fn refusals_are_400s_in_elasticsearchs_words() {
    let (_tmp, catalog) = latency();
    for kind in ["boxplot", "median_absolute_deviation"] {
        for (params, words) in [
            (json!({"field": "string_field"}), format!("Field [string_field] of type [keyword] is not supported for aggregation [{kind}]")),
            (json!({"field": "t"}), format!("Field [t] of type [date] is not supported for aggregation [{kind}]")),
            (json!({"field": "flag"}), format!("Field [flag] of type [boolean] is not supported for aggregation [{kind}]")),
            (json!({"script": "doc['n'].value"}), "scripts are not supported".to_string()),
            (json!({"field": "n", "percents": [50]}), format!("[{kind}] unknown field [percents]")),
            (json!({"field": "n", "format": "0.0E0"}), "Invalid format".to_string()),
        ] {
            for wrap in [
                json!({"p": {kind: params.clone()}}),
                json!({"t": {"terms": {"field": "string_field"}, "aggs": {"p": {kind: params.clone()}}}}),
            ] {
                let body = json!({"size": 0, "aggs": wrap});
                let err = common::try_search(&catalog, &body).unwrap_err();
                assert_eq!(err.status(), 400, "{body}: {err}");
                assert!(err.to_string().contains(&words), "{body}: {err}");
            }
        }
        // No sub-aggregations; no ordering of terms by one.
        let body = json!({"size": 0, "aggs": {"p": {kind: {"field": "n"},
                          "aggs": {"x": {"max": {"field": "n"}}}}}});
        assert_eq!(
            common::try_search(&catalog, &body).unwrap_err().status(),
            400
        );
        let body = json!({"size": 0, "aggs": {"t": {
            "terms": {"field": "string_field", "order": {"p.q1": "desc"}},
            "aggs": {"p": {kind: {"field": "n"}}}}}});
        let err = common::try_search(&catalog, &body).unwrap_err();
        assert_eq!(err.status(), 400);
        assert!(
            err.to_string()
                .contains(&format!("[{kind}] sub-aggregation")),
            "{err}"
        );
    }
    let body = json!({"size": 0, "aggs": {"b": {"boxplot": {"field": "n", "compression": -1}}}});
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert!(
        err.to_string()
            .contains("[compression] must be greater than or equal to 0. Found [-1.0] in [b]"),
        "{err}"
    );
}

#[test]
fn pipelines_read_their_numbers() {
    let (_tmp, catalog) = latency();
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"},
                     "aggs": {"b": {"boxplot": {"field": "double_field"}},
                              "m": {"median_absolute_deviation": {"field": "double_field"}}}},
               "top_q2": {"max_bucket": {"buckets_path": "t>b.q2"}},
               "top_mad": {"max_bucket": {"buckets_path": "t>m"}}}),
    );
    // even: 2, 5, 15 (q2 5, deviations 3, 0, 10: 3); odd: 3, 10 (q2 6.5,
    // deviations 3.5 each); none: no value (a gap).
    assert_eq!(out["top_q2"]["value"], 6.5);
    assert_eq!(out["top_q2"]["keys"], json!(["odd"]));
    assert_eq!(out["top_mad"]["value"], 3.5);
}
