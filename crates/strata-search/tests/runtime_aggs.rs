//! Aggregations and sorts on runtime fields (`runtime_mappings` and the
//! mapping's `runtime` section) over two shards and several segments,
//! checked against values computed here from the documents.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

use crate::common::key_counts;

/// `n` of document `i`: none for every 7th, otherwise distinct.
fn n_of(i: i64) -> Option<i64> {
    (i % 7 != 0).then_some((i * 37) % 61)
}

fn setup(catalog: &Catalog) {
    let index = catalog
        .create_index(
            "ra",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {
                    "properties": {"n": {"type": "long"}},
                    "runtime": {"parity": {"type": "keyword",
                        "script": "if (doc['n'].size() > 0) { emit(doc['n'].value % 2 == 0 ? 'even' : 'odd') }"}}
                }
            }),
        )
        .unwrap();
    for i in 0..60i64 {
        let doc = match n_of(i) {
            Some(n) => json!({ "n": n }),
            None => json!({}),
        };
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i % 20 == 19 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("ra").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

/// `tripled`: 3n; `tag`: "t" + (n % 4), and "many" as well when n > 15.
fn runtime_mappings() -> Value {
    json!({
        "tripled": {"type": "long", "script":
            "if (doc['n'].size() > 0) { emit(doc['n'].value * 3) }"},
        "half": {"type": "double", "script":
            "if (doc['n'].size() > 0) { emit(doc['n'].value / 2.0) }"},
        "tag": {"type": "keyword", "script":
            "if (doc['n'].size() > 0) { emit('t' + (doc['n'].value % 4)); if (doc['n'].value > 15) { emit('many') } }"}
    })
}

fn values() -> Vec<i64> {
    (0..60).filter_map(n_of).collect()
}

#[test]
fn aggregations_on_runtime_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let resp = run(
        &catalog,
        json!({
            "size": 0,
            "runtime_mappings": runtime_mappings(),
            "aggs": {
                "tags": {"terms": {"field": "tag", "size": 3}},
                "by_key": {"terms": {"field": "tripled", "order": {"_key": "desc"}, "size": 100}},
                "parity": {"terms": {"field": "parity"}},
                "h": {"histogram": {"field": "tripled", "interval": 10}},
                "r": {"range": {"field": "half", "ranges": [{"from": 5, "to": 8}, {"to": 5}, {"from": 8}]}},
                "avg": {"avg": {"field": "tripled"}},
                "sum": {"sum": {"field": "half"}},
                "min": {"min": {"field": "tripled"}},
                "max": {"max": {"field": "tripled"}},
                "stats": {"stats": {"field": "tripled"}},
                "count": {"value_count": {"field": "tag"}},
                "distinct": {"cardinality": {"field": "tag"}},
                "plain": {"max": {"field": "n"}}
            }
        }),
    )
    .unwrap();
    let aggs = &resp["aggregations"];
    let ns = values();
    // terms on a keyword runtime field, with a second value for some.
    let mut tags: BTreeMap<String, u64> = BTreeMap::new();
    for &n in &ns {
        *tags.entry(format!("t{}", n % 4)).or_default() += 1;
        if n > 15 {
            *tags.entry("many".into()).or_default() += 1;
        }
    }
    let mut want: Vec<(String, u64)> = tags.clone().into_iter().collect();
    want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(key_counts(&aggs["tags"]), want[..3].to_vec());
    let other: u64 = want[3..].iter().map(|w| w.1).sum();
    assert_eq!(aggs["tags"]["sum_other_doc_count"], json!(other));
    // terms on a long runtime field, by key descending: integer keys.
    let mut by_key: BTreeMap<i64, u64> = BTreeMap::new();
    for &n in &ns {
        *by_key.entry(n * 3).or_default() += 1;
    }
    let want: Vec<Value> = by_key
        .iter()
        .rev()
        .map(|(k, c)| json!({"key": k, "doc_count": c}))
        .collect();
    assert_eq!(aggs["by_key"]["buckets"], json!(want));
    // The mapping's runtime field.
    let even = ns.iter().filter(|n| *n % 2 == 0).count() as u64;
    let odd = ns.len() as u64 - even;
    let mut want = vec![
        json!({"key": "even", "doc_count": even}),
        json!({"key": "odd", "doc_count": odd}),
    ];
    if odd > even {
        want.reverse();
    }
    assert_eq!(aggs["parity"]["buckets"], json!(want));
    // histogram: every bucket between the first and last, empty ones too.
    let mut h: BTreeMap<i64, u64> = BTreeMap::new();
    for &n in &ns {
        *h.entry((n * 3) / 10).or_default() += 1;
    }
    let (lo, hi) = (*h.keys().next().unwrap(), *h.keys().last().unwrap());
    let want: Vec<Value> = (lo..=hi)
        .map(|k| json!({"key": (k * 10) as f64, "doc_count": h.get(&k).copied().unwrap_or(0)}))
        .collect();
    assert_eq!(aggs["h"]["buckets"], json!(want));
    // range: sorted by from, keys written as Elasticsearch writes doubles.
    let halves: Vec<f64> = ns.iter().map(|&n| n as f64 / 2.0).collect();
    let count = |f: &dyn Fn(f64) -> bool| halves.iter().filter(|&&v| f(v)).count() as u64;
    assert_eq!(
        aggs["r"]["buckets"],
        json!([
            {"key": "*-5.0", "to": 5.0, "doc_count": count(&|v| v < 5.0)},
            {"key": "5.0-8.0", "from": 5.0, "to": 8.0, "doc_count": count(&|v| (5.0..8.0).contains(&v))},
            {"key": "8.0-*", "from": 8.0, "doc_count": count(&|v| v >= 8.0)}
        ])
    );
    // Metrics.
    let tripled: Vec<i64> = ns.iter().map(|n| n * 3).collect();
    let sum: i64 = tripled.iter().sum();
    let len = tripled.len() as f64;
    let min = *tripled.iter().min().unwrap() as f64;
    let max = *tripled.iter().max().unwrap() as f64;
    assert_eq!(aggs["avg"]["value"], json!(sum as f64 / len));
    assert_eq!(aggs["sum"]["value"], json!(halves.iter().sum::<f64>()));
    assert_eq!(aggs["min"]["value"], json!(min));
    assert_eq!(aggs["max"]["value"], json!(max));
    assert_eq!(
        aggs["stats"],
        json!({"count": tripled.len(), "min": min, "max": max, "avg": sum as f64 / len, "sum": sum as f64})
    );
    assert_eq!(aggs["count"]["value"], json!(tags.values().sum::<u64>()));
    assert_eq!(aggs["distinct"]["value"], json!(tags.len()));
    // A mapped field's aggregation beside them is tantivy's as before.
    assert_eq!(
        aggs["plain"]["value"],
        json!(*ns.iter().max().unwrap() as f64)
    );

    // With a query: only the matching documents count.
    let resp = run(
        &catalog,
        json!({
            "size": 0,
            "runtime_mappings": runtime_mappings(),
            "query": {"range": {"tripled": {"gte": 30}}},
            "aggs": {"c": {"value_count": {"field": "tripled"}}, "s": {"sum": {"field": "tripled"}}}
        }),
    )
    .unwrap();
    let big: Vec<i64> = tripled.iter().copied().filter(|&t| t >= 30).collect();
    assert_eq!(resp["aggregations"]["c"]["value"], json!(big.len()));
    assert_eq!(
        resp["aggregations"]["s"]["value"],
        json!(big.iter().sum::<i64>() as f64)
    );
}

