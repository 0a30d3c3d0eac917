//! The zone-skipping doc set against a model: the documents whose value is
//! in range, found by reading every value.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

struct Values(Vec<i64>);

impl ColumnValues<i64> for Values {
    fn get_val(&self, idx: u32) -> i64 {
        self.0[idx as usize]
    }
    fn min_value(&self) -> i64 {
        self.0.iter().copied().min().unwrap_or(0)
    }
    fn max_value(&self) -> i64 {
        self.0.iter().copied().max().unwrap_or(0)
    }
    fn num_vals(&self) -> u32 {
        self.0.len() as u32
    }
}

fn doc_set(values: &[i64], range: RangeInclusive<i64>) -> ZoneRangeDocSet {
    let column: Arc<dyn ColumnValues<i64>> = Arc::new(Values(values.to_vec()));
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

#[test]
fn advancing_yields_exactly_the_model() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..200 {
        let len = rng.gen_range(0..4 * ZONE_DOCS as usize);
        let values = random_values(&mut rng, len);
        let a = rng.gen_range(-50..3_000);
        let range = a..=a + rng.gen_range(0..2_000);
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

#[test]
fn seeking_lands_on_the_first_match_at_or_after_the_target() {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let len = rng.gen_range(1..4 * ZONE_DOCS as usize);
        let values = random_values(&mut rng, len);
        let a = rng.gen_range(-50..3_000);
        let range = a..=a + rng.gen_range(0..2_000);
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
    let values: Vec<i64> = (0..(3 * ZONE_DOCS as i64)).collect();
    let zone = ZONE_DOCS as i64;
    let set = doc_set(&values, zone + 1..=zone + 2);
    assert_eq!(set.doc(), zone as DocId + 1);
    assert_eq!(set.size_hint(), ZONE_DOCS, "one zone straddles the range");
    let set = doc_set(&values, 10 * zone..=11 * zone);
    assert_eq!(set.doc(), TERMINATED);
    assert_eq!(set.size_hint(), 0);
}
