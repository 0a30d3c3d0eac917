//! Numeric `percentiles` at every depth (the top level, under `terms`,
//! `histogram`, `date_histogram` fixed and calendar, `filter`,
//! `filters`, `range`, two levels of buckets) give Elasticsearch 8's
//! exact answers for few values, negative and large values included;
//! past 2,000 values each answer stays within the stated bound (1% of
//! the data's span) of the exact one, checked against a sorted model.

use proptest::prelude::*;
use serde_json::{json, Value};
use strata_search::Catalog;

use crate::numeric_percentiles::{aggs, all, index, model, rank_model};

/// Documents `tag` a/b, `n` values, `t` an hour apart in two days.
fn mixed() -> (tempfile::TempDir, Catalog, Vec<(String, f64, i64)>) {
    let rows: Vec<(String, f64, i64)> = (0..40)
        .map(|i: i64| {
            let tag = if i % 3 == 0 { "a" } else { "b" };
            let n = ((i * 37) % 41) as f64 * 2.5 - 30.0;
            (tag.to_string(), n, 1_704_067_200_000 + i * 3_600_000)
        })
        .collect();
    let docs: Vec<Value> = rows
        .iter()
        .map(|(tag, n, t)| json!({"string_field": tag, "n": n, "t": t}))
        .collect();
    let (tmp, catalog) = index(&docs, 7);
    (tmp, catalog, rows)
}

/// Checks a bucket's percentiles at 10/50/90 against `values`.
fn check(bucket: &Value, values: &[f64], at: &str) {
    for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
        let got = bucket["p"]["values"][key].as_f64().unwrap_or(f64::NAN);
        let want = model(values, p);
        let within = 1e-12 * want.abs().max(1.0);
        assert!(
            (got - want).abs() <= within,
            "{at} p{p}: {got} against {want}"
        );
    }
}

const PCT: &str = r#"{"p": {"percentiles": {"field": "n", "percents": [10, 50, 90]}}}"#;

