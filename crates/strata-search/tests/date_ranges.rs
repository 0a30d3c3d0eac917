//! `range` and `sort` on a `date` field across segments of every shape the
//! zone maps meet: time-ordered, shuffled, wholly inside or outside a
//! window, and a segment where some documents have no date (answered by
//! tantivy's own range and the usual ranking). Every count is checked
//! against the documents indexed, alone and intersected with a term (which
//! seeks into the range); every date sort against the same sort on a
//! `long` copy of the date, which never goes by zone maps (ties included:
//! dates repeat).

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition, SearchIndex};

use crate::common;

const T0: i64 = 1_700_000_000_000;

struct Doc {
    at: Option<i64>,
    even: bool,
}

/// The one-shard index `logs`: `@timestamp` a date, `millis` a long,
/// `parity` a keyword.
fn create(tmp: &std::path::Path) -> (Catalog, Arc<SearchIndex>) {
    let properties = json!({
        "@timestamp": {"type": "date"},
        "parity": {"type": "keyword"},
        "millis": {"type": "long"}
    });
    common::logs_index(tmp, 1, properties)
}

fn setup(tmp: &std::path::Path) -> (Catalog, Vec<Doc>) {
    let (catalog, index) = create(tmp);
    let mut rng = StdRng::seed_from_u64(5);
    let mut docs = Vec::new();
    let mut t = T0;
    // Each batch becomes one segment (no merges below the policy's floor).
    for batch in 0..6 {
        let mut segment: Vec<Doc> = (0..1_500)
            .map(|i| {
                t += rng.gen_range(0..4);
                let at = match batch {
                    // Some documents without a date: not one value per doc.
                    3 if i % 7 == 0 => None,
                    // Whole tenths of a second: many ties.
                    _ => Some((t - rng.gen_range(0..500)) / 100 * 100),
                };
                Doc {
                    at,
                    even: i % 2 == 0,
                }
            })
            .collect();
        if batch == 4 {
            segment.shuffle(&mut rng);
        }
        for doc in &segment {
            let mut body = json!({ "parity": if doc.even { "even" } else { "odd" } });
            if let Some(at) = doc.at {
                body["@timestamp"] = json!(at);
                body["millis"] = json!(at);
            }
            index
                .index_document(None, body.to_string().as_bytes(), Precondition::None)
                .unwrap();
        }
        index.refresh().unwrap();
        docs.extend(segment);
    }
    (catalog, docs)
}

fn count(catalog: &Catalog, query: Value) -> u64 {
    let body = json!({ "size": 0, "track_total_hits": true, "query": query });
    common::search_logs(catalog, &body)["hits"]["total"]["value"]
        .as_u64()
        .unwrap()
}

#[test]
fn date_ranges_count_exactly_in_every_segment_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let last = docs.iter().filter_map(|d| d.at).max().unwrap();
    let mut rng = StdRng::seed_from_u64(9);
    let mut windows: Vec<(i64, i64)> = (0..40)
        .map(|_| {
            let low = rng.gen_range(T0 - 1_000..last + 1_000);
            (low, low + rng.gen_range(0..=last - T0))
        })
        .collect();
    // Whole data, nothing, one millisecond, the newest minute.
    windows.extend([
        (T0 - 10_000, last + 10),
        (last + 1, last + 5),
        (T0 + 1_000, T0 + 1_000),
    ]);
    windows.push((last - 60_000, last));
    for (low, high) in windows {
        for (lower, upper) in [("gte", "lte"), ("gt", "lt"), ("gte", "lt")] {
            let inside = |at: i64| {
                (if lower == "gte" { at >= low } else { at > low })
                    && (if upper == "lte" {
                        at <= high
                    } else {
                        at < high
                    })
            };
            let range = json!({ "range": { "@timestamp": { lower: low, upper: high } } });
            let expected = docs.iter().filter(|d| d.at.is_some_and(inside)).count() as u64;
            assert_eq!(count(&catalog, range.clone()), expected, "{range}");
            let even = json!({ "bool": { "filter": [range, { "term": { "parity": "even" } }] } });
            let expected_even = docs
                .iter()
                .filter(|d| d.even && d.at.is_some_and(inside))
                .count() as u64;
            assert_eq!(count(&catalog, even.clone()), expected_even, "{even}");
        }
    }
    // Open-ended ranges and date strings take the same path.
    let after = T0 + 30_000;
    let expected = docs
        .iter()
        .filter(|d| d.at.is_some_and(|at| at >= after))
        .count() as u64;
    assert_eq!(
        count(
            &catalog,
            json!({ "range": { "@timestamp": { "gte": after } } })
        ),
        expected
    );
    let iso = json!({ "range": { "@timestamp": { "lt": "2023-11-14T22:13:20.000Z" } } });
    let expected = docs
        .iter()
        .filter(|d| d.at.is_some_and(|at| at < T0))
        .count() as u64;
    assert_eq!(count(&catalog, iso), expected);
}

fn hit_ids(catalog: &Catalog, body: Value) -> Vec<(String, Value)> {
    common::search_logs(catalog, &body)["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["sort"][0].clone()))
        .collect()
}

#[test]
fn date_sorts_rank_as_the_same_values_in_a_long_field() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, docs) = setup(tmp.path());
    let last = docs.iter().filter_map(|d| d.at).max().unwrap();
    let mut rng = StdRng::seed_from_u64(13);
    for round in 0..30 {
        let size = [1, 10, 500, 2_000, 10_000][round % 5];
        let low = rng.gen_range(T0 - 1_000..last);
        let range = json!({ "range": { "@timestamp": { "gte": low } } });
        let query = match round % 3 {
            0 => json!({ "match_all": {} }),
            1 => range,
            _ => json!({ "bool": { "filter": [range, { "term": { "parity": "odd" } }] } }),
        };
        for (order, aggs) in [("desc", false), ("asc", false), ("desc", true)] {
            let body = |field: &str| {
                let mut body = json!({ "size": size, "query": query,
                    "sort": [{ field: { "order": order } }] });
                if aggs {
                    body["aggs"] = json!({ "n": { "value_count": { "field": "millis" } } });
                }
                body
            };
            let by_date = hit_ids(&catalog, body("@timestamp"));
            let by_long = hit_ids(&catalog, body("millis"));
            assert!(!by_date.is_empty() || round % 3 != 0);
            assert_eq!(by_date, by_long, "size {size} {order} {query}");
        }
    }
}

/// The newest date in a later zone, the rest equal: the probe is the later
/// zone, and the earlier zone's documents, tied at the threshold with lower
/// ids, still rank before the probe's own.
#[test]
fn ties_at_the_threshold_go_to_the_lower_document() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = create(tmp.path());
    for i in 0..1_500i64 {
        let at = if i == 700 { T0 + 1_000 } else { T0 };
        let body = json!({ "@timestamp": at, "millis": at });
        index
            .index_document(None, body.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    for size in [1, 2, 10, 600] {
        let body = |field: &str| {
            json!({ "size": size, "query": { "match_all": {} },
                "sort": [{ field: { "order": "desc" } }] })
        };
        let by_date = hit_ids(&catalog, body("@timestamp"));
        assert_eq!(by_date.len(), size);
        assert_eq!(by_date, hit_ids(&catalog, body("millis")), "size {size}");
    }
}
