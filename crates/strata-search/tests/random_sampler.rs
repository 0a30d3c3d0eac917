//! The `random_sampler` aggregation as Elasticsearch 8.15 answers it,
//! over 3,000 documents in 2 shards and many segments: the sample's size
//! within a binomial bound of N * p; the same seed the same reply, another
//! seed another sample; the query filtering the sample; bad parameters
//! refused with Elasticsearch's messages. The scaling of the
//! sub-aggregations is `random_sampler_scaling`'s, on these documents.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use strata_search::Catalog;

use crate::common::{logs_index, search_logs, try_search};

pub(crate) const N: usize = 3000;

/// Document `i`: its tag, number and id.
pub(crate) fn tag(i: usize) -> &'static str {
    match i % 5 {
        0 => "a",
        1 | 2 => "b",
        _ => "c",
    }
}

pub(crate) fn number(i: usize) -> i64 {
    ((i * 37) % 1000) as i64
}

/// The catalog with the documents `d0`..`d2999`, refreshed every 250 (so
/// each shard holds many segments).
pub(crate) fn catalog() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = logs_index(
        tmp.path(),
        2,
        json!({"tag": {"type": "keyword"}, "k": {"type": "keyword"},
               "n": {"type": "long"}, "t": {"type": "date"}, "loc": {"type": "geo_point"}}),
    );
    for i in 0..N {
        let loc = json!({"lat": (i % 90) as f64 - 45.0, "lon": ((i * 7) % 360) as f64 - 180.0});
        let doc = json!({"tag": tag(i), "k": format!("d{i}"), "n": number(i), "loc": loc,
                         "t": 1_704_067_200_000i64 + i as i64 * 3_600_000});
        index
            .index_document(
                Some(&format!("d{i}")),
                doc.to_string().as_bytes(),
                strata_search::Precondition::None,
            )
            .unwrap();
        if (i + 1) % 250 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

/// The sampler `{"s": {"random_sampler": params, "aggs": subs}}` under
/// `query`: its reply.
pub(crate) fn sampled(c: &Catalog, query: Value, params: Value, subs: Value) -> Value {
    let body = json!({"size": 0, "query": query,
        "aggs": {"s": {"random_sampler": params, "aggs": subs}}});
    search_logs(c, &body)["aggregations"]["s"].clone()
}

/// The indexes of the documents sampled with `params` under `query`.
pub(crate) fn sample(c: &Catalog, query: Value, params: Value) -> BTreeSet<usize> {
    let out = sampled(
        c,
        query,
        params,
        json!({"ids": {"terms": {"field": "k", "size": 5000}}}),
    );
    let ids: BTreeSet<usize> = out["ids"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key"].as_str().unwrap()[1..].parse().unwrap())
        .collect();
    assert_eq!(out["doc_count"], json!(ids.len()));
    ids
}

/// Whether `count` is within 5 standard deviations of Binomial(N, p)'s mean.
fn within_binomial(count: usize, p: f64) -> bool {
    let (n, mean) = (N as f64, N as f64 * p);
    (count as f64 - mean).abs() <= 5.0 * (n * p * (1.0 - p)).sqrt()
}

#[test]
fn the_sample_size_is_binomial_and_the_seed_fixes_the_sample() {
    let (_tmp, c) = catalog();
    let all = json!({"match_all": {}});
    let tenth = sample(&c, all.clone(), json!({"probability": 0.1, "seed": 42}));
    assert!(within_binomial(tenth.len(), 0.1), "{}", tenth.len());
    // The bound tells p apart: a tenth is no fifth.
    assert!(!within_binomial(tenth.len(), 0.2), "{}", tenth.len());
    let fifth = sample(&c, all.clone(), json!({"probability": 0.2, "seed": 42}));
    assert!(within_binomial(fifth.len(), 0.2), "{}", fifth.len());
    assert!(!within_binomial(fifth.len(), 0.1), "{}", fifth.len());

    // The same seed: the same sample and the same reply.
    let again = sample(&c, all.clone(), json!({"probability": 0.1, "seed": 42}));
    assert_eq!(tenth, again);
    let subs = json!({"tags": {"terms": {"field": "tag"}}, "total": {"sum": {"field": "n"}}});
    let params = json!({"probability": 0.1, "seed": 42});
    let first = sampled(&c, all.clone(), params.clone(), subs.clone());
    assert_eq!(first, sampled(&c, all.clone(), params, subs));
    assert_eq!(first["seed"], json!(42));
    assert_eq!(first["probability"], json!(0.1));
    // Another seed, another sample (of about the same size).
    let other = sample(&c, all.clone(), json!({"probability": 0.1, "seed": 43}));
    assert_ne!(tenth, other);
    assert!(within_binomial(other.len(), 0.1), "{}", other.len());
    // `shard_seed` changes the sample too, and is written back.
    let sharded = sample(
        &c,
        all.clone(),
        json!({"probability": 0.1, "seed": 42, "shard_seed": 5}),
    );
    assert_ne!(tenth, sharded);
    let out = sampled(
        &c,
        all,
        json!({"probability": 0.1, "seed": 42, "shard_seed": 5}),
        json!({"m": {"max": {"field": "n"}}}),
    );
    assert_eq!(out["shard_seed"], json!(5));
}

#[test]
fn without_a_seed_each_request_draws_one_and_says_which() {
    let (_tmp, c) = catalog();
    let subs = json!({"m": {"max": {"field": "n"}}});
    let params = json!({"probability": 0.1});
    let replies: Vec<Value> = (0..4)
        .map(|_| sampled(&c, json!({"match_all": {}}), params.clone(), subs.clone()))
        .collect();
    let seeds: BTreeSet<i64> = replies
        .iter()
        .map(|r| r["seed"].as_i64().unwrap())
        .collect();
    assert!(seeds.len() > 1, "{seeds:?}");
    // The seed written back gives the same sample again.
    let seed = replies[0]["seed"].clone();
    let again = sampled(
        &c,
        json!({"match_all": {}}),
        json!({"probability": 0.1, "seed": seed}),
        subs,
    );
    assert_eq!(again, replies[0]);
}

#[test]
fn the_query_filters_the_sample() {
    let (_tmp, c) = catalog();
    let params = json!({"probability": 0.1, "seed": 9});
    let whole = sample(&c, json!({"match_all": {}}), params.clone());
    let only_a = sample(&c, json!({"term": {"tag": "a"}}), params);
    let want: BTreeSet<usize> = whole.iter().copied().filter(|i| tag(*i) == "a").collect();
    assert!(!want.is_empty());
    assert_eq!(only_a, want);
}

/// The status, message and cause's message of the sampler `sampler` (a
/// whole `aggs` object).
fn refused(c: &Catalog, aggs: Value) -> (u16, String, String) {
    let e = try_search(c, &json!({"size": 0, "aggs": aggs})).unwrap_err();
    let cause = e.cause().map(|c| c.to_string()).unwrap_or_default();
    (e.status(), e.to_string(), cause)
}

#[test]
fn bad_parameters_are_refused_in_elasticsearch_words() {
    let (_tmp, c) = catalog();
    let subs = json!({"m": {"max": {"field": "n"}}});
    let with = |params: Value| json!({"sampled": {"random_sampler": params, "aggs": subs}});
    for (p, message) in [
        (
            json!(0.6),
            "[probability] must be between 0.0 and 0.5 or exactly 1.0, was [0.6]",
        ),
        (
            json!(1.5),
            "[probability] must be between 0.0 and 0.5 or exactly 1.0, was [1.5]",
        ),
        (
            json!(0.0),
            "[probability] must be greater than 0.0, was [0.0]",
        ),
        (
            json!(-1),
            "[probability] must be greater than 0.0, was [-1.0]",
        ),
    ] {
        let (status, reason, cause) = refused(&c, with(json!({"probability": p})));
        assert_eq!(status, 400);
        assert_eq!(
            reason,
            "[random_sampler] failed to parse field [probability]"
        );
        assert_eq!(cause, message);
    }
    let sampler =
        |params: Value, subs: Value| json!({"sampled": {"random_sampler": params, "aggs": subs}});
    let below_terms = json!({"terms": {"terms": {"field": "tag"},
        "aggs": {"sampled": {"random_sampler": {"probability": 0.1}, "aggs": subs}}}});
    let string_stats = json!({"t": {"terms": {"field": "tag"}, "aggs": {"h": {"string_stats": {"field": "tag"}}}}});
    for (aggs, message) in [
        (with(json!({"probability": 0.1, "size": 3})), "[random_sampler] unknown field [size]"),
        (with(json!({"probability": 0.1, "seed": "x"})), "[random_sampler] failed to parse field [seed]"),
        (
            json!({"sampled": {"random_sampler": {"probability": 0.2}}}),
            "[random_sampler] aggregation [sampled] must have sub-aggregations",
        ),
        (with(json!({"seed": 1})), "[random_sampler] aggregation [sampled] must have [probability] set"),
        (
            sampler(json!({"probability": 0.1}), json!({"unique": {"cardinality": {"field": "tag"}}})),
            "[random_sampler] aggregation [sampled] does not support sampling [cardinality] aggregation [unique]",
        ),
        (below_terms, "[random_sampler] aggregation [sampled] cannot have a parent aggregation"),
        // A kind whose scaling is not established here: refused, not
        // answered unscaled.
        (
            sampler(json!({"probability": 0.1}), string_stats),
            "[random_sampler] aggregation [sampled]: sampling [string_stats] aggregation [h] is not supported by this server",
        ),
    ] {
        let (status, reason, _) = refused(&c, aggs);
        assert_eq!((status, reason.as_str()), (400, message));
    }
}
