//! `terms` of keyword and ip fields by count, alone or with one `terms` below,
//! which Strata counts with its own collector (`search::top_terms`),
//! checked over segments of every shape (one value per document, read a
//! block at a time; documents without a value; several values, repeated;
//! deleted documents) and two shards:
//!
//! - against a model counted here from the documents indexed;
//! - against the same request with `show_term_doc_count_error: true`
//!   (what the default means already), which tantivy's collector computes
//!   (identical JSON expected where no segment cuts its terms);
//! - where segments cut their terms (`shard_size`), against the bounds the
//!   reply states: each count within `doc_count_error_upper_bound` below
//!   the true count, and buckets plus `sum_other_doc_count` adding up.

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

use crate::common::{self, key_counts as buckets};

struct Doc {
    id: String,
    name: Vec<String>,
    major: Vec<String>,
    code: i64,
}

/// A value of `0..n` drawn with weights falling as 1/(i+1), so counts
/// differ and a few terms lead.
fn skewed(rng: &mut StdRng, prefix: &str, n: usize) -> String {
    let total: f64 = (1..=n).map(|i| 1.0 / i as f64).sum();
    let mut x = rng.gen_range(0.0..total);
    for i in 0..n {
        x -= 1.0 / (i + 1) as f64;
        if x < 0.0 {
            return format!("{prefix}{i}");
        }
    }
    format!("{prefix}{}", n - 1)
}

fn setup(tmp: &std::path::Path) -> (Catalog, Vec<Doc>) {
    let properties = json!({
        "name": {"type": "keyword"},
        "major": {"type": "keyword"},
        "addr": {"type": "ip"},
        "client": {"type": "ip"},
        "code": {"type": "long"}
    });
    let (catalog, index) = common::logs_index(tmp, 2, properties);
    let mut rng = StdRng::seed_from_u64(23);
    let mut docs = Vec::new();
    for batch in 0..5 {
        let segment: Vec<Doc> = (0..700)
            .map(|i| {
                let one = |rng: &mut StdRng, p, n| vec![skewed(rng, p, n)];
                // Batches 0 and 4: one name and one major in every document.
                let (name, major) = match (batch, i % 7) {
                    (0 | 4, _) => (one(&mut rng, "n", 30), one(&mut rng, "m", 12)),
                    (_, 0) => (Vec::new(), one(&mut rng, "m", 12)),
                    (_, 1) => (one(&mut rng, "n", 30), Vec::new()),
                    (_, 2) => {
                        let a = skewed(&mut rng, "n", 30);
                        let b = skewed(&mut rng, "n", 30);
                        (vec![a.clone(), b, a], one(&mut rng, "m", 12))
                    }
                    (_, 3) => (
                        one(&mut rng, "n", 30),
                        vec![skewed(&mut rng, "m", 12), skewed(&mut rng, "m", 12)],
                    ),
                    _ => (one(&mut rng, "n", 30), one(&mut rng, "m", 12)),
                };
                Doc {
                    id: format!("{batch}-{i}"),
                    name,
                    major,
                    code: rng.gen_range(0..10),
                }
            })
            .collect();
        for doc in &segment {
            // Hundreds of clients per segment: thousands of (name, client)
            // pairs, counted in a hash map.
            let client = rng.gen_range(0..5_000);
            let client = format!("10.1.{}.{}", client / 256, client % 256);
            let mut body = json!({ "code": doc.code, "client": client });
            for (field, values) in [("name", &doc.name), ("major", &doc.major)] {
                match values.as_slice() {
                    [] => {}
                    [one] => body[field] = json!(one),
                    many => body[field] = json!(many),
                }
            }
            // `addr` holds the names as addresses: name `n7` is 10.0.0.7.
            let addrs: Vec<String> = doc.name.iter().map(|n| address(n)).collect();
            match addrs.as_slice() {
                [] => {}
                [one] => body["addr"] = json!(one),
                many => body["addr"] = json!(many),
            }
            index
                .index_document(
                    Some(&doc.id),
                    body.to_string().as_bytes(),
                    Precondition::None,
                )
                .unwrap();
        }
        index.refresh().unwrap();
        docs.extend(segment);
    }
    let deleted =
        |d: &Doc| d.id.ends_with('3') && (d.id.starts_with("1-") || d.id.starts_with("4-"));
    for doc in docs.iter().filter(|d| deleted(d)) {
        index.delete_document(&doc.id, Precondition::None).unwrap();
    }
    index.refresh().unwrap();
    docs.retain(|d| !deleted(d));
    (catalog, docs)
}

