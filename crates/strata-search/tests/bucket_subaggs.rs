//! Sub-aggregations computed per bucket: `top_hits` (size, from, sort,
//! `_source` filtering) under `terms`, `histogram`, `date_histogram`,
//! `filters` and at the top level; `geo_centroid` and `geohash_grid` under
//! `terms`; each checked against values computed here from the same
//! documents.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

const TAGS: [&str; 3] = ["red", "green", "blue"];

fn doc(i: u64) -> Value {
    json!({
        "tag": TAGS[(i % 3) as usize],
        "price": ((i * 37) % 101) as f64 + 0.5,
        "t": 1_704_067_200_000u64 + (i % 4) * 86_400_000,
        "loc": {"lat": (i % 10) as f64, "lon": (i % 7) as f64},
        "note": format!("item {i}"),
    })
}

fn setup(n: u64) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "items",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "tag": {"type": "keyword"}, "price": {"type": "double"},
                    "t": {"type": "date"}, "loc": {"type": "geo_point"}, "note": {"type": "text"}}}
            }),
        )
        .unwrap();
    for i in 0..n {
        index
            .index_document(
                Some(&i.to_string()),
                doc(i).to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i % 20 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("items").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

fn hit_ids(agg: &Value) -> Vec<u64> {
    agg["hits"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits in {agg}"))
        .iter()
        .map(|h| h["_id"].as_str().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn top_hits_per_terms_bucket_sorted_and_filtered() {
    let n = 60;
    let (_tmp, c) = setup(n);
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"tags": {"terms": {"field": "tag"}, "aggs": {
            "best": {"top_hits": {"size": 2, "from": 1, "sort": [{"price": "desc"}],
                                  "_source": {"includes": ["price"]}}}}}}}),
    )
    .unwrap();
    let buckets = r["aggregations"]["tags"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 3);
    for b in buckets {
        let tag = b["key"].as_str().unwrap();
        let mut ids: Vec<u64> = (0..n).filter(|i| TAGS[(i % 3) as usize] == tag).collect();
        ids.sort_by(|a, b| {
            doc(*b)["price"]
                .as_f64()
                .partial_cmp(&doc(*a)["price"].as_f64())
                .unwrap()
        });
        let best = &b["best"];
        assert_eq!(best["hits"]["total"]["value"], b["doc_count"]);
        assert_eq!(hit_ids(best), ids[1..3].to_vec(), "{tag}");
        let first = &best["hits"]["hits"][0];
        assert_eq!(first["_source"], json!({"price": doc(ids[1])["price"]}));
        assert_eq!(first["sort"], json!([doc(ids[1])["price"]]));
        assert_eq!(first["_index"], "items");
    }
}

#[test]
fn top_hits_under_dates_filters_and_at_top_level() {
    let n = 40;
    let (_tmp, c) = setup(n);
    let r = run(
        &c,
        json!({"size": 0, "query": {"range": {"price": {"gte": 20}}},
        "aggs": {
          "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                   "aggs": {"cheap": {"top_hits": {"size": 1, "sort": [{"price": "asc"}]}}}},
          "f": {"filters": {"filters": {"r": {"term": {"tag": "red"}}}},
                "aggs": {"one": {"top_hits": {"size": 1, "sort": ["price"]}}}},
          "all": {"top_hits": {"size": 3, "sort": [{"price": {"order": "desc"}}], "_source": false}}
        }}),
    )
    .unwrap();
    let matching: Vec<u64> = (0..n)
        .filter(|i| doc(*i)["price"].as_f64().unwrap() >= 20.0)
        .collect();
    let cheapest = |ids: Vec<u64>| {
        *ids.iter()
            .min_by(|a, b| {
                doc(**a)["price"]
                    .as_f64()
                    .partial_cmp(&doc(**b)["price"].as_f64())
                    .unwrap()
            })
            .unwrap()
    };
    let days = r["aggregations"]["days"]["buckets"].as_array().unwrap();
    assert_eq!(days.len(), 4);
    for (d, b) in days.iter().enumerate() {
        let in_day: Vec<u64> = matching
            .iter()
            .copied()
            .filter(|i| i % 4 == d as u64)
            .collect();
        assert_eq!(hit_ids(&b["cheap"]), vec![cheapest(in_day)], "day {d}");
    }
    let reds: Vec<u64> = matching.iter().copied().filter(|i| i % 3 == 0).collect();
    assert_eq!(
        hit_ids(&r["aggregations"]["f"]["buckets"]["r"]["one"]),
        vec![cheapest(reds)]
    );
    let all = &r["aggregations"]["all"];
    assert_eq!(all["hits"]["total"]["value"], matching.len());
    assert_eq!(hit_ids(all).len(), 3);
    assert!(all["hits"]["hits"][0].get("_source").is_none());
}

#[test]
fn geo_aggregations_below_terms() {
    let n = 50;
    let (_tmp, c) = setup(n);
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"tags": {"terms": {"field": "tag"}, "aggs": {
            "c": {"geo_centroid": {"field": "loc"}},
            "g": {"geohash_grid": {"field": "loc", "precision": 1}}}}}}),
    )
    .unwrap();
    for b in r["aggregations"]["tags"]["buckets"].as_array().unwrap() {
        let tag = b["key"].as_str().unwrap();
        let ids: Vec<u64> = (0..n).filter(|i| TAGS[(i % 3) as usize] == tag).collect();
        let lat = ids.iter().map(|i| (i % 10) as f64).sum::<f64>() / ids.len() as f64;
        let lon = ids.iter().map(|i| (i % 7) as f64).sum::<f64>() / ids.len() as f64;
        assert_eq!(b["c"]["count"], ids.len());
        // Within a step of Lucene's encoding, which points are stored in.
        assert!((b["c"]["location"]["lat"].as_f64().unwrap() - lat).abs() < 1e-7);
        assert!((b["c"]["location"]["lon"].as_f64().unwrap() - lon).abs() < 1e-7);
        let cells: u64 = b["g"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["doc_count"].as_u64().unwrap())
            .sum();
        assert_eq!(cells, ids.len() as u64, "{tag}: every point is in one cell");
    }
}

