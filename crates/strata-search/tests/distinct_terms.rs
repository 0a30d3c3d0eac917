//! `cardinality` of a keyword field, which Strata computes with its cached
//! per-segment term coupons (`search::distinct_terms`), over segments with
//! deleted documents, documents without the field or with two values, and
//! a segment with none of these (read a block at a time):
//! exact for small counts (below `precision_threshold`), within the
//! sketch's error of the true count for large ones and close to the
//! column-scanning cardinality (`scan_aggs`: the same request with
//! `missing`, on documents that all have the field), before and after the
//! tables are cached.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

use crate::common;

struct Doc {
    group: i64,
    ips: Vec<String>,
}

fn setup(tmp: &std::path::Path) -> (Catalog, Vec<Doc>) {
    let properties = json!({
        "ip": {"type": "keyword"},
        "addr": {"type": "ip"},
        "group": {"type": "long"}
    });
    let (catalog, index) = common::logs_index(tmp, 2, properties);
    let mut rng = StdRng::seed_from_u64(3);
    let mut docs = Vec::new();
    for batch in 0..4 {
        for i in 0..3_000 {
            let group = rng.gen_range(0..10);
            let pick = |rng: &mut StdRng| {
                // Group 0 draws from 40 values, the rest from 20,000.
                let n = if group == 0 { 40 } else { 20_000 };
                let v = rng.gen_range(0..n);
                format!("10.0.{}.{}", v / 256, v % 256)
            };
            let ips = match i % 10 {
                0 if batch == 2 => Vec::new(),
                1 if batch == 1 => vec![pick(&mut rng), pick(&mut rng)],
                _ => vec![pick(&mut rng)],
            };
            let mut body = json!({ "group": group });
            if !ips.is_empty() {
                body["ip"] = json!(ips);
                body["addr"] = json!(ips);
            }
            let id = format!("{batch}-{i}");
            index
                .index_document(Some(&id), body.to_string().as_bytes(), Precondition::None)
                .unwrap();
            docs.push((id, Doc { group, ips }));
        }
        index.refresh().unwrap();
    }
    // Deletes in two batches only: segments without deletes are collected
    // a block at a time.
    let deleted = |id: &str| id.ends_with("33") && (id.starts_with("1-") || id.starts_with("3-"));
    for (id, _) in docs.iter().filter(|(id, _)| deleted(id)) {
        index.delete_document(id, Precondition::None).unwrap();
    }
    index.refresh().unwrap();
    let docs = docs
        .into_iter()
        .filter(|(id, _)| !deleted(id))
        .map(|(_, d)| d)
        .collect();
    (catalog, docs)
}

fn cardinality(catalog: &Catalog, query: Value, params: Value) -> f64 {
    let body = json!({"size": 0, "query": query, "aggs": {"c": {"cardinality": params}}});
    let out = common::search_logs(catalog, &body);
    out["aggregations"]["c"]["value"].as_f64().unwrap()
}

#[test]
fn cardinality_from_cached_coupons() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let truth = |pred: &dyn Fn(&Doc) -> bool| {
        let set: HashSet<&String> = docs
            .iter()
            .filter(|d| pred(d))
            .flat_map(|d| &d.ips)
            .collect();
        set.len() as f64
    };
    // Twice per field: the second time every table built by the first is
    // cached. `addr` is an `ip` field, kept as text like a keyword.
    for (round, name) in [(0, "ip"), (1, "ip"), (0, "addr"), (1, "addr")] {
        let field = json!({ "field": name });
        // Small: exact.
        let small = truth(&|d| d.group == 0);
        let q = json!({"term": {"group": 0}});
        assert_eq!(
            cardinality(&catalog, q, field.clone()),
            small,
            "round {round}"
        );
        assert_eq!(
            cardinality(&catalog, json!({"term": {"group": 99}}), field.clone()),
            0.0
        );
        // Large: within the sketch's error, and tantivy's estimate.
        for (query, pred) in [
            (
                json!({"match_all": {}}),
                Box::new(|_: &Doc| true) as Box<dyn Fn(&Doc) -> bool>,
            ),
            (
                json!({"range": {"group": {"gte": 1, "lte": 3}}}),
                Box::new(|d: &Doc| (1..=3).contains(&d.group)),
            ),
        ] {
            let exact = truth(&*pred);
            let native = cardinality(&catalog, query.clone(), field.clone());
            assert!(
                (native - exact).abs() <= exact * 0.08,
                "{native} vs {exact}"
            );
            // Every document of the query has an ip: `missing` changes
            // nothing but the path (the column scan, whose sketches merge
            // by union, not in one sketch: estimates differ a little).
            let with_ip =
                json!({"bool": {"must": [query], "filter": [{"exists": {"field": name}}]}});
            let native = cardinality(&catalog, with_ip.clone(), field.clone());
            let tantivy = cardinality(
                &catalog,
                with_ip,
                json!({"field": name, "missing": "10.9.9.9"}),
            );
            assert!(
                (native - tantivy).abs() <= exact * 0.02,
                "round {round}: {native} vs {tantivy}"
            );
        }
    }
}
