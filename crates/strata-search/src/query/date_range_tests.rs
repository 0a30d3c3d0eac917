//! The zone-skipping doc set against a model: the documents whose value is
//! in range, found by reading every value.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::super::zone_map::TestColumn;
use super::*;

fn doc_set(values: &[i64], range: RangeInclusive<i64>) -> ZoneRangeDocSet {
    let column: Arc<dyn ColumnValues<i64>> = Arc::new(TestColumn(values.to_vec()));
    let zones = Arc::new(ZoneMap::build(column.as_ref()));
    ZoneRangeDocSet::new(column, zones, range)
}

fn model(values: &[i64], range: &RangeInclusive<i64>) -> Vec<DocId> {
    (0..values.len() as DocId)
        .filter(|&d| range.contains(&values[d as usize]))
        .collect()
}

/// Mostly increasing times with some disorder, as bulk indexing and merges
/// leave them, or fully random.
fn random_values(rng: &mut StdRng, len: usize) -> Vec<i64> {
    if rng.gen_bool(0.3) {
        return (0..len).map(|_| rng.gen_range(0..10_000)).collect();
    }
    let mut t = 0i64;
    (0..len)
        .map(|_| {
            t += rng.gen_range(0..3);
            t - rng.gen_range(0..20)
        })
        .collect()
}

/// Random values of at least `min_len` documents (up to four zones) and a
/// random range over them.
fn random_case(rng: &mut StdRng, min_len: usize) -> (Vec<i64>, RangeInclusive<i64>) {
    let len = rng.gen_range(min_len..4 * ZONE_DOCS as usize);
    let values = random_values(rng, len);
    let a = rng.gen_range(-50..3_000);
    (values, a..=a + rng.gen_range(0..2_000))
}

#[test]
fn advancing_yields_exactly_the_model() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..200 {
        let (values, range) = random_case(&mut rng, 0);
        let mut set = doc_set(&values, range.clone());
        let mut got = Vec::new();
        while set.doc() != TERMINATED {
            got.push(set.doc());
            set.advance();
        }
        assert_eq!(got, model(&values, &range));
        assert_eq!(
            set.advance(),
            TERMINATED,
            "advancing past the end stays there"
        );
    }
}

/// Blocks filled a buffer at a time, between single steps and seeks, give
/// the model's documents in order, and the doc set stays positioned on the
/// document after each block.
#[test]
fn filling_buffers_yields_exactly_the_model() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let (values, range) = random_case(&mut rng, 0);
        let want = model(&values, &range);
        let mut set = doc_set(&values, range);
        let mut got = Vec::new();
        let mut buffer = [0; COLLECT_BLOCK_BUFFER_LEN];
        while set.doc() != TERMINATED {
            match rng.gen_range(0..4) {
                0 => {
                    got.push(set.doc());
                    set.advance();
                }
                1 => {
                    // A seek to the current document moves nothing.
                    let doc = set.doc();
                    assert_eq!(set.seek(doc), doc);
                }
                _ => {
                    let n = set.fill_buffer(&mut buffer);
                    assert!(n > 0, "a positioned doc set fills at least one");
                    got.extend_from_slice(&buffer[..n]);
                    if n < buffer.len() {
                        assert_eq!(set.doc(), TERMINATED, "a short block ends the set");
                    }
                }
            }
            if let (Some(&last), doc) = (got.last(), set.doc()) {
                assert!(doc > last, "positioned after the last document given");
            }
        }
        assert_eq!(got, want);
        assert_eq!(set.fill_buffer(&mut buffer), 0);
    }
}

#[test]
fn seeking_lands_on_the_first_match_at_or_after_the_target() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let (values, range) = random_case(&mut rng, 1);
        let expected = model(&values, &range);
        let mut set = doc_set(&values, range);
        let mut target = 0;
        loop {
            target += rng.gen_range(0..ZONE_DOCS + 100);
            let want = expected
                .iter()
                .copied()
                .find(|&d| d >= target.max(set.doc()))
                .unwrap_or(TERMINATED);
            let got = set.seek(target);
            assert_eq!(got, want, "seek({target})");
            if got == TERMINATED {
                break;
            }
            if rng.gen_bool(0.3) {
                let next = expected
                    .iter()
                    .copied()
                    .find(|&d| d > got)
                    .unwrap_or(TERMINATED);
                assert_eq!(set.advance(), next);
                if next == TERMINATED {
                    break;
                }
            }
        }
        assert_eq!(set.seek(TERMINATED), TERMINATED);
    }
}

#[test]
fn the_size_hint_covers_every_match() {
    let values: Vec<i64> = (0..(3 * i64::from(ZONE_DOCS))).collect();
    let zone = i64::from(ZONE_DOCS);
    let set = doc_set(&values, zone + 1..=zone + 2);
    assert_eq!(set.doc(), zone as DocId + 1);
    assert_eq!(set.size_hint(), ZONE_DOCS, "one zone straddles the range");
    let set = doc_set(&values, 10 * zone..=11 * zone);
    assert_eq!(set.doc(), TERMINATED);
    assert_eq!(set.size_hint(), 0);
}

/// `explain` on a real segment: a match explains, a document before the
/// first match or after the last is refused (the scorer is never sought
/// backwards, which tantivy's own range `explain` does), through the zones
/// and through the fallback (a segment where one document has no value).
#[test]
fn explain_answers_for_matches_only() {
    use std::ops::Bound;
    use tantivy::schema::{Schema, FAST, INDEXED};
    use tantivy::{doc, Index, TantivyDocument, Term};

    for with_gap in [false, true] {
        let mut b = Schema::builder();
        let t = b.add_i64_field("t", FAST | INDEXED);
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for v in 0..(3 * i64::from(ZONE_DOCS)) {
            writer.add_document(doc!(t => v)).unwrap();
        }
        if with_gap {
            writer.add_document(TantivyDocument::default()).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = searcher.segment_reader(0);
        let query = |low: i64, high: i64| {
            let fallback = RangeQuery::new(
                Bound::Included(Term::from_field_i64(t, low)),
                Bound::Included(Term::from_field_i64(t, high)),
            );
            let query = DateRangeQuery::new("t".into(), low..=high, fallback);
            query
                .weight(EnableScoring::disabled_from_searcher(&searcher))
                .unwrap()
        };
        let weight = query(600, 700);
        assert!(weight.explain(segment, 650).is_ok());
        assert!(weight.explain(segment, 600).is_ok());
        assert!(weight.explain(segment, 599).is_err());
        assert!(weight.explain(segment, 701).is_err());
        let weight = query(5_000, 6_000);
        assert!(
            weight.explain(segment, 10).is_err(),
            "no match in the segment"
        );
    }
}