/// Metric and bucket sub-aggregations below runtime `terms`, `histogram`
/// and `range`, checked against the documents' values.
#[test]
fn sub_aggregations_below_runtime_buckets() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let resp = run(
        &catalog,
        json!({"size": 0, "runtime_mappings": runtime_mappings(), "aggs": {
            "t": {"terms": {"field": "tag", "size": 10}, "aggs": {
                "s": {"sum": {"field": "n"}},
                "h": {"histogram": {"field": "tripled", "interval": 50},
                      "aggs": {"m": {"max": {"field": "n"}}}}}},
            "r": {"range": {"field": "tripled", "ranges": [{"to": 60}, {"from": 60}]}, "aggs": {
                "c": {"value_count": {"field": "n"}},
                "p": {"terms": {"field": "parity"}}}}
        }}),
    )
    .unwrap();
    let tags_of = |n: i64| {
        let mut tags = vec![format!("t{}", n % 4)];
        if n > 15 {
            tags.push("many".to_string());
        }
        tags
    };
    let mut by_tag: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for n in values() {
        for tag in tags_of(n) {
            by_tag.entry(tag).or_default().push(n);
        }
    }
    let buckets = resp["aggregations"]["t"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), by_tag.len(), "{resp}");
    for b in buckets {
        let ns = &by_tag[b["key"].as_str().unwrap()];
        assert_eq!(b["doc_count"], ns.len());
        assert_eq!(
            b["s"]["value"].as_f64(),
            Some(ns.iter().sum::<i64>() as f64)
        );
        // Histogram of 3n by 50, each bucket's largest n.
        let mut most: BTreeMap<i64, i64> = BTreeMap::new();
        for &n in ns {
            let e = most.entry((3 * n).div_euclid(50) * 50).or_insert(n);
            *e = (*e).max(n);
        }
        let hist = b["h"]["buckets"].as_array().unwrap();
        let filled = hist.iter().filter(|x| x["doc_count"] != 0).count();
        assert_eq!(filled, most.len(), "{b}");
        for x in hist {
            match most.get(&(x["key"].as_f64().unwrap() as i64)) {
                Some(m) => assert_eq!(x["m"]["value"].as_f64(), Some(*m as f64), "{x}"),
                None => {
                    assert_eq!(x["doc_count"], 0);
                    assert!(x["m"]["value"].is_null(), "{x}");
                }
            }
        }
    }
    let ranges = resp["aggregations"]["r"]["buckets"].as_array().unwrap();
    assert_eq!(ranges.len(), 2);
    for (b, (lo, hi)) in ranges.iter().zip([(i64::MIN, 60), (60, i64::MAX)]) {
        let ns: Vec<i64> = values()
            .into_iter()
            .filter(|n| 3 * n >= lo && 3 * n < hi)
            .collect();
        assert_eq!(b["doc_count"], ns.len(), "{b}");
        assert_eq!(b["c"]["value"], ns.len());
        let even = ns.iter().filter(|n| *n % 2 == 0).count() as u64;
        let mut want = BTreeMap::new();
        for (key, count) in [("even", even), ("odd", ns.len() as u64 - even)] {
            if count > 0 {
                want.insert(key.to_string(), count);
            }
        }
        let got: BTreeMap<String, u64> = b["p"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["key"].as_str().unwrap().to_string(),
                    x["doc_count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{b}");
    }
}

