//! Forced merges racing other merges of the same segments. tantivy starts an
//! explicit merge even when some of its segments are already being merged,
//! and whichever merge ends second is refused ("the segments that were
//! merged could not be found"): a `_forcemerge` sent right after a bulk
//! load, while the merge policy's own merges ran, answered with a 400. Two
//! forced merges at once lose the same race every time, so each round here
//! writes a burst of small commits and starts two; both must succeed and
//! leave one segment per shard holding every document.

use std::sync::Barrier;

use serde_json::json;
use strata_search::{search, Catalog, Precondition, SearchRequest};

const ROUNDS: u32 = 4;
const COMMITS_PER_ROUND: u32 = 12;
const DOCS_PER_COMMIT: u32 = 50;

#[test]
fn forced_merges_racing_other_merges_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    catalog
        .create_index(
            "m",
            &json!({"settings": {"number_of_shards": 2, "refresh_interval": "-1"}}),
        )
        .unwrap();
    let index = catalog.get("m").unwrap();
    let mut written = 0u32;
    for round in 0..ROUNDS {
        for _ in 0..COMMITS_PER_ROUND {
            for _ in 0..DOCS_PER_COMMIT {
                let doc =
                    json!({"n": written, "round": round, "tag": format!("t{}", written % 13)});
                let id = written.to_string();
                index
                    .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
                    .unwrap();
                written += 1;
            }
            index.refresh().unwrap();
        }
        let start = Barrier::new(2);
        let results: Vec<_> = std::thread::scope(|s| {
            let merges: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        index.force_merge(1)
                    })
                })
                .collect();
            merges.into_iter().map(|m| m.join().unwrap()).collect()
        });
        for (n, result) in results.into_iter().enumerate() {
            result.unwrap_or_else(|e| panic!("round {round}: forced merge {n} failed: {e}"));
        }
        for (shard, searcher) in index.searchers().iter().enumerate() {
            assert!(
                searcher.segment_readers().len() <= 1,
                "round {round}: shard {shard} has {} segments after the forced merges",
                searcher.segment_readers().len()
            );
        }
        let indices = catalog.resolve("m").unwrap();
        let body = json!({"size": 0, "track_total_hits": true, "query": {"match_all": {}}});
        let found = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
        assert_eq!(
            found["hits"]["total"]["value"],
            json!(written),
            "round {round}"
        );
    }
}