/// The address standing for name `n<i>`: 10.0.0.<i> (in the same order
/// as the names, which differ only in the digits after a fixed prefix).
fn address(name: &str) -> String {
    format!("10.0.0.{}", &name[1..])
}

fn distinct(values: &[String]) -> BTreeSet<&str> {
    values.iter().map(String::as_str).collect()
}

/// Per outer term: documents, and per inner term documents among them.
type Model<'a> = BTreeMap<&'a str, (u64, BTreeMap<&'a str, u64>)>;

fn model<'a>(docs: &'a [Doc], outer: &str, inner: Option<&str>, codes: i64) -> Model<'a> {
    let field = |d: &'a Doc, f: &str| if f == "name" { &d.name } else { &d.major };
    let mut out = Model::new();
    for doc in docs.iter().filter(|d| d.code < codes) {
        for a in distinct(field(doc, outer)) {
            let entry = out.entry(a).or_default();
            entry.0 += 1;
            for b in inner.map(|f| distinct(field(doc, f))).unwrap_or_default() {
                *entry.1.entry(b).or_default() += 1;
            }
        }
    }
    out
}

/// The model's reply for one level: `size` buckets by count then key,
/// with `min_doc_count`, and the documents of the others.
fn top<'a>(
    counts: impl Iterator<Item = (&'a str, u64)>,
    size: usize,
    min: u64,
) -> (Vec<(&'a str, u64)>, u64) {
    let mut all: Vec<(&str, u64)> = counts.filter(|c| c.1 >= min).collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let other = all.iter().skip(size).map(|c| c.1).sum();
    all.truncate(size);
    (all, other)
}

fn request(
    outer: &str,
    size: usize,
    inner: Option<(&str, usize)>,
    extra: Value,
    codes: i64,
) -> Value {
    let mut terms = json!({"field": outer, "size": size, "order": {"_count": "desc"}});
    terms
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let mut agg = json!({ "terms": terms });
    if let Some((field, size)) = inner {
        agg["aggs"] = json!({"i": {"terms": {"field": field, "size": size}}});
    }
    json!({
        "size": 0,
        "query": {"range": {"code": {"lt": codes}}},
        "aggs": {"t": agg}
    })
}

fn owned(v: Vec<(&str, u64)>) -> Vec<(String, u64)> {
    v.into_iter().map(|(k, n)| (k.to_string(), n)).collect()
}

#[test]
fn top_terms_match_the_model_and_tantivy() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let cases = [
        ("name", 5, None, json!({}), 10),
        ("name", 40, None, json!({}), 10),
        ("major", 3, None, json!({"min_doc_count": 200}), 6),
        ("name", 4, Some(("major", 3)), json!({}), 10),
        (
            "major",
            5,
            Some(("name", 4)),
            json!({"min_doc_count": 2}),
            3,
        ),
        (
            "name",
            8,
            Some(("major", 20)),
            json!({"shard_size": 80}),
            10,
        ),
    ];
    for (outer, size, inner, extra, codes) in cases {
        let body = request(outer, size, inner, extra.clone(), codes);
        let own = common::search_logs(&catalog, &body);
        let t = &own["aggregations"]["t"];
        let min = extra
            .get("min_doc_count")
            .and_then(Value::as_u64)
            .unwrap_or(1);
        let expected = model(&docs, outer, inner.map(|i| i.0), codes);
        let (want, other) = top(expected.iter().map(|(k, v)| (*k, v.0)), size, min);
        assert_eq!(buckets(t), owned(want.clone()), "{body}");
        assert_eq!(t["sum_other_doc_count"], json!(other), "{body}");
        assert_eq!(t["doc_count_error_upper_bound"], json!(0), "{body}");
        if let Some((_, inner_size)) = inner {
            for (bucket, (key, _)) in t["buckets"].as_array().unwrap().iter().zip(&want) {
                let (want, other) =
                    top(expected[key].1.iter().map(|(k, n)| (*k, *n)), inner_size, 1);
                assert_eq!(buckets(&bucket["i"]), owned(want), "{key} {body}");
                assert_eq!(
                    bucket["i"]["sum_other_doc_count"],
                    json!(other),
                    "{key} {body}"
                );
            }
        }
        let mut through_tantivy = body.clone();
        through_tantivy["aggs"]["t"]["terms"]["show_term_doc_count_error"] = json!(true);
        let tantivy = common::search_logs(&catalog, &through_tantivy);
        assert_eq!(own["aggregations"], tantivy["aggregations"], "{body}");
        assert_eq!(own["hits"]["total"], tantivy["hits"]["total"]);
    }
}

