//! The warming thread: a search that touches part of one segment leaves
//! every segment's table built, and the estimate from looked-up terms
//! equals the one from the table.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tantivy::query::{Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Schema, FAST, INDEXED, STRING};
use tantivy::{doc, Index, Searcher, Term};

use super::coupons::COUPONS;
use super::{warming, DistinctTerms, DistinctTermsCollector};

/// Three segments of 20,000 documents, each with its own 20,000 addresses;
/// `n` numbers the documents within a segment.
fn three_segments() -> Searcher {
    let mut b = Schema::builder();
    let ip = b.add_text_field("ip", STRING | FAST);
    let seg = b.add_u64_field("seg", INDEXED | FAST);
    let n = b.add_u64_field("n", INDEXED | FAST);
    let index = Index::create_in_ram(b.build());
    let mut writer = index.writer_with_num_threads(1, 30_000_000).unwrap();
    for s in 0..3u64 {
        for i in 0..20_000u64 {
            let addr = format!("10.{s}.{}.{}", i / 256, i % 256);
            writer
                .add_document(doc!(ip => addr, seg => s, n => i))
                .unwrap();
        }
        writer.commit().unwrap();
    }
    let searcher = index.reader().unwrap().searcher();
    assert_eq!(searcher.segment_readers().len(), 3);
    searcher
}

fn estimate(searcher: &Searcher, query: &dyn Query) -> f64 {
    let plans = Arc::new(vec![DistinctTerms {
        name: "c".into(),
        column: "ip".into(),
        threshold: crate::search::distinct_count::DEFAULT_THRESHOLD,
    }]);
    let fruit = searcher
        .search(query, &DistinctTermsCollector::new(plans))
        .unwrap();
    assert_eq!(fruit.error(), None);
    fruit.estimates(1)[0]
}

fn wait_for_warming() {
    let start = Instant::now();
    while !warming::idle() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "warming never finished"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn tables(searcher: &Searcher) -> usize {
    searcher
        .segment_readers()
        .iter()
        .filter(|r| COUPONS.contains(r.segment_id(), "ip"))
        .count()
}

#[test]
fn the_untouched_segments_get_their_tables_in_the_background() {
    let searcher = three_segments();
    let schema = searcher.schema();
    let seg = schema.get_field("seg").unwrap();
    let n = schema.get_field("n").unwrap();
    assert_eq!(tables(&searcher), 0);

    // 100 of segment 1's 20,000 terms: looked up, no table built here.
    let few = tantivy::query::BooleanQuery::intersection(vec![
        Box::new(TermQuery::new(
            Term::from_field_u64(seg, 1),
            IndexRecordOption::Basic,
        )),
        Box::new(RangeQuery::new(
            std::ops::Bound::Included(Term::from_field_u64(n, 0)),
            std::ops::Bound::Excluded(Term::from_field_u64(n, 100)),
        )),
    ]);
    let looked_up = estimate(&searcher, &few);
    assert_eq!(looked_up, 100.0, "exact below the threshold");
    wait_for_warming();
    assert_eq!(tables(&searcher), 3, "every segment's table is built");
    assert_eq!(
        estimate(&searcher, &few),
        looked_up,
        "the table gives the same fingerprints"
    );
    // 1,000 terms of each segment: 3,000, the threshold, still exact
    // when counted from the tables and merged across segments.
    let thousand = RangeQuery::new(
        std::ops::Bound::Included(Term::from_field_u64(n, 0)),
        std::ops::Bound::Excluded(Term::from_field_u64(n, 1000)),
    );
    assert_eq!(estimate(&searcher, &thousand), 3000.0);
}
