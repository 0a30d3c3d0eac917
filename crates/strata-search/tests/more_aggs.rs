//! `composite`, `weighted_avg`, `rare_terms`, `significant_terms`,
//! `missing`, `cardinality` (exact up to `precision_threshold`, within
//! HyperLogLog's error above) and the `derivative`, `cumulative_sum` and
//! `bucket_sort` pipelines over generated documents, each answer checked
//! against values computed by brute force over the same documents, and
//! the errors bad requests give.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

const HOUR: i64 = 3_600_000;
const START: i64 = 1_700_000_000_000 - 1_700_000_000_000 % (24 * HOUR);

struct Doc {
    tag: Option<String>,
    n: i64,
    w: Option<f64>,
    ts: i64,
    flag: bool,
}

fn setup(n_docs: usize) -> (tempfile::TempDir, Catalog, Vec<Doc>) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"tag": {"type": "keyword"}, "n": {"type": "long"}, "w": {"type": "double"},
               "ts": {"type": "date"}, "flag": {"type": "boolean"}}),
    );
    let mut rng = StdRng::seed_from_u64(5);
    let mut docs = Vec::new();
    for i in 0..n_docs {
        // Tags: a Zipf-like spread, so some are rare; a few documents have none.
        let tag = (rng.gen_range(0..20) != 0).then(|| {
            let r: f64 = rng.gen();
            format!("t{}", (r * r * r * 60.0) as u32)
        });
        // A few rare tags, held by one or two documents.
        let tag = if i % 400 == 1 {
            Some(format!("r{}", (i / 400) % 5))
        } else {
            tag
        };
        let doc = Doc {
            tag,
            n: rng.gen_range(0..50),
            w: (rng.gen_range(0..10) != 0).then(|| f64::from(rng.gen_range(1..5))),
            ts: START + rng.gen_range(0..48 * HOUR),
            flag: rng.gen(),
        };
        let mut body = json!({"n": doc.n, "ts": doc.ts, "flag": doc.flag});
        if let Some(t) = &doc.tag {
            body["tag"] = json!(t);
        }
        if let Some(w) = doc.w {
            body["w"] = json!(w);
        }
        index
            .index_document(
                Some(&i.to_string()),
                body.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i % 700 == 0 {
            index.refresh().unwrap();
        }
        docs.push(doc);
    }
    index.refresh().unwrap();
    (tmp, catalog, docs)
}

fn aggs(catalog: &Catalog, query: Value, aggs: Value) -> Value {
    let r = common::search_logs(catalog, &json!({"size": 0, "query": query, "aggs": aggs}));
    r["aggregations"].clone()
}

fn status(catalog: &Catalog, aggs: Value) -> u16 {
    common::try_search(catalog, &json!({"size": 0, "aggs": aggs}))
        .map(|_| 200)
        .unwrap_or_else(|e| e.status())
}

