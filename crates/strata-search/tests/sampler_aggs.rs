//! The `sampler` and `diversified_sampler` aggregations as Elasticsearch
//! 8.15 answers them, over two one-shard indices (2 shards) of several
//! segments each: the sub-aggregations see each shard's best
//! `shard_size` documents by score (at most `max_docs_per_value` per value
//! of the field for `diversified_sampler`), the model of that sample
//! taken from the same query's hits on each shard alone; `doc_count` sums
//! the shards' samples; below a `terms` bucket, each bucket's documents
//! sampled; bad parameters refused with Elasticsearch's messages.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Value};
use strata_search::{search, Catalog, Result, SearchRequest};

use crate::common::{index_in_pairs, key_counts};

const PER_INDEX: usize = 40;
const INDICES: [&str; 2] = ["logs-a", "logs-b"];

/// The catalog: `logs-a` and `logs-b`, one shard each, refreshed every 5
/// documents. A document's `body` has `r` of its 10 words `x`, so its
/// score under `match x` rises with `r` (same length, same shard
/// statistics); `logs-b`'s are lower, so its best are not the best of
/// all. Every 11th has no `cat`.
fn catalog() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    for (x, name) in INDICES.iter().enumerate() {
        let body = json!({
            "settings": {"index": {"number_of_shards": 1, "refresh_interval": "-1"}},
            "mappings": {"properties": {"body": {"type": "text"}, "k": {"type": "keyword"},
                "cat": {"type": "keyword"}, "tag": {"type": "keyword"}, "n": {"type": "long"},
                "multi": {"type": "keyword"}}}
        });
        let index = catalog.create_index(name, &body).unwrap();
        let docs: Vec<Value> = (0..PER_INDEX)
            .map(|i| {
                let r = if x == 0 { (i * 7) % 10 } else { (i * 7) % 6 };
                let words: Vec<&str> = (0..10).map(|w| if w < r { "x" } else { "y" }).collect();
                let mut doc = json!({"body": words.join(" "), "k": format!("{x}-{i}"),
                    "tag": tag(i), "n": i % 4, "multi": ["m1", "m2"]});
                if i % 11 != 0 {
                    doc["cat"] = json!(["p", "q", "r"][i % 3]);
                }
                doc
            })
            .collect();
        index_in_pairs(&index, &docs);
    }
    (tmp, catalog)
}

/// A catalog with `logs-two`: 2 shards, 30 documents (ids `0`..`29`,
/// which route more than 4 to each shard).
fn two_shards() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let body = json!({"settings": {"index": {"number_of_shards": 2, "refresh_interval": "-1"}},
        "mappings": {"properties": {"n": {"type": "long"}}}});
    let index = catalog.create_index("logs-two", &body).unwrap();
    let docs: Vec<Value> = (0..30).map(|i| json!({"n": i})).collect();
    index_in_pairs(&index, &docs);
    (tmp, catalog)
}

fn tag(i: usize) -> &'static str {
    ["a", "b"][(i / 3) % 2]
}

/// The search `body` over `target`.
fn run(c: &Catalog, target: &str, body: &Value) -> Result<Value> {
    let indices = c.resolve(target).unwrap();
    SearchRequest::parse(body).and_then(|req| search(&indices, &req))
}

/// The sampler aggregation `agg` (`{"sampler": ...}` or
/// `{"diversified_sampler": ...}`) under `query` over both indices, with
/// the documents' ids and tags below it: (doc_count, ids, tag counts).
fn sampled(c: &Catalog, query: &Value, agg: Value) -> (u64, BTreeSet<String>, Vec<(String, u64)>) {
    let mut agg = agg;
    agg["aggs"] = json!({"ids": {"terms": {"field": "k", "size": 1000}},
        "tags": {"terms": {"field": "tag"}}});
    let body = json!({"size": 0, "query": query, "aggs": {"s": agg}});
    let out = run(c, "logs-*", &body).unwrap()["aggregations"]["s"].clone();
    let ids = key_counts(&out["ids"])
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    (
        out["doc_count"].as_u64().unwrap(),
        ids,
        key_counts(&out["tags"]),
    )
}

/// A response's hits, in order: (`k`, source).
fn hits(out: &Value) -> Vec<(String, Value)> {
    let hits = out["hits"]["hits"].as_array().unwrap();
    let k = |h: &Value| h["_source"]["k"].as_str().unwrap().to_string();
    hits.iter().map(|h| (k(h), h["_source"].clone())).collect()
}

/// Each shard's hits for `query` alone, best first.
fn ranked(c: &Catalog, query: &Value) -> Vec<Vec<(String, Value)>> {
    let body = json!({"size": 1000, "query": query});
    INDICES
        .iter()
        .map(|name| hits(&run(c, name, &body).unwrap()))
        .collect()
}

