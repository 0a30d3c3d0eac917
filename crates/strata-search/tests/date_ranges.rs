//! `range` on a `date` field across segments of every shape the zone maps
//! meet: time-ordered, shuffled, wholly inside or outside a window, and a
//! segment where some documents have no date (answered by tantivy's own
//! range). Every count is checked against the documents indexed, alone and
//! intersected with a term (which seeks into the range).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::search::{search, SearchRequest};
use strata_search::{Catalog, Precondition};

const T0: i64 = 1_700_000_000_000;

struct Doc {
    at: Option<i64>,
    even: bool,
}

fn setup(tmp: &std::path::Path) -> (Catalog, Vec<Doc>) {
    let catalog = Catalog::open(tmp).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"index": {"number_of_shards": 1, "refresh_interval": "-1",
                    "translog": {"durability": "async"}}},
                "mappings": {"properties": {
                    "@timestamp": {"type": "date"},
                    "parity": {"type": "keyword"}
                }}
            }),
        )
        .unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let mut docs = Vec::new();
    let mut t = T0;
    // Each batch becomes one segment (no merges below the policy's floor).
    for batch in 0..6 {
        let mut segment: Vec<Doc> = (0..1_500)
            .map(|i| {
                t += rng.gen_range(0..40);
                let at = match batch {
                    // Some documents without a date: not one value per doc.
                    3 if i % 7 == 0 => None,
                    _ => Some(t - rng.gen_range(0..500)),
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
    let indices = catalog.resolve("logs").unwrap();
    let body = json!({ "size": 0, "track_total_hits": true, "query": query });
    let req = SearchRequest::parse(&body).unwrap();
    search(&indices, &req).unwrap()["hits"]["total"]["value"]
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
            (low, low + rng.gen_range(0..last - T0))
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
