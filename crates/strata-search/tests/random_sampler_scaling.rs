//! The `random_sampler`'s sub-aggregations scaled as Elasticsearch 8.15's
//! final reduce scales them (`finalizeSampling`): bucket counts, `sum`,
//! `value_count`, `stats`' and `extended_stats`' count and sum (and sum
//! of squares) by 1 / p; `max`, `min`, `avg`, the stats' extremes,
//! `top_hits` not; checked against a model of the very documents
//! sampled. The pipelines (parent ones, and those computed on the
//! response) read the scaled values; p = 1 is the unsampled answer
//! exactly.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use strata_search::Catalog;

use crate::common::{search_logs, try_search};
use crate::random_sampler::{catalog, number, sample, sampled, tag, N};

/// Asserts `got` is the number `want` (to rounding).
fn close(got: &Value, want: f64, what: &str) {
    let got = got.as_f64().unwrap();
    let ok = (got - want).abs() <= 1e-9 * want.abs().max(1.0);
    assert!(ok, "{what}: {got} against {want}");
}

/// The documents sampled with probability `p` and `seed` over all, and
/// the sampler's reply with sub-aggregations `subs`.
fn sampled_all(c: &Catalog, p: f64, seed: i32, subs: Value) -> (BTreeSet<usize>, Value) {
    let params = json!({"probability": p, "seed": seed});
    let ids = sample(c, json!({"match_all": {}}), params.clone());
    (ids, sampled(c, json!({"match_all": {}}), params, subs))
}

/// `Math.round(count * (1 / p))`.
fn scale_count(count: usize, p: f64) -> u64 {
    (count as f64 * (1.0 / p) + 0.5).floor() as u64
}