/// The model: per shard, its best documents taken in rank order while
/// fewer than `size` are taken and the document's `field` value (if
/// any field) has fewer than `per_value`.
fn model(
    shards: &[Vec<(String, Value)>],
    size: usize,
    diversify: Option<(&str, usize)>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for hits in shards {
        let mut taken = 0;
        let mut per: HashMap<String, usize> = HashMap::new();
        for (id, source) in hits {
            if taken == size {
                break;
            }
            if let Some((field, max)) = diversify {
                let seen = per.entry(source[field].to_string()).or_default();
                if *seen == max {
                    continue;
                }
                *seen += 1;
            }
            taken += 1;
            out.insert(id.clone());
        }
    }
    out
}

/// The tag counts of the documents `ids`, as a terms aggregation orders them.
fn tag_counts(ids: &BTreeSet<String>) -> Vec<(String, u64)> {
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for id in ids {
        let i: usize = id[2..].parse().unwrap();
        *counts.entry(tag(i)).or_default() += 1;
    }
    let mut out: Vec<(String, u64)> = counts
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[test]
fn sampler_takes_each_shards_best_documents() {
    let (_tmp, c) = catalog();
    let query = json!({"match": {"body": "x"}});
    let shards = ranked(&c, &query);
    let want = model(&shards, 5, None);
    assert_eq!(want.len(), 10);
    // The best of each shard, not the best of all.
    let best_of_all = run(&c, "logs-*", &json!({"size": 10, "query": query})).unwrap();
    let best_of_all: BTreeSet<String> = hits(&best_of_all).into_iter().map(|(k, _)| k).collect();
    assert_ne!(best_of_all, want);
    let (doc_count, ids, tags) = sampled(&c, &query, json!({"sampler": {"shard_size": 5}}));
    assert_eq!(ids, want);
    assert_eq!(doc_count, 10);
    assert_eq!(tags, tag_counts(&want));
    // The default: 100 a shard, more than either has.
    let matching: usize = shards.iter().map(Vec::len).sum();
    let (doc_count, _, _) = sampled(&c, &query, json!({"sampler": {}}));
    assert_eq!(doc_count, matching as u64);
    // Without a query every score is equal: the lower documents of each
    // shard, as the shard's own hits order them.
    // One index of 2 shards: each shard's sample, summed.
    let (_tmp2, two) = two_shards();
    let body = json!({"size": 0, "aggs": {"s": {"sampler": {"shard_size": 4},
        "aggs": {"m": {"max": {"field": "n"}}}}}});
    let out = run(&two, "logs-*", &body).unwrap();
    assert_eq!(out["aggregations"]["s"]["doc_count"], json!(8));
    let mut body = body;
    body["aggs"]["s"]["sampler"]["shard_size"] = json!(i32::MAX);
    let out = run(&two, "logs-*", &body).unwrap();
    assert_eq!(out["aggregations"]["s"]["doc_count"], json!(30));
    let all = json!({"match_all": {}});
    let want = model(&ranked(&c, &all), 3, None);
    let (doc_count, ids, _) = sampled(&c, &all, json!({"sampler": {"shard_size": 3}}));
    assert_eq!((doc_count, ids), (6, want));
}

#[test]
fn diversified_sampler_caps_the_documents_per_value() {
    let (_tmp, c) = catalog();
    let query = json!({"match": {"body": "x"}});
    let shards = ranked(&c, &query);
    for (field, shard_size, per_value) in [("cat", 6, 2), ("cat", 8, 1), ("n", 10, 1), ("n", 3, 2)]
    {
        let want = model(&shards, shard_size, Some((field, per_value)));
        let agg = json!({"diversified_sampler": {"field": field, "shard_size": shard_size,
            "max_docs_per_value": per_value, "execution_hint": "map"}});
        let (doc_count, ids, tags) = sampled(&c, &query, agg);
        assert_eq!(ids, want, "{field} {shard_size} {per_value}");
        assert_eq!(doc_count, want.len() as u64);
        assert_eq!(tags, tag_counts(&want));
    }
    // `missing`: documents without a value hold it.
    let mut filled = shards.clone();
    for (_, source) in filled.iter_mut().flatten() {
        if source.get("cat").is_none() {
            source["cat"] = json!("p");
        }
    }
    let want = model(&filled, 8, Some(("cat", 2)));
    let agg = json!({"diversified_sampler": {"field": "cat", "shard_size": 8,
        "max_docs_per_value": 2, "missing": "p"}});
    assert_ne!(want, model(&shards, 8, Some(("cat", 2))));
    assert_eq!(sampled(&c, &query, agg).1, want);
    // The defaults: 100 a shard, one a value (3 values and the documents
    // without one, each shard).
    let want = model(&shards, 100, Some(("cat", 1)));
    assert_eq!(want.len(), 8);
    let (_, ids, _) = sampled(&c, &query, json!({"diversified_sampler": {"field": "cat"}}));
    assert_eq!(ids, want);
}

/// The status and message of the search with `aggs` over both indices.
fn refused(c: &Catalog, aggs: Value) -> (u16, String) {
    let body = json!({"size": 0, "query": {"match": {"body": "x"}}, "aggs": aggs});
    let e = run(c, "logs-*", &body).unwrap_err();
    (e.status(), e.to_string())
}

#[test]
fn bad_parameters_are_refused_in_elasticsearch_words() {
    let (_tmp, c) = catalog();
    let subs = json!({"m": {"max": {"field": "n"}}});
    let with = |kind: &str, params: Value| json!({"s": {kind: params, "aggs": subs}});
    for (aggs, message) in [
        (with("sampler", json!({"size": 3})), "Unsupported property \"size\" for aggregation \"s"),
        (with("sampler", json!({"shard_size": "3"})), "Unsupported property \"shard_size\" for aggregation \"s"),
        (
            with("sampler", json!({"shard_size": 0})),
            "numHits must be > 0; please use TotalHitCountCollector if you do not need to return hits",
        ),
        (json!({"s": {"sampler": {}}}), "Sampler aggregation must be used with child aggregations."),
        (
            with("diversified_sampler", json!({"field": "cat", "execution_hint": "x"})),
            "Unknown `execution_hint`: [x], expected any of [map, bytes_hash, global_ordinals]",
        ),
        (with("diversified_sampler", json!({"field": "cat", "size": 1})), "[diversified_sampler] unknown field [size]"),
        (
            with("diversified_sampler", json!({"shard_size": 1})),
            "Required one of fields [field, script], but none were specified.",
        ),
        (
            with("diversified_sampler", json!({"field": "multi"})),
            "Sample diversifying key must be a single valued-field",
        ),
    ] {
        assert_eq!(refused(&c, aggs), (400, message.to_string()));
    }
    // The setters' refusals, wrapped by the object parser.
    for (key, n, message) in [
        (
            "shard_size",
            -1,
            "[shardSize] must be greater than or equal to 0. Found [-1] in [s]",
        ),
        (
            "max_docs_per_value",
            -2,
            "[maxDocsPerValue] must be greater than or equal to 0. Found [-2] in [s]",
        ),
    ] {
        let body = json!({"size": 0, "aggs": with("diversified_sampler", json!({"field": "cat", key: n}))});
        let e = run(&c, "logs-*", &body).unwrap_err();
        assert_eq!(e.status(), 400);
        assert_eq!(
            e.to_string(),
            format!("[diversified_sampler] failed to parse field [{key}]")
        );
        assert_eq!(e.cause().unwrap().to_string(), message);
    }
}

#[test]
fn below_a_bucket_each_buckets_documents_are_sampled() {
    let (_tmp, c) = catalog();
    let aggs = json!({"t": {"terms": {"field": "tag"}, "aggs": {"s": {
        "diversified_sampler": {"field": "cat", "shard_size": 4},
        "aggs": {"ids": {"terms": {"field": "k", "size": 1000}}}}}}});
    let body = json!({"size": 0, "query": {"match": {"body": "x"}}, "aggs": aggs});
    let out = run(&c, "logs-*", &body).unwrap();
    let buckets = out["aggregations"]["t"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 2);
    // Sampling the whole query once and bucketing the sample would differ.
    let whole = model(
        &ranked(&c, &json!({"match": {"body": "x"}})),
        4,
        Some(("cat", 1)),
    );
    let mut differs = false;
    for bucket in buckets {
        let query = json!({"bool": {"must": {"match": {"body": "x"}},
            "filter": {"term": {"tag": bucket["key"]}}}});
        let want = model(&ranked(&c, &query), 4, Some(("cat", 1)));
        let s = &bucket["s"];
        let ids: BTreeSet<String> = key_counts(&s["ids"]).into_iter().map(|(k, _)| k).collect();
        assert_eq!(ids, want, "{}", bucket["key"]);
        let of_tag = |k: &&String| tag(k[2..].parse().unwrap()) == bucket["key"];
        differs |= whole
            .iter()
            .filter(of_tag)
            .cloned()
            .collect::<BTreeSet<_>>()
            != want;
        assert_eq!(s["doc_count"], json!(want.len()));
    }
    assert!(differs);
}

/// Below a sampler, `significant_terms` (its typical use), `top_hits`,
/// `cardinality` and a histogram's buckets all see exactly the sample.
#[test]
fn sub_aggregations_see_exactly_the_sample() {
    let (_tmp, c) = catalog();
    let subs = json!({"sig": {"significant_terms": {"field": "tag", "min_doc_count": 1}},
        "top": {"top_hits": {"size": 2}}, "card": {"cardinality": {"field": "k"}},
        "h": {"histogram": {"field": "n", "interval": 2}}});
    let body = json!({"size": 0, "query": {"match": {"body": "x"}},
        "aggs": {"s": {"sampler": {"shard_size": 3}, "aggs": subs}}});
    let out = run(&c, "logs-*", &body).unwrap();
    let s = &out["aggregations"]["s"];
    assert_eq!(s["doc_count"], json!(6));
    // The subset of significant_terms is the sample; its background the index.
    assert_eq!(s["sig"]["doc_count"], json!(6));
    assert_eq!(s["top"]["hits"]["total"]["value"], json!(6));
    assert_eq!(s["card"]["value"], json!(6));
    let in_buckets: u64 = key_counts_of(&s["h"]).iter().sum();
    assert_eq!(in_buckets, 6);
}

/// The doc counts of an aggregation's buckets.
fn key_counts_of(agg: &Value) -> Vec<u64> {
    let buckets = agg["buckets"].as_array().unwrap();
    buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .collect()
}