#[test]
fn every_depth_gives_the_exact_answers() {
    let (_tmp, catalog, rows) = mixed();
    let pct: Value = serde_json::from_str(PCT).unwrap();
    let values = |keep: &dyn Fn(&(String, f64, i64)) -> bool| -> Vec<f64> {
        rows.iter().filter(|r| keep(r)).map(|r| r.1).collect()
    };
    // The top level, and under a `filter`.
    let out = aggs(&catalog, all(), pct.clone());
    check(&out, &values(&|_| true), "top");
    let out = aggs(
        &catalog,
        all(),
        json!({"f": {"filter": {"term": {"string_field": "a"}}, "aggs": pct}}),
    );
    check(&out["f"], &values(&|r| r.0 == "a"), "filter");
    // `terms`, and `terms` > `histogram` (two levels).
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": {
            "p": pct["p"], "h": {"histogram": {"field": "n", "interval": 50}, "aggs": pct}}}}),
    );
    for bucket in out["t"]["buckets"].as_array().unwrap() {
        let tag = bucket["key"].as_str().unwrap().to_string();
        check(bucket, &values(&|r| r.0 == tag), "terms");
        for h in bucket["h"]["buckets"].as_array().unwrap() {
            let low = h["key"].as_f64().unwrap();
            let inside = values(&|r| r.0 == tag && r.1 >= low && r.1 < low + 50.0);
            check(h, &inside, "terms > histogram");
        }
    }
    // `date_histogram`: fixed (`time_buckets`' pass), calendar, and with
    // bounds (tantivy's buckets, one scan for their percentiles; empty
    // buckets have null values).
    let day = 86_400_000i64;
    let jan1 = 1_704_067_200_000i64;
    let bounds = json!({"min": jan1 - day, "max": jan1 + 3 * day});
    for interval in [
        json!({"fixed_interval": "6h"}),
        json!({"calendar_interval": "1d"}),
        json!({"fixed_interval": "12h", "min_doc_count": 0, "extended_bounds": bounds}),
    ] {
        let mut params = json!({"field": "t"});
        for (k, v) in interval.as_object().unwrap() {
            params[k] = v.clone();
        }
        let hours = match params.get("fixed_interval").and_then(Value::as_str) {
            Some("6h") => 6,
            Some(_) => 12,
            None => 24,
        };
        let width = hours * 3_600_000;
        let out = aggs(
            &catalog,
            all(),
            json!({"d": {"date_histogram": params, "aggs": pct}}),
        );
        let buckets = out["d"]["buckets"].as_array().unwrap();
        assert!(buckets.len() >= 2, "{out}");
        for bucket in buckets {
            let start = bucket["key"].as_f64().unwrap() as i64;
            let inside = values(&|r| r.2 >= start && r.2 < start + width);
            if inside.is_empty() {
                assert_eq!(bucket["p"]["values"]["50.0"], Value::Null, "{bucket}");
                continue;
            }
            check(bucket, &inside, "date_histogram");
        }
    }
    // `filters` and `range`.
    let out = aggs(
        &catalog,
        all(),
        json!({"fs": {"filters": {"filters": {"a": {"term": {"string_field": "a"}},
                                              "b": {"term": {"string_field": "b"}}}},
                      "aggs": pct},
               "r": {"range": {"field": "n", "ranges": [{"to": 0}, {"from": 0}]}, "aggs": pct}}),
    );
    check(
        &out["fs"]["buckets"]["a"],
        &values(&|r| r.0 == "a"),
        "filters a",
    );
    check(
        &out["fs"]["buckets"]["b"],
        &values(&|r| r.0 == "b"),
        "filters b",
    );
    let ranges = out["r"]["buckets"].as_array().unwrap();
    check(&ranges[0], &values(&|r| r.1 < 0.0), "range below 0");
    check(&ranges[1], &values(&|r| r.1 >= 0.0), "range from 0");
}

#[test]
fn negative_and_large_values_stay_exact() {
    for values in [
        vec![-1.0e9, -5.0, -4.5, 0.0, 3.0, 1.0e9],
        vec![1.0e15 + 1.0, 1.0e15 + 2.0, 1.0e15 + 4.0, 1.0e15 + 8.0],
        vec![-7.25; 5],
    ] {
        let docs: Vec<Value> = values.iter().map(|v| json!({"n": v})).collect();
        let (_tmp, catalog) = index(&docs, 2);
        let pct: Value = serde_json::from_str(PCT).unwrap();
        let out = aggs(&catalog, all(), pct.clone());
        check(&out, &values, "top");
        let out = aggs(
            &catalog,
            all(),
            json!({"f": {"filter": {"exists": {"field": "n"}}, "aggs": pct}}),
        );
        check(&out["f"], &values, "filter");
    }
}