/// A numeric string is the number in a histogram's `interval` and
/// `offset`, as Elasticsearch (and the histogram over a mapped field)
/// reads them.
#[test]
fn histogram_numbers_may_be_strings() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let histogram = |interval: Value, offset: Value| {
        let aggs = json!({"h": {"histogram": {"field": "tripled", "interval": interval,
            "offset": offset, "min_doc_count": 1}}});
        run(
            &catalog,
            json!({"size": 0, "runtime_mappings": runtime_mappings(), "aggs": aggs}),
        )
        .map(|resp| resp["aggregations"]["h"].clone())
    };
    let numbers = histogram(json!(10), json!(5)).unwrap();
    let mut want: BTreeMap<i64, u64> = BTreeMap::new();
    for n in values() {
        *want.entry((n * 3 - 5).div_euclid(10) * 10 + 5).or_default() += 1;
    }
    let keys: Vec<(i64, u64)> = numbers["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["key"].as_f64().unwrap() as i64,
                b["doc_count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(keys, want.into_iter().collect::<Vec<_>>());
    let strings = histogram(json!("10"), json!("5")).unwrap();
    assert_eq!(strings, numbers);
    let e = histogram(json!("ten"), json!(0)).unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
}

#[test]
fn runtime_aggregation_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let bad = [
        // A sub-aggregation below a metric on a runtime field.
        json!({"a": {"avg": {"field": "tripled"}, "aggs": {"m": {"max": {"field": "n"}}}}}),
        // A numeric aggregation on a keyword runtime field.
        json!({"a": {"avg": {"field": "tag"}}}),
        json!({"h": {"histogram": {"field": "tripled", "interval": 0}}}),
        json!({"t": {"terms": {"field": "tag", "size": 0}}}),
        json!({"t": {"terms": {"field": "tag", "include": "t.*"}}}),
    ];
    for aggs in bad {
        let e = run(
            &catalog,
            json!({"size": 0, "runtime_mappings": runtime_mappings(), "aggs": aggs}),
        )
        .unwrap_err();
        assert_eq!(e.status(), 400, "{aggs}: {e}");
    }
    // A failing script is the request's script_exception.
    let boom = json!({"boom": {"type": "long", "script": "emit(doc['n'].value / 0)"}});
    let e = run(
        &catalog,
        json!({"size": 0, "runtime_mappings": boom, "aggs": {"s": {"sum": {"field": "boom"}}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
    assert_eq!(e.es_type(), "script_exception");
}

fn sorted_ids(resp: &Value) -> Vec<(i64, Value)> {
    resp["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["_id"].as_str().unwrap().parse().unwrap(),
                h["sort"][0].clone(),
            )
        })
        .collect()
}

#[test]
fn sorting_on_runtime_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    for descending in [false, true] {
        let order = if descending { "desc" } else { "asc" };
        let resp = run(
            &catalog,
            json!({
                "size": 100,
                "runtime_mappings": runtime_mappings(),
                "sort": [{"tripled": order}, {"_doc": "asc"}]
            }),
        )
        .unwrap();
        let got: Vec<(i64, Value)> = sorted_ids(&resp);
        // Documents without a value last, either way; ties in any order,
        // so compare the values' sequence and the set of ids per value.
        let mut want: Vec<(Option<i64>, i64)> =
            (0..60).map(|i| (n_of(i).map(|n| n * 3), i)).collect();
        want.sort_by(|a, b| match (a.0, b.0) {
            (None, None) => std::cmp::Ordering::Equal,
            (None, _) => std::cmp::Ordering::Greater,
            (_, None) => std::cmp::Ordering::Less,
            (Some(x), Some(y)) if descending => y.cmp(&x),
            (Some(x), Some(y)) => x.cmp(&y),
        });
        let got_values: Vec<Value> = got.iter().map(|g| g.1.clone()).collect();
        let want_values: Vec<Value> = want.iter().map(|w| json!(w.0)).collect();
        assert_eq!(got_values, want_values, "{order}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(n_of(g.0).map(|n| n * 3), w.0);
        }
    }
    // A keyword runtime field with several values sorts by the smallest
    // ascending, the largest descending; paging with search_after.
    let key = |n: i64, descending: bool| {
        let mut tags = vec![format!("t{}", n % 4)];
        if n > 15 {
            tags.push("many".into());
        }
        tags.sort();
        if descending {
            tags.pop().unwrap()
        } else {
            tags.remove(0)
        }
    };
    for descending in [false, true] {
        let order = if descending { "desc" } else { "asc" };
        let mut after: Option<Value> = None;
        let mut seen = Vec::new();
        loop {
            let mut body = json!({
                "size": 7,
                "runtime_mappings": runtime_mappings(),
                "query": {"exists": {"field": "n"}},
                "sort": [{"tag": order}, {"n": "asc"}]
            });
            if let Some(a) = &after {
                body["search_after"] = a.clone();
            }
            let resp = run(&catalog, body).unwrap();
            let hits = resp["hits"]["hits"].as_array().unwrap();
            if hits.is_empty() {
                break;
            }
            for h in hits {
                let id: i64 = h["_id"].as_str().unwrap().parse().unwrap();
                assert_eq!(h["sort"][0], json!(key(n_of(id).unwrap(), descending)));
                seen.push(id);
            }
            after = Some(hits.last().unwrap()["sort"].clone());
        }
        let mut want: Vec<i64> = (0..60).filter(|&i| n_of(i).is_some()).collect();
        want.sort_by(|&a, &b| {
            let (ka, kb) = (
                key(n_of(a).unwrap(), descending),
                key(n_of(b).unwrap(), descending),
            );
            let by_key = if descending { kb.cmp(&ka) } else { ka.cmp(&kb) };
            by_key.then(n_of(a).cmp(&n_of(b)))
        });
        assert_eq!(seen, want, "{order}");
    }
    // A failing script while sorting is the request's script_exception.
    let boom = json!({"boom": {"type": "long", "script": "emit(doc['n'].value / 0)"}});
    let e = run(
        &catalog,
        json!({"runtime_mappings": boom, "sort": ["boom"]}),
    )
    .unwrap_err();
    assert_eq!(e.es_type(), "script_exception", "{e}");
}