#[test]
fn sub_aggregations_scale_as_elasticsearch_finalizes_them() {
    let (_tmp, c) = catalog();
    let p = 0.1;
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
    let (ids, out) = sampled_all(&c, p, 42, subs);
    assert_eq!(
        out["doc_count"],
        json!(ids.len()),
        "the sampler's own count is the sample's"
    );

    let values: Vec<f64> = ids.iter().map(|i| number(*i) as f64).collect();
    let sum: f64 = values.iter().sum();
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
    let counts: Vec<u64> = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .collect();
    // Scaled, the counts estimate the whole: about N, not N * p.
    let estimate = counts.iter().sum::<u64>() as f64;
    let bound = 5.0 * (N as f64 * 0.09).sqrt() / 0.1 + 3.0;
    assert!((estimate - N as f64).abs() <= bound, "{estimate}");
    let most = *counts.iter().max().unwrap();
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
fn extended_stats_scale_and_top_hits_are_kept() {
    let (_tmp, c) = catalog();
    let p = 0.2;
    let subs = json!({
        "ext": {"extended_stats": {"field": "n", "sigma": 3}},
        "tags": {"terms": {"field": "tag"}, "aggs": {"one": {"top_hits": {"size": 1}}}},
        "mad": {"median_absolute_deviation": {"field": "n"}}
    });
    let (ids, out) = sampled_all(&c, p, 11, subs);
    let values: Vec<f64> = ids.iter().map(|i| number(*i) as f64).collect();
    // InternalExtendedStats: count, sum and sum of squares scaled, the
    // rest derived from them.
    let count = scale_count(values.len(), p) as f64;
    let sum = values.iter().sum::<f64>() / p;
    let squares = values.iter().map(|v| v * v).sum::<f64>() / p;
    let variance = (squares - sum * sum / count) / count;
    let ext = &out["ext"];
    assert_eq!(ext["count"].as_f64(), Some(count));
    close(&ext["sum"], sum, "sum");
    close(&ext["sum_of_squares"], squares, "sum_of_squares");
    close(&ext["variance"], variance, "variance");
    close(&ext["std_deviation"], variance.sqrt(), "std_deviation");
    let upper = sum / count + 3.0 * variance.sqrt();
    close(&ext["std_deviation_bounds"]["upper"], upper, "upper bound");
    let least = values.iter().copied().fold(f64::MAX, f64::min);
    close(&ext["min"], least, "min");
    // top_hits as sampled: its total is the bucket's sampled count.
    for bucket in out["tags"]["buckets"].as_array().unwrap() {
        let key = bucket["key"].as_str().unwrap();
        let n = ids.iter().filter(|i| tag(**i) == key).count();
        assert_eq!(bucket["doc_count"], json!(scale_count(n, p)), "{key}");
        assert_eq!(bucket["one"]["hits"]["total"]["value"], json!(n), "{key}");
        let hit = &bucket["one"]["hits"]["hits"][0];
        let id: usize = hit["_id"].as_str().unwrap()[1..].parse().unwrap();
        assert!(ids.contains(&id) && tag(id) == key, "{hit}");
    }
    assert!(out["mad"]["value"].as_f64().is_some(), "{}", out["mad"]);
}

#[test]
fn each_kind_answers_over_the_sample_as_over_those_documents() {
    let (_tmp, c) = catalog();
    let p = 0.1;
    let subs = json!({
        "pct": {"percentiles": {"field": "n", "percents": [10, 50, 99]}},
        "ranks": {"percentile_ranks": {"field": "n", "values": [100, 500]}},
        "mad": {"median_absolute_deviation": {"field": "n"}},
        "mean": {"avg": {"field": "n"}},
        "hours": {"date_histogram": {"field": "t", "fixed_interval": "12h"}},
        "tags": {"terms": {"field": "tag"}, "aggs": {"pct": {"percentiles": {"field": "n"}}}},
        "rare": {"rare_terms": {"field": "k"}},
        "box": {"geo_bounds": {"field": "loc"}},
        "centre": {"geo_centroid": {"field": "loc"}},
        "tiles": {"geotile_grid": {"field": "loc", "precision": 2}}
    });
    let (ids, out) = sampled_all(&c, p, 5, subs.clone());
    // The same aggregations unsampled over exactly the sampled documents.
    let values: Vec<String> = ids.iter().map(|i| format!("d{i}")).collect();
    let body = json!({"size": 0, "query": {"ids": {"values": values}}, "aggs": subs});
    let plain = search_logs(&c, &body)["aggregations"].clone();
    for kept in ["pct", "ranks", "mad", "mean", "box"] {
        assert_eq!(out[kept], plain[kept], "{kept}");
    }
    let counts = |agg: &Value| -> Vec<u64> {
        let buckets = agg["buckets"].as_array().unwrap();
        buckets
            .iter()
            .map(|b| b["doc_count"].as_u64().unwrap())
            .collect()
    };
    let centre = &out["centre"];
    assert_eq!(centre["location"], plain["centre"]["location"]);
    let count = plain["centre"]["count"].as_u64().unwrap() as usize;
    assert_eq!(centre["count"], json!(scale_count(count, p)));
    for scaled_buckets in ["rare", "tiles"] {
        let keys = |agg: &Value| -> Vec<Value> {
            let buckets = agg["buckets"].as_array().unwrap();
            buckets.iter().map(|b| b["key"].clone()).collect()
        };
        assert!(!keys(&plain[scaled_buckets]).is_empty(), "{scaled_buckets}");
        assert_eq!(keys(&out[scaled_buckets]), keys(&plain[scaled_buckets]));
        let want: Vec<u64> = counts(&plain[scaled_buckets])
            .iter()
            .map(|n| scale_count(*n as usize, p))
            .collect();
        assert_eq!(counts(&out[scaled_buckets]), want, "{scaled_buckets}");
    }
    let scaled: Vec<u64> = counts(&plain["hours"])
        .iter()
        .map(|n| scale_count(*n as usize, p))
        .collect();
    assert_eq!(counts(&out["hours"]), scaled);
    for (mine, theirs) in out["tags"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .zip(plain["tags"]["buckets"].as_array().unwrap())
    {
        assert_eq!(mine["key"], theirs["key"]);
        assert_eq!(mine["pct"], theirs["pct"], "{}", mine["key"]);
    }
}

#[test]
fn parent_pipelines_run_on_the_scaled_buckets() {
    let (_tmp, c) = catalog();
    let subs = json!({
        "days": {"date_histogram": {"field": "t", "calendar_interval": "week"}, "aggs": {
            "total": {"sum": {"field": "n"}},
            "running": {"cumulative_sum": {"buckets_path": "_count"}},
            "change": {"derivative": {"buckets_path": "total"}}}},
        "tags": {"terms": {"field": "tag"}, "aggs": {
            "first": {"bucket_sort": {"sort": [{"_count": "asc"}], "size": 1}}}}
    });
    let out = sampled(
        &c,
        json!({"match_all": {}}),
        json!({"probability": 0.1, "seed": 42}),
        subs,
    );
    let weeks = out["days"]["buckets"].as_array().unwrap();
    let (mut running, mut previous) = (0u64, None::<f64>);
    for week in weeks {
        running += week["doc_count"].as_u64().unwrap();
        assert_eq!(
            week["running"]["value"].as_f64(),
            Some(running as f64),
            "{week}"
        );
        let total = week["total"]["value"].as_f64().unwrap();
        if let Some(before) = previous {
            let change = week["change"]["value"].as_f64().unwrap();
            assert!((change - (total - before)).abs() < 1e-6, "{week}");
        }
        previous = Some(total);
    }
    // The running count is the scaled one: about N.
    assert!(
        (running as f64 - N as f64).abs() < 0.2 * N as f64,
        "{running}"
    );
    let tags = out["tags"]["buckets"].as_array().unwrap();
    assert_eq!(tags.len(), 1);
    let ids = sample(
        &c,
        json!({"match_all": {}}),
        json!({"probability": 0.1, "seed": 42}),
    );
    let a = ids.iter().filter(|i| tag(**i) == "a").count();
    assert_eq!(tags[0]["key"], json!("a"));
    assert_eq!(tags[0]["doc_count"], json!(scale_count(a, 0.1)));
}

#[test]
fn probability_one_is_the_unsampled_answer() {
    let (_tmp, c) = catalog();
    let subs = json!({
        "tags": {"terms": {"field": "tag"}, "aggs": {"total": {"sum": {"field": "n"}}}},
        "st": {"stats": {"field": "n"}},
        "mean": {"avg": {"field": "n"}},
        "pct": {"percentiles": {"field": "n", "percents": [50, 90]}},
        "ext": {"extended_stats": {"field": "n"}},
        "mad": {"median_absolute_deviation": {"field": "n"}}
    });
    let query = json!({"range": {"n": {"gte": 100}}});
    let plain = search_logs(&c, &json!({"size": 0, "query": query, "aggs": subs}));
    let out = sampled(&c, query, json!({"probability": 1, "seed": 3}), subs);
    assert_eq!(out["doc_count"], plain["hits"]["total"]["value"]);
    for name in ["tags", "st", "mean", "pct", "ext", "mad"] {
        assert_eq!(out[name], plain["aggregations"][name], "{name}");
    }
    assert_eq!(out["probability"], json!(1.0));
}