#[test]
fn bad_sub_aggregations_are_400s() {
    let (_tmp, c) = setup(5);
    let cases = [
        json!({"terms": {"field": "tag"}, "aggs": {"h": {"top_hits": {"size": 1, "bogus": 1}}}}),
        json!({"terms": {"field": "tag"}, "aggs": {"h": {"top_hits": {"size": 101}}}}),
        json!({"terms": {"field": "tag"}, "aggs": {"h": {"top_hits": {"sort": [{"note": "asc"}]}}}}),
        json!({"top_hits": {"size": 1}, "aggs": {"x": {"max": {"field": "price"}}}}),
        json!({"terms": {"field": "tag"}, "aggs": {"g": {"geohash_grid": {"field": "loc", "precision": 13}}}}),
        json!({"terms": {"field": "tag"}, "aggs": {"c": {"geo_centroid": {"field": "price"}}}}),
    ];
    for agg in cases {
        let e = run(&c, json!({"size": 0, "aggs": {"a": agg}})).unwrap_err();
        assert_eq!(e.status(), 400, "{agg}: {e}");
    }
}

#[test]
fn top_hits_below_boolean_and_numeric_terms() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "flags",
            &json!({"settings": {"refresh_interval": "-1"},
                    "mappings": {"properties": {"ok": {"type": "boolean"}, "n": {"type": "long"}}}}),
        )
        .unwrap();
    for i in 0..10u64 {
        let doc = json!({"ok": i % 3 == 0, "n": i % 2});
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    let r = search(
        &catalog.resolve("flags").unwrap(),
        &SearchRequest::parse(&json!({"size": 0, "aggs": {
            "ok": {"terms": {"field": "ok"}, "aggs": {"h": {"top_hits": {"size": 10}}}},
            "n": {"terms": {"field": "n"}, "aggs": {"h": {"top_hits": {"size": 10}}}}}}))
        .unwrap(),
    )
    .unwrap();
    let ok = r["aggregations"]["ok"]["buckets"].as_array().unwrap();
    assert_eq!(
        (ok[0]["key"].clone(), ok[0]["key_as_string"].clone()),
        (json!(0), json!("false"))
    );
    for name in ["ok", "n"] {
        for b in r["aggregations"][name]["buckets"].as_array().unwrap() {
            assert_eq!(
                b["h"]["hits"]["total"]["value"], b["doc_count"],
                "{name}: {b}"
            );
        }
    }
}

/// Elasticsearch reads a histogram's `interval` written as a string
/// (`"25"`) as the number: the buckets, and the documents the per-bucket
/// passes below them search, are those of `25` (the string form once left
/// `top_hits` right below the histogram refused, and the one below its
/// `terms` buckets searching every histogram bucket's documents).
#[test]
fn top_hits_below_histograms_whatever_the_interval_form() {
    let n = 60;
    let (_tmp, c) = setup(n);
    let price = |i: u64| doc(i)["price"].as_f64().unwrap();
    let top = json!({"top_hits": {"size": 100, "_source": false}});
    let sorted = |mut ids: Vec<u64>| {
        ids.sort_unstable();
        ids
    };
    for interval in [json!(25), json!("25")] {
        for direct in [false, true] {
            let mut subs = json!({"tags": {"terms": {"field": "tag"}, "aggs": {"top": top}}});
            if direct {
                subs["top"] = top.clone();
            }
            let r = run(
                &c,
                json!({"size": 0, "aggs": {"h": {
                    "histogram": {"field": "price", "interval": interval}, "aggs": subs}}}),
            )
            .unwrap_or_else(|e| panic!("interval {interval}: {e}"));
            let buckets = r["aggregations"]["h"]["buckets"].as_array().unwrap();
            assert_eq!(buckets.len(), 5, "interval {interval}");
            for b in buckets {
                let from = b["key"].as_f64().unwrap();
                let in_bucket = |i: &u64| (from..from + 25.0).contains(&price(*i));
                if direct {
                    let ids: Vec<u64> = (0..n).filter(in_bucket).collect();
                    assert_eq!(sorted(hit_ids(&b["top"])), ids, "{interval}, {from}");
                }
                for t in b["tags"]["buckets"].as_array().unwrap() {
                    let tag = t["key"].as_str().unwrap();
                    let ids: Vec<u64> = (0..n)
                        .filter(|i| in_bucket(i) && TAGS[(i % 3) as usize] == tag)
                        .collect();
                    assert_eq!(sorted(hit_ids(&t["top"])), ids, "{interval}, {from}, {tag}");
                }
            }
        }
    }
}