/// The value at Elasticsearch's rank of `percent` in `sorted`.
fn exact(sorted: &[f64], percent: f64) -> f64 {
    model(sorted, percent)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, ..ProptestConfig::default() })]

    /// More than 2,000 values: each answer within 1% of the data's span
    /// of the exact one (the stated bound: 0.4% of the span per bucket,
    /// twice where parts of other bases merge, plus interpolation), at
    /// the top level and under a fixed `date_histogram` and `terms`.
    #[test]
    fn many_values_stay_within_the_bound(
        center in prop_oneof![Just(0.0), Just(-3.0e6), Just(5.0e11)],
        width in prop_oneof![Just(10.0), Just(1.0e4)],
        seed in 0u64..1_000,
    ) {
        let values: Vec<f64> = (0..4_500u64)
            .map(|i| {
                let x = ((i.wrapping_mul(2_654_435_761) ^ seed) % 10_007) as f64 / 10_007.0;
                center + width * (x * x - 0.3)
            })
            .collect();
        let docs: Vec<Value> = values
            .iter()
            .enumerate()
            .map(|(i, v)| json!({"n": v, "string_field": "k", "t": 1_704_067_200_000i64 + i as i64}))
            .collect();
        let (_tmp, catalog) = index(&docs, 1_500);
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let span = sorted[sorted.len() - 1] - sorted[0];
        let pct: Value = serde_json::from_str(PCT).unwrap();
        let out = aggs(
            &catalog,
            all(),
            json!({"p": pct["p"],
                   "d": {"date_histogram": {"field": "t", "fixed_interval": "1d"}, "aggs": pct},
                   "t": {"terms": {"field": "string_field"}, "aggs": pct}}),
        );
        for (at, result) in [
            ("top", &out["p"]),
            ("date_histogram", &out["d"]["buckets"][0]["p"]),
            ("terms", &out["t"]["buckets"][0]["p"]),
        ] {
            for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
                let got = result["values"][key].as_f64().unwrap();
                let want = exact(&sorted, p);
                prop_assert!((got - want).abs() <= span / 100.0,
                    "{} p{}: {} against {} (span {})", at, p, got, want, span);
            }
        }
    }
}

/// A bucket's answers are bounded by its own values' span, not the
/// field's: 3,000 values near 1e9 beside 3,000 near 0 (a base taken from
/// the whole field would leave the far bucket off by millions).
#[test]
fn each_bucket_keeps_its_own_precision() {
    let mut docs = Vec::new();
    let mut far = Vec::new();
    let mut near = Vec::new();
    for i in 0..3_000u32 {
        let f = 1.0e9 + f64::from((i * 7_919) % 3_000) / 10.0;
        let n = f64::from((i * 104_729) % 3_000);
        far.push(f);
        near.push(n);
        docs.push(json!({"n": f, "string_field": "far"}));
        docs.push(json!({"n": n, "string_field": "near"}));
    }
    let (_tmp, catalog) = index(&docs, 2_500);
    let pct: Value = serde_json::from_str(PCT).unwrap();
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field"}, "aggs": pct}}),
    );
    for bucket in out["t"]["buckets"].as_array().unwrap() {
        let values = if bucket["key"] == "far" { &far } else { &near };
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let span = sorted[sorted.len() - 1] - sorted[0];
        for (key, p) in [("10.0", 10.0), ("50.0", 50.0), ("90.0", 90.0)] {
            let got = bucket["p"]["values"][key].as_f64().unwrap();
            let want = model(&sorted, p);
            assert!(
                (got - want).abs() <= span / 100.0,
                "{} p{p}: {got} against {want}",
                bucket["key"]
            );
        }
    }
}

/// Under a keyword `terms` the batch finds buckets by each segment's term
/// ordinals: documents with several terms count in each of their buckets
/// (once each), terms missing from some segments, documents without the
/// keyword or without a value (`missing`), and two metrics in one batch,
/// all against the model.
#[test]
fn keyword_terms_batch_matches_the_model() {
    let mut rows: Vec<(Vec<String>, Option<f64>)> = Vec::new();
    for i in 0..120u32 {
        let mut tags: Vec<String> = match i % 5 {
            0 => vec![],
            1 => vec!["a".into(), "b".into()],
            _ => vec![["a", "b", "c"][(i % 3) as usize].into()],
        };
        // `rare` only in the last documents (the last segments).
        if i >= 110 {
            tags.push("rare".into());
        }
        let n = (i % 7 != 3).then(|| f64::from((i * 53) % 97) - 20.0);
        rows.push((tags, n));
    }
    let docs: Vec<Value> = rows
        .iter()
        .map(|(tags, n)| match n {
            Some(n) => json!({"string_field": tags, "n": n}),
            None => json!({"string_field": tags}),
        })
        .collect();
    let (_tmp, catalog) = index(&docs, 9);
    let out = aggs(
        &catalog,
        all(),
        json!({"t": {"terms": {"field": "string_field", "size": 10}, "aggs": {
            "p": {"percentiles": {"field": "n", "percents": [10, 50, 90], "missing": 500}},
            "r": {"percentile_ranks": {"field": "n", "values": [0, 30]}}}}}),
    );
    let buckets = out["t"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 4, "{out}");
    for bucket in buckets {
        let key = bucket["key"].as_str().unwrap();
        let inside: Vec<&(Vec<String>, Option<f64>)> = rows
            .iter()
            .filter(|r| r.0.iter().any(|t| t == key))
            .collect();
        assert_eq!(bucket["doc_count"], json!(inside.len()), "{key}");
        let with_missing: Vec<f64> = inside.iter().map(|r| r.1.unwrap_or(500.0)).collect();
        check(bucket, &with_missing, &format!("terms {key}"));
        let values: Vec<f64> = inside.iter().filter_map(|r| r.1).collect();
        for (at, x) in [("0.0", 0.0), ("30.0", 30.0)] {
            let got = bucket["r"]["values"][at].as_f64().unwrap();
            let want = rank_model(&values, x);
            assert!(
                (got - want).abs() <= 1e-9,
                "{key} rank of {x}: {got} against {want}"
            );
        }
    }
}

