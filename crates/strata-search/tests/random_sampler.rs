//! The `random_sampler` aggregation as Elasticsearch 8.15 answers it,
//! over 3,000 documents in 2 shards and many segments: the sample's size
//! within a binomial bound of N * p; the same seed the same reply, another
//! seed another sample; the query filtering the sample; sub-aggregations
//! scaled by 1 / p (bucket counts, `sum`, `value_count`, `stats`' count
//! and sum) or not (`max`, `avg`, `stats`' extremes) against a model of
//! the very documents sampled; p = 1 the unsampled answer exactly; bad
//! parameters refused with Elasticsearch's messages.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use strata_search::Catalog;

use crate::common::{logs_index, search_logs, try_search};

const N: usize = 3000;

/// Document `i`: its tag, number and id.
fn tag(i: usize) -> &'static str {
    match i % 5 {
        0 => "a",
        1 | 2 => "b",
        _ => "c",
    }
}

fn number(i: usize) -> i64 {
    ((i * 37) % 1000) as i64
}

/// The catalog with the documents `d0`..`d2999`, refreshed every 250 (so
/// each shard holds many segments).
fn catalog() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = logs_index(
        tmp.path(),
        2,
        json!({"tag": {"type": "keyword"}, "k": {"type": "keyword"},
               "n": {"type": "long"}, "t": {"type": "date"}}),
    );
    for i in 0..N {
        let doc = json!({"tag": tag(i), "k": format!("d{i}"), "n": number(i),
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
fn sampled(c: &Catalog, query: Value, params: Value, subs: Value) -> Value {
    let body = json!({"size": 0, "query": query,
        "aggs": {"s": {"random_sampler": params, "aggs": subs}}});
    search_logs(c, &body)["aggregations"]["s"].clone()
}

/// The indexes of the documents sampled with `params` under `query`.
fn sample(c: &Catalog, query: Value, params: Value) -> BTreeSet<usize> {
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

/// `Math.round(count * (1 / p))`.
fn scale_count(count: usize, p: f64) -> u64 {
    (count as f64 * (1.0 / p) + 0.5).floor() as u64
}

#[test]
fn sub_aggregations_scale_as_elasticsearch_finalizes_them() {
    let (_tmp, c) = catalog();
    let p = 0.1;
    let params = json!({"probability": p, "seed": 42});
    let ids = sample(&c, json!({"match_all": {}}), params.clone());
    let subs = json!({
        "tags": {"terms": {"field": "tag"}, "aggs": {
            "total": {"sum": {"field": "n"}}, "top": {"max": {"field": "n"}}}},
        "total": {"sum": {"field": "n"}},
        "count": {"value_count": {"field": "n"}},
        "top": {"max": {"field": "n"}},
        "least": {"min": {"field": "n"}},
        "mean": {"avg": {"field": "n"}},
        "st": {"stats": {"field": "n"}},
        "by_hundred": {"histogram": {"field": "n", "interval": 100}},
        "days": {"date_histogram": {"field": "t", "calendar_interval": "day"}},
        "lows": {"range": {"field": "n", "ranges": [{"to": 500}, {"from": 500}]}},
        "only_a": {"filter": {"term": {"tag": "a"}}, "aggs": {"c": {"value_count": {"field": "n"}}}}
    });
    let out = sampled(&c, json!({"match_all": {}}), params, subs);
    assert_eq!(
        out["doc_count"],
        json!(ids.len()),
        "the sampler's own count is the sample's"
    );

    let values: Vec<f64> = ids.iter().map(|i| number(*i) as f64).collect();
    let sum: f64 = values.iter().sum();
    let close = |got: &Value, want: f64, what: &str| {
        let got = got.as_f64().unwrap();
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{what}: {got} against {want}"
        );
    };
    close(&out["total"]["value"], sum / p, "sum");
    assert_eq!(out["count"]["value"], json!(scale_count(ids.len(), p)));
    close(
        &out["top"]["value"],
        values.iter().copied().fold(f64::MIN, f64::max),
        "max",
    );
    close(
        &out["least"]["value"],
        values.iter().copied().fold(f64::MAX, f64::min),
        "min",
    );
    close(&out["mean"]["value"], sum / values.len() as f64, "avg");
    let st = &out["st"];
    assert_eq!(st["count"], json!(scale_count(ids.len(), p)));
    close(&st["sum"], sum / p, "stats sum");
    close(
        &st["max"],
        values.iter().copied().fold(f64::MIN, f64::max),
        "stats max",
    );
    close(
        &st["avg"],
        (sum / p) / scale_count(ids.len(), p) as f64,
        "stats avg",
    );

    for bucket in out["tags"]["buckets"].as_array().unwrap() {
        let key = bucket["key"].as_str().unwrap();
        let mine: Vec<f64> = ids
            .iter()
            .filter(|i| tag(**i) == key)
            .map(|i| number(*i) as f64)
            .collect();
        assert_eq!(
            bucket["doc_count"],
            json!(scale_count(mine.len(), p)),
            "{key}"
        );
        close(&bucket["total"]["value"], mine.iter().sum::<f64>() / p, key);
        close(
            &bucket["top"]["value"],
            mine.iter().copied().fold(f64::MIN, f64::max),
            key,
        );
    }
    for bucket in out["by_hundred"]["buckets"].as_array().unwrap() {
        let from = bucket["key"].as_f64().unwrap() as i64;
        let n = ids
            .iter()
            .filter(|i| (from..from + 100).contains(&number(**i)))
            .count();
        assert_eq!(
            bucket["doc_count"],
            json!(scale_count(n, p)),
            "histogram {from}"
        );
    }
    let days = out["days"]["buckets"].as_array().unwrap();
    let day_total: u64 = days.iter().map(|b| b["doc_count"].as_u64().unwrap()).sum();
    let per_day = |d: usize| ids.iter().filter(|i| **i / 24 == d).count();
    let want: u64 = (0..N.div_ceil(24))
        .map(|d| scale_count(per_day(d), p))
        .sum();
    assert_eq!(day_total, want);
    let lows = ids.iter().filter(|i| number(**i) < 500).count();
    assert_eq!(
        out["lows"]["buckets"][0]["doc_count"],
        json!(scale_count(lows, p))
    );
    assert_eq!(
        out["lows"]["buckets"][1]["doc_count"],
        json!(scale_count(ids.len() - lows, p))
    );
    let a = ids.iter().filter(|i| tag(**i) == "a").count();
    assert_eq!(out["only_a"]["doc_count"], json!(scale_count(a, p)));
    assert_eq!(out["only_a"]["c"]["value"], json!(scale_count(a, p)));
}

#[test]
fn pipelines_read_the_scaled_values() {
    let (_tmp, c) = catalog();
    let body = json!({"size": 0, "aggs": {
        "s": {"random_sampler": {"probability": 0.1, "seed": 42}, "aggs": {
            "tags": {"terms": {"field": "tag"}, "aggs": {
                "total": {"sum": {"field": "n"}},
                "twice": {"bucket_script": {"buckets_path": {"t": "total"}, "script": "params.t * 2"}}}},
            "biggest": {"max_bucket": {"buckets_path": "tags>_count"}},
            "top_tag": {"max_bucket": {"buckets_path": "tags>total"}}}}}});
    let out = search_logs(&c, &body)["aggregations"].clone();
    let buckets = out["s"]["tags"]["buckets"].as_array().unwrap();
    let most = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(out["s"]["biggest"]["value"].as_f64(), Some(most as f64));
    let top = buckets
        .iter()
        .map(|b| b["total"]["value"].as_f64().unwrap())
        .fold(f64::MIN, f64::max);
    assert_eq!(out["s"]["top_tag"]["value"].as_f64(), Some(top));
    // As in Elasticsearch, a sibling pipeline's path cannot start at the
    // sampler: it is a single-bucket aggregation.
    let outside = json!({"size": 0, "aggs": {
        "s": {"random_sampler": {"probability": 0.1, "seed": 42},
              "aggs": {"tags": {"terms": {"field": "tag"}}}},
        "top": {"max_bucket": {"buckets_path": "s>tags>_count"}}}});
    let e = try_search(&c, &outside).unwrap_err();
    assert_eq!(e.status(), 400);
    assert!(
        e.to_string()
            .contains("The first aggregation in buckets_path must be a multi-bucket"),
        "{e}"
    );
    for b in buckets {
        let total = b["total"]["value"].as_f64().unwrap();
        assert_eq!(b["twice"]["value"].as_f64(), Some(total * 2.0), "{b}");
    }
}

#[test]
fn probability_one_is_the_unsampled_answer() {
    let (_tmp, c) = catalog();
    let subs = json!({
        "tags": {"terms": {"field": "tag"}, "aggs": {"total": {"sum": {"field": "n"}}}},
        "st": {"stats": {"field": "n"}},
        "mean": {"avg": {"field": "n"}},
        "pct": {"percentiles": {"field": "n", "percents": [50, 90]}}
    });
    let query = json!({"range": {"n": {"gte": 100}}});
    let plain = search_logs(&c, &json!({"size": 0, "query": query, "aggs": subs}));
    let out = sampled(&c, query, json!({"probability": 1, "seed": 3}), subs);
    assert_eq!(out["doc_count"], plain["hits"]["total"]["value"]);
    for name in ["tags", "st", "mean", "pct"] {
        assert_eq!(out[name], plain["aggregations"][name], "{name}");
    }
    assert_eq!(out["probability"], json!(1.0));
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
    let (status, reason, _) = refused(&c, with(json!({"probability": 0.1, "size": 3})));
    assert_eq!(
        (status, reason.as_str()),
        (400, "[random_sampler] unknown field [size]")
    );
    let (status, reason, _) = refused(&c, with(json!({"probability": 0.1, "seed": "x"})));
    assert_eq!(
        (status, reason.as_str()),
        (400, "[random_sampler] failed to parse field [seed]")
    );
    let (status, reason, _) = refused(
        &c,
        json!({"sampled": {"random_sampler": {"probability": 0.2}}}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        reason,
        "[random_sampler] aggregation [sampled] must have sub-aggregations"
    );
    let (status, reason, _) = refused(&c, with(json!({"seed": 1})));
    assert_eq!(status, 400);
    assert_eq!(
        reason,
        "[random_sampler] aggregation [sampled] must have [probability] set"
    );
    let (status, reason, _) = refused(
        &c,
        json!({"sampled": {"random_sampler": {"probability": 0.1},
        "aggs": {"unique": {"cardinality": {"field": "tag"}}}}}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        reason,
        "[random_sampler] aggregation [sampled] does not support sampling [cardinality] aggregation [unique]"
    );
    let (status, reason, _) = refused(
        &c,
        json!({"terms": {"terms": {"field": "tag"},
        "aggs": {"sampled": {"random_sampler": {"probability": 0.1}, "aggs": subs}}}}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        reason,
        "[random_sampler] aggregation [sampled] cannot have a parent aggregation"
    );
    // A kind whose scaling is not established here: refused, not answered unscaled.
    let (status, reason, _) = refused(
        &c,
        json!({"sampled": {"random_sampler": {"probability": 0.1},
        "aggs": {"t": {"terms": {"field": "tag"}, "aggs": {"h": {"top_hits": {"size": 1}}}}}}}),
    );
    assert_eq!(status, 400);
    assert!(
        reason.contains("sampling [top_hits] aggregation [h] is not supported"),
        "{reason}"
    );
}