#[test]
fn segments_that_cut_their_terms_state_the_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    for (outer, size, shard_size, inner) in [
        ("name", 3, 3, None),
        ("name", 2, 4, Some(("major", 1))),
        ("major", 4, 5, Some(("name", 2))),
    ] {
        let extra = json!({"shard_size": shard_size});
        let body = request(outer, size, inner, extra, 10);
        let own = common::search_logs(&catalog, &body);
        let t = &own["aggregations"]["t"];
        let expected = model(&docs, outer, inner.map(|i| i.0), 10);
        check_bounds(t, expected.iter().map(|(k, v)| (*k, v.0)).collect(), &body);
        assert!(
            t["doc_count_error_upper_bound"].as_u64() > Some(0),
            "{body}"
        );
        if inner.is_some() {
            // The level below is counted in the segments that kept the
            // bucket: all of them where the bucket's count is the truth.
            let mut whole = 0;
            for bucket in t["buckets"].as_array().unwrap() {
                let key = bucket["key"].as_str().unwrap();
                if bucket["doc_count"].as_u64() != Some(expected[key].0) {
                    continue;
                }
                whole += 1;
                let counts = expected[key].1.iter().map(|(k, n)| (*k, *n)).collect();
                check_bounds(&bucket["i"], counts, &body);
            }
            assert!(whole > 0, "{body}");
        }
    }
}

/// A cut level's reply against the true counts: every term's count is at
/// most the truth and at least the truth less the stated error, and the
/// buckets with `sum_other_doc_count` count every value of every term
/// (documents in segments that cut a term count as other).
fn check_bounds(level: &Value, truth: BTreeMap<&str, u64>, body: &Value) {
    let error = level["doc_count_error_upper_bound"].as_u64().unwrap();
    let mut total = level["sum_other_doc_count"].as_u64().unwrap();
    for (key, count) in buckets(level) {
        let real = truth[key.as_str()];
        assert!(
            count <= real && count + error >= real,
            "{key}: {count} of {real} ± {error} {body}"
        );
        total += count;
    }
    assert_eq!(total, truth.values().sum::<u64>(), "{body}");
}

#[test]
fn ip_terms_count_like_the_keyword_they_mirror() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, _) = setup(tmp.path());
    for (size, inner, extra, codes) in [
        (5, None, json!({}), 10),
        (40, None, json!({"min_doc_count": 3}), 7),
        (4, Some(("major", 3)), json!({}), 10),
        (3, None, json!({"shard_size": 3}), 10),
    ] {
        let by_name = request("name", size, inner, extra.clone(), codes);
        let by_addr = request("addr", size, inner, extra, codes);
        let names = common::search_logs(&catalog, &by_name)["aggregations"]["t"].clone();
        let own = common::search_logs(&catalog, &by_addr);
        let t = &own["aggregations"]["t"];
        let mapped: Vec<(String, u64)> = buckets(&names)
            .into_iter()
            .map(|(k, n)| (address(&k), n))
            .collect();
        assert_eq!(buckets(t), mapped, "{by_addr}");
        for key in ["sum_other_doc_count", "doc_count_error_upper_bound"] {
            assert_eq!(t[key], names[key], "{key} {by_addr}");
        }
        for (a, n) in t["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .zip(names["buckets"].as_array().unwrap())
        {
            assert_eq!(a["i"], n["i"], "{by_addr}");
        }
        let mut through_tantivy = by_addr.clone();
        through_tantivy["aggs"]["t"]["terms"]["show_term_doc_count_error"] = json!(true);
        let tantivy = common::search_logs(&catalog, &through_tantivy);
        assert_eq!(own["aggregations"], tantivy["aggregations"], "{by_addr}");
    }
}

#[test]
fn many_pairs_count_like_tantivy() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, _) = setup(tmp.path());
    // Sizes large enough that no segment cuts a level (a cut among equal
    // counts may keep other terms than tantivy's).
    for (outer, size, inner, codes) in [
        ("name", 6, Some(("client", 500)), 10),
        ("client", 500, Some(("major", 8)), 10),
        ("client", 600, None, 4),
    ] {
        let body = request(outer, size, inner, json!({}), codes);
        let own = common::search_logs(&catalog, &body);
        let mut through_tantivy = body.clone();
        through_tantivy["aggs"]["t"]["terms"]["show_term_doc_count_error"] = json!(true);
        let tantivy = common::search_logs(&catalog, &through_tantivy);
        assert_eq!(own["aggregations"], tantivy["aggregations"], "{body}");
        assert!(!buckets(&own["aggregations"]["t"]).is_empty(), "{body}");
    }
}
