//! Tests of ranked collection: per-segment top hits, scores and their merge.

use tantivy::collector::TopDocs;
use tantivy::query::AllQuery;
use tantivy::schema::{Schema, FAST};
use tantivy::{doc, Index};

use super::*;
use crate::mapping::Mappings;
use crate::search::sort::{Missing, SortField};

fn values_index() -> Index {
    let mut b = Schema::builder();
    let f = b.add_json_field("f", FAST);
    let index = Index::create_in_ram(b.build());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    for i in 0..500i64 {
        // Values repeat (ties), some documents have none.
        let v = (i * 37) % 101;
        if i % 17 == 0 {
            writer.add_document(doc!()).unwrap();
        } else {
            let json = serde_json::json!({ "n": v });
            let obj: serde_json::Map<String, serde_json::Value> = json.as_object().unwrap().clone();
            writer
                .add_document(doc!(f => tantivy::schema::OwnedValue::from(obj)))
                .unwrap();
        }
        if i % 120 == 119 {
            writer.commit().unwrap();
        }
    }
    writer.commit().unwrap();
    index
}

#[test]
fn field_ranking_matches_a_full_sort() {
    let index = values_index();
    let searcher = index.reader().unwrap().searcher();
    assert!(searcher.segment_readers().len() > 1);
    let mappings =
        Mappings::parse(&serde_json::json!({"properties": {"n": {"type": "long"}}})).unwrap();
    for descending in [false, true] {
        for missing in [Missing::Last, Missing::First] {
            let sort = vec![SortField {
                descending,
                missing: missing.clone(),
                ..SortField::plain("n")
            }];
            let orders = Arc::new(super::super::sort::key_orders(&sort));
            let field = Arc::new(FieldRanking {
                sort: sort.clone(),
                orders: Arc::clone(&orders),
                mappings: Arc::new(mappings.clone()),
                after: None,
                track_scores: false,
                runtime: Vec::new(),
            });
            // Every document, ranked by a full sort of all values.
            let all = searcher
                .search(
                    &AllQuery,
                    &Ranking::new(1000, RankBy::Fields(field.clone())),
                )
                .unwrap();
            assert_eq!(all.hits.len(), 500);
            for limit in [1, 7, 64, 499] {
                let top = searcher
                    .search(
                        &AllQuery,
                        &Ranking::new(limit, RankBy::Fields(field.clone())),
                    )
                    .unwrap();
                let got: Vec<_> = top.hits.iter().map(|h| h.addr).collect();
                let want: Vec<_> = all.hits.iter().take(limit).map(|h| h.addr).collect();
                assert_eq!(got, want, "limit {limit} desc {descending} {missing:?}");
            }
            // The general path (here chosen by `track_scores`) agrees
            // with the integer keys of the single numeric criterion.
            let general = Arc::new(FieldRanking {
                track_scores: true,
                ..FieldRanking::clone(&field)
            });
            let top = searcher
                .search(&AllQuery, &Ranking::new(64, RankBy::Fields(general)))
                .unwrap();
            let got: Vec<_> = top.hits.iter().map(|h| h.addr).collect();
            let want: Vec<_> = all.hits.iter().take(64).map(|h| h.addr).collect();
            assert_eq!(got, want, "general path, desc {descending} {missing:?}");
            // The full order really is the sort order, ties by address.
            for w in all.hits.windows(2) {
                let o = rank_cmp(&w[0].values, &w[1].values, &orders);
                assert!(o == Ordering::Less || (o == Ordering::Equal && w[0].addr < w[1].addr));
            }
        }
    }
}

#[test]
fn score_ranking_agrees_with_tantivy() {
    let index = values_index();
    let searcher = index.reader().unwrap().searcher();
    let ours = searcher
        .search(&AllQuery, &Ranking::new(10, RankBy::Score))
        .unwrap();
    let theirs = searcher
        .search(&AllQuery, &TopDocs::with_limit(10).order_by_score())
        .unwrap();
    let ours: Vec<_> = ours.hits.iter().map(|h| h.addr).collect();
    let theirs: Vec<_> = theirs.iter().map(|(_, a)| *a).collect();
    assert_eq!(ours, theirs);
}