/// Below a number field's buckets the batch reads columns as numbers:
/// by blocks where every column has one value per document, else
/// document by document. Segments of both kinds here (bucket values and
/// metric values missing from some documents, several in others),
/// `histogram` and `range`, against the model; a document
/// counts once in each bucket it falls in, `missing` for one without a
/// metric value.
#[test]
fn number_field_batch_matches_the_model() {
    let mut rows: Vec<(Vec<i64>, Vec<f64>)> = Vec::new();
    for i in 0..180i64 {
        // The first 90 documents: one value each (dense segments).
        let dense = i < 90;
        let buckets = match i % 9 {
            0 if !dense => vec![],
            1 if !dense => vec![i % 40, (i + 3) % 40],
            _ => vec![i % 40],
        };
        let metric = match i % 7 {
            0 if !dense => vec![],
            1 if !dense => vec![(i * 3 % 50) as f64, -1.0],
            _ => vec![(i * 13 % 97) as f64 - 20.0],
        };
        rows.push((buckets, metric));
    }
    let docs: Vec<Value> = rows
        .iter()
        .map(|(b, m)| json!({"int_field": b, "n": m}))
        .collect();
    let (_tmp, catalog) = index(&docs, 30);
    let p = json!({"p": {"percentiles": {"field": "n", "percents": [10, 50, 90], "missing": 500}}});
    let out = aggs(
        &catalog,
        all(),
        json!({"h": {"histogram": {"field": "int_field", "interval": 10}, "aggs": p},
               "r": {"range": {"field": "int_field",
                               "ranges": [{"to": 15}, {"from": 15, "to": 30}, {"from": 30}]},
                     "aggs": p}}),
    );
    let in_bucket = |low: f64, high: f64| -> Vec<f64> {
        rows.iter()
            .filter(|(b, _)| b.iter().any(|&v| low <= v as f64 && (v as f64) < high))
            .flat_map(|(_, m)| if m.is_empty() { vec![500.0] } else { m.clone() })
            .collect()
    };
    for bucket in out["h"]["buckets"].as_array().unwrap() {
        let low = bucket["key"].as_f64().unwrap();
        check(
            bucket,
            &in_bucket(low, low + 10.0),
            &format!("histogram {low}"),
        );
    }
    let ranges = [
        (f64::NEG_INFINITY, 15.0),
        (15.0, 30.0),
        (30.0, f64::INFINITY),
    ];
    let got = out["r"]["buckets"].as_array().unwrap();
    assert_eq!(got.len(), 3, "{out}");
    for (bucket, (low, high)) in got.iter().zip(ranges) {
        check(
            bucket,
            &in_bucket(low, high),
            &format!("range {low}..{high}"),
        );
    }
}