#[test]
fn composite_pages_through_every_key() {
    let (_tmp, catalog, docs) = setup(2000);
    // Truth: (tag or null, n histogram of 10, hour) -> count.
    let mut truth: BTreeMap<(Option<String>, i64, i64), u64> = BTreeMap::new();
    for d in &docs {
        let hour = d.ts - d.ts.rem_euclid(HOUR);
        *truth
            .entry((d.tag.clone(), d.n / 10 * 10, hour))
            .or_default() += 1;
    }
    let sources = json!([
        {"tag": {"terms": {"field": "tag", "missing_bucket": true}}},
        {"bin": {"histogram": {"field": "n", "interval": 10}}},
        {"hour": {"date_histogram": {"field": "ts", "fixed_interval": "1h"}}}
    ]);
    let mut after: Option<Value> = None;
    let mut got: BTreeMap<(Option<String>, i64, i64), u64> = BTreeMap::new();
    let mut previous: Option<(Option<String>, i64, i64)> = None;
    let mut pages = 0;
    loop {
        let mut body = json!({"sources": sources, "size": 97});
        if let Some(a) = &after {
            body["after"] = a.clone();
        }
        let r = aggs(
            &catalog,
            json!({"match_all": {}}),
            json!({"c": {"composite": body}}),
        );
        let buckets = r["c"]["buckets"].as_array().unwrap().clone();
        if buckets.is_empty() {
            assert!(r["c"].get("after_key").is_none());
            break;
        }
        pages += 1;
        for b in &buckets {
            let key = (
                b["key"]["tag"].as_str().map(str::to_string),
                b["key"]["bin"].as_f64().unwrap() as i64,
                b["key"]["hour"].as_i64().unwrap(),
            );
            // Keys come in order (null tags first), each once.
            if let Some(p) = &previous {
                assert!(p < &key, "{p:?} then {key:?}");
            }
            previous = Some(key.clone());
            got.insert(key, b["doc_count"].as_u64().unwrap());
        }
        assert_eq!(r["c"]["after_key"], buckets.last().unwrap()["key"]);
        after = Some(r["c"]["after_key"].clone());
    }
    assert_eq!(got, truth);
    assert!(pages > 5);
    // Descending order of one source, with a sub-aggregation per bucket.
    let r = aggs(
        &catalog,
        json!({"range": {"n": {"lt": 25}}}),
        json!({"c": {"composite": {"size": 5, "sources": [{"n": {"terms": {"field": "n", "order": "desc"}}}]},
               "aggs": {"w": {"sum": {"field": "w"}}}}}),
    );
    let buckets = r["c"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 5);
    for (i, b) in buckets.iter().enumerate() {
        let n = 24 - i as i64;
        assert_eq!(b["key"]["n"], json!(n));
        let count = docs.iter().filter(|d| d.n == n).count() as u64;
        let sum: f64 = docs.iter().filter(|d| d.n == n).filter_map(|d| d.w).sum();
        assert_eq!(b["doc_count"], json!(count));
        assert!((b["w"]["value"].as_f64().unwrap() - sum).abs() < 1e-9);
    }
    // A calendar date_histogram source in a named zone, and booleans.
    let r = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"c": {"composite": {"size": 100, "sources": [
            {"day": {"date_histogram": {"field": "ts", "calendar_interval": "1d", "time_zone": "America/New_York"}}},
            {"flag": {"terms": {"field": "flag"}}}]}}}),
    );
    let mut truth: BTreeMap<(i64, bool), u64> = BTreeMap::new();
    for d in &docs {
        // New York in November: UTC-5.
        let local = d.ts - 5 * HOUR;
        let day = local - local.rem_euclid(24 * HOUR) + 5 * HOUR;
        *truth.entry((day, d.flag)).or_default() += 1;
    }
    let got: BTreeMap<(i64, bool), u64> = r["c"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                (
                    b["key"]["day"].as_i64().unwrap(),
                    b["key"]["flag"].as_bool().unwrap(),
                ),
                b["doc_count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, truth);
}

#[test]
fn metrics_and_rare_and_significant_terms() {
    let (_tmp, catalog, docs) = setup(3000);
    // weighted_avg, with `missing` weights of 1.
    let r = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"wa": {"weighted_avg": {"value": {"field": "n"}, "weight": {"field": "w", "missing": 1}}}}),
    );
    let (num, den) = docs.iter().fold((0.0, 0.0), |(a, b), d| {
        let w = d.w.unwrap_or(1.0);
        (a + d.n as f64 * w, b + w)
    });
    assert!((r["wa"]["value"].as_f64().unwrap() - num / den).abs() < 1e-9);
    // missing.
    let r = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"m": {"missing": {"field": "tag"}}}),
    );
    assert_eq!(
        r["m"]["doc_count"],
        json!(docs.iter().filter(|d| d.tag.is_none()).count())
    );
    // rare_terms: at most 2 documents, rarest first, then by key.
    let mut counts: HashMap<&str, u64> = HashMap::new();
    for d in &docs {
        if let Some(t) = &d.tag {
            *counts.entry(t).or_default() += 1;
        }
    }
    let mut rare: Vec<(u64, &str)> = counts
        .iter()
        .filter(|(_, n)| **n <= 2)
        .map(|(t, n)| (*n, *t))
        .collect();
    rare.sort();
    let r = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"r": {"rare_terms": {"field": "tag", "max_doc_count": 2}}}),
    );
    let got: Vec<(u64, String)> = r["r"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["doc_count"].as_u64().unwrap(),
                b["key"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        rare.iter()
            .map(|(n, t)| (*n, t.to_string()))
            .collect::<Vec<_>>()
    );
    assert!(!got.is_empty());
    // significant_terms: tags over-represented among documents with n < 5, by JLH.
    let fg: Vec<&Doc> = docs.iter().filter(|d| d.n < 5).collect();
    let mut fg_counts: HashMap<&str, u64> = HashMap::new();
    for d in &fg {
        if let Some(t) = &d.tag {
            *fg_counts.entry(t).or_default() += 1;
        }
    }
    let (fs, bs) = (fg.len() as f64, docs.len() as f64);
    let mut scored: Vec<(f64, &str)> = fg_counts
        .iter()
        .filter(|(_, n)| **n >= 3)
        .map(|(t, n)| {
            let sub = *n as f64 / fs;
            let sup = counts[t] as f64 / bs;
            let s = if sub > sup {
                (sub - sup) * (sub / sup)
            } else {
                0.0
            };
            (s, *t)
        })
        .filter(|(s, _)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(5);
    let r = aggs(
        &catalog,
        json!({"range": {"n": {"lt": 5}}}),
        json!({"s": {"significant_terms": {"field": "tag", "size": 5}}}),
    );
    assert_eq!(r["s"]["doc_count"], json!(fg.len()));
    assert_eq!(r["s"]["bg_count"], json!(docs.len()));
    let got: Vec<(f64, String)> = r["s"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert_eq!(
                b["bg_count"].as_u64().unwrap(),
                counts[b["key"].as_str().unwrap()]
            );
            (
                b["score"].as_f64().unwrap(),
                b["key"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got.len(), scored.len());
    for (g, w) in got.iter().zip(&scored) {
        assert!((g.0 - w.0).abs() < 1e-9 && g.1 == w.1, "{g:?} vs {w:?}");
    }
}

#[test]
fn cardinality_is_exact_below_the_threshold() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        3,
        json!({"ip": {"type": "keyword"}, "num": {"type": "long"}, "g": {"type": "keyword"}}),
    );
    let mut rng = StdRng::seed_from_u64(9);
    let mut seen: HashMap<String, HashSet<u64>> = HashMap::new();
    let mut all = HashSet::new();
    for i in 0..12_000u64 {
        // 3,940 distinct values among the first 8,000 documents, then up to 20,000.
        let v = if i < 8000 {
            i % 3940
        } else {
            rng.gen_range(0..20_000)
        };
        let g = format!("g{}", i % 3);
        let doc = json!({"ip": format!("10.0.{}.{}", v / 256, v % 256), "num": v, "g": g});
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i < 8000 {
            all.insert(v);
        }
        seen.entry(g).or_default().insert(v);
        if i % 2500 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    let first = json!({"range": {"num": {"gte": 0}}});
    let early = json!({"bool": {"filter": [first, {"terms": {"_id": (0..8000).map(|i| i.to_string()).collect::<Vec<_>>()}}]}});
    assert_eq!(all.len(), 3940);
    for field in ["ip", "num"] {
        for threshold in [4000, 40_000, 100_000] {
            let r = aggs(
                &catalog,
                early.clone(),
                json!({"c": {"cardinality": {"field": field, "precision_threshold": threshold}}}),
            );
            assert_eq!(r["c"]["value"], json!(3940), "{field} at {threshold}");
        }
        // Default threshold (3000): HyperLogLog at precision 14, within
        // Elasticsearch's documented error (a few percent; 1% expected).
        let r = aggs(
            &catalog,
            early.clone(),
            json!({"c": {"cardinality": {"field": field}}}),
        );
        let v = r["c"]["value"].as_f64().unwrap();
        assert!((v - 3940.0).abs() / 3940.0 < 0.02, "{field}: {v}");
        // Under buckets: each group's count, exact below the threshold.
        let r = aggs(
            &catalog,
            json!({"match_all": {}}),
            json!({"g": {"terms": {"field": "g"},
                   "aggs": {"c": {"cardinality": {"field": field, "precision_threshold": 40000}}}}}),
        );
        for b in r["g"]["buckets"].as_array().unwrap() {
            let want = seen[b["key"].as_str().unwrap()].len();
            assert_eq!(b["c"]["value"], json!(want), "{field} {b}");
        }
        // Above the threshold: within the error.
        let total: HashSet<u64> = seen.values().flatten().copied().collect();
        let r = aggs(
            &catalog,
            json!({"match_all": {}}),
            json!({"c": {"cardinality": {"field": field, "precision_threshold": 100}}}),
        );
        let v = r["c"]["value"].as_f64().unwrap();
        let truth = total.len() as f64;
        assert!((v - truth).abs() / truth < 0.1, "{field}: {v} vs {truth}");
    }
}

#[test]
fn pipelines_over_histograms() {
    let (_tmp, catalog, docs) = setup(1500);
    let r = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"h": {"histogram": {"field": "n", "interval": 5},
        "aggs": {
            "s": {"sum": {"field": "w"}},
            "d": {"derivative": {"buckets_path": "s"}},
            "cs": {"cumulative_sum": {"buckets_path": "_count"}},
            "top": {"bucket_sort": {"sort": [{"s": {"order": "desc"}}], "size": 4}}
        }}}),
    );
    let mut sums: BTreeMap<i64, (u64, f64)> = BTreeMap::new();
    for d in &docs {
        let e = sums.entry(d.n / 5 * 5).or_default();
        e.0 += 1;
        e.1 += d.w.unwrap_or(0.0);
    }
    // Derivative and cumulative sum in key order, then sorted by sum.
    let mut expected: Vec<(i64, Option<f64>, u64, f64)> = Vec::new();
    let (mut prev, mut total) = (None::<f64>, 0u64);
    for (&k, &(count, sum)) in &sums {
        total += count;
        expected.push((k, prev.map(|p| sum - p), total, sum));
        prev = Some(sum);
    }
    expected.sort_by(|a, b| b.3.total_cmp(&a.3));
    expected.truncate(4);
    let buckets = r["h"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 4);
    for (b, e) in buckets.iter().zip(&expected) {
        assert_eq!(b["key"].as_f64().unwrap() as i64, e.0);
        match e.1 {
            None => assert!(b.get("d").is_none()),
            Some(d) => assert!((b["d"]["value"].as_f64().unwrap() - d).abs() < 1e-9),
        }
        assert_eq!(b["cs"]["value"].as_f64().unwrap() as u64, e.2);
    }
}

#[test]
fn bad_requests_are_400s() {
    let (_tmp, catalog, _docs) = setup(50);
    for body in [
        json!({"c": {"composite": {"sources": []}}}),
        json!({"c": {"composite": {"sources": [{"a": {"terms": {"field": "tag"}}}], "size": 0}}}),
        json!({"c": {"composite": {"sources": [{"a": {"nope": {"field": "tag"}}}]}}}),
        json!({"c": {"composite": {"sources": [{"a": {"terms": {"field": "tag"}}}], "after": {"b": 1}}}}),
        json!({"c": {"composite": {"sources": [{"a": {"histogram": {"field": "n", "interval": -1}}}]}}}),
        json!({"c": {"composite": {"sources": [{"a": {"terms": {"field": "tag"}}}, {"a": {"terms": {"field": "n"}}}]}}}),
        json!({"w": {"weighted_avg": {"value": {"field": "n"}}}}),
        json!({"w": {"weighted_avg": {"value": {"field": "tag"}, "weight": {"field": "w"}}}}),
        json!({"r": {"rare_terms": {"field": "tag", "max_doc_count": 0}}}),
        json!({"r": {"rare_terms": {"field": "tag", "max_doc_count": 101}}}),
        json!({"r": {"rare_terms": {"field": "tag", "include": "t.*"}}}),
        json!({"s": {"significant_terms": {"field": "tag", "chi_square": {}}}}),
        json!({"s": {"significant_terms": {"field": "tag", "size": 0}}}),
        json!({"c": {"cardinality": {"field": "n", "precision_threshold": "x"}}}),
        json!({"c": {"cardinality": {"field": "n"}, "aggs": {"x": {"min": {"field": "n"}}}}}),
        json!({"m": {"missing": {"field": "tag", "other": 1}}}),
        json!({"d": {"derivative": {"buckets_path": "x"}}}),
        json!({"t": {"terms": {"field": "tag"}, "aggs": {"d": {"derivative": {"buckets_path": "_count"}}}}}),
        json!({"h": {"histogram": {"field": "n", "interval": 5}, "aggs": {"d": {"derivative": {}}}}}),
        json!({"h": {"histogram": {"field": "n", "interval": 5}, "aggs": {"d": {"derivative": {"buckets_path": "_count", "gap_policy": "x"}}}}}),
        json!({"h": {"histogram": {"field": "n", "interval": 5}, "aggs": {"b": {"bucket_sort": {"size": -1}}}}}),
        json!({"b": {"bucket_sort": {"size": 1}}}),
        json!({"t": {"terms": {"field": "tag"}, "aggs": {"c": {"composite": {"sources": [{"a": {"terms": {"field": "n"}}}]}}}}}),
    ] {
        assert_eq!(status(&catalog, body.clone()), 400, "{body}");
    }
}
