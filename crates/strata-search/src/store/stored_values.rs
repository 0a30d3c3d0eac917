//! Column values read through the `u64`s tantivy stores them as.
//!
//! tantivy opens an `i64` or `f64` column as a mapping over the stored
//! `u64` column behind a trait object, and the mapping reads a block one
//! value at a time: a dynamic call per value, and a run of consecutive
//! documents never reaches the codec's bulk bit-unpacking (`get_range`).
//! Dashboards read the date, the response code and the coordinates of
//! every matching document, so that per-value call was a fifth of their
//! CPU. [`StoredValues`] reads a block from the stored column in one call
//! ([`read_rows`]: by range when the rows are consecutive, as a time
//! window's documents are) and maps it back in a loop; the values are the
//! same.

use std::marker::PhantomData;
use std::ops::{Range, RangeInclusive};
use std::sync::Arc;

use tantivy::columnar::{ColumnValues, MonotonicallyMappableToU64};

/// Values mapped per pass (a stack buffer of stored values).
const CHUNK: usize = 128;

/// The values of `rows` into `out` (as long as `rows`): one `get_range`
/// when the rows are consecutive, else one `get_vals`.
#[inline]
pub fn read_rows<T: PartialOrd + Copy + 'static>(
    values: &dyn ColumnValues<T>,
    rows: &[u32],
    out: &mut [T],
) {
    match rows.first() {
        Some(&first) if consecutive(rows) => values.get_range(u64::from(first), out),
        _ => values.get_vals(rows, out),
    }
}

/// True when `rows` are `first, first + 1, ...` (empty counts as not).
#[inline]
fn consecutive(rows: &[u32]) -> bool {
    let Some(&first) = rows.first() else {
        return false;
    };
    // Checked in full (cheap beside the decoding): `get_vals` takes any
    // rows, so first and last alone would not settle it.
    rows.iter()
        .zip(first..)
        .fold(true, |all, (&row, expected)| all & (row == expected))
}

/// How the `u64`s tantivy stores become a column's values of type `T`.
///
/// Invariant: strictly increasing, so a range of values is a range of
/// stored values and minimum and maximum map to each other.
pub trait StoredMapping<T>: 'static {
    /// The value of stored `raw`.
    fn from_stored(raw: u64) -> T;
    /// The stored values whose values lie in `range` (an empty range when
    /// none does).
    fn stored_range(range: &RangeInclusive<T>) -> RangeInclusive<u64>;
}

/// tantivy's own mapping of an `i64` or `f64` column
/// (`MonotonicallyMappableToU64`): the values and their order are those
/// of the column tantivy opens.
pub struct TantivyMapping;

impl<T: MonotonicallyMappableToU64> StoredMapping<T> for TantivyMapping {
    #[inline]
    fn from_stored(raw: u64) -> T {
        T::from_u64(raw)
    }

    fn stored_range(range: &RangeInclusive<T>) -> RangeInclusive<u64> {
        range.start().to_u64()..=range.end().to_u64()
    }
}

/// A numeric column's values read through its stored `u64` column, mapped
/// by `M` (tantivy's own mapping unless a field stores its values in a
/// form of its own, as `geo_point` coordinates are).
pub struct StoredValues<T, M = TantivyMapping> {
    stored: Arc<dyn ColumnValues<u64>>,
    _values: PhantomData<fn() -> (T, M)>,
}

impl<T, M> StoredValues<T, M> {
    /// Values of type `T` over a stored column (as
    /// `DynamicColumnHandle::open_u64_lenient` opens it).
    pub fn new(stored: Arc<dyn ColumnValues<u64>>) -> StoredValues<T, M> {
        StoredValues {
            stored,
            _values: PhantomData,
        }
    }
}

impl<T, M: StoredMapping<T>> StoredValues<T, M> {
    /// Maps `raw` into `out`, a chunk at a time.
    #[inline]
    fn map_into(raw: &[u64], out: &mut [T]) {
        for (out, &raw) in out.iter_mut().zip(raw) {
            *out = M::from_stored(raw);
        }
    }
}

impl<T, M> ColumnValues<T> for StoredValues<T, M>
where
    T: PartialOrd + Copy + Send + Sync + 'static,
    M: StoredMapping<T>,
{
    #[inline]
    fn get_val(&self, idx: u32) -> T {
        M::from_stored(self.stored.get_val(idx))
    }

    fn get_vals(&self, indexes: &[u32], output: &mut [T]) {
        assert_eq!(indexes.len(), output.len());
        let mut raw = [0u64; CHUNK];
        for (rows, out) in indexes.chunks(CHUNK).zip(output.chunks_mut(CHUNK)) {
            let raw = &mut raw[..rows.len()];
            read_rows(self.stored.as_ref(), rows, raw);
            Self::map_into(raw, out);
        }
    }

    fn get_range(&self, start: u64, output: &mut [T]) {
        let mut raw = [0u64; CHUNK];
        let mut at = start;
        for out in output.chunks_mut(CHUNK) {
            let raw = &mut raw[..out.len()];
            self.stored.get_range(at, raw);
            Self::map_into(raw, out);
            at += out.len() as u64;
        }
    }

    fn get_row_ids_for_value_range(
        &self,
        value_range: RangeInclusive<T>,
        row_id_range: Range<u32>,
        row_id_hits: &mut Vec<u32>,
    ) {
        // The mapping is strictly monotonic, so the range maps whole.
        self.stored.get_row_ids_for_value_range(
            M::stored_range(&value_range),
            row_id_range,
            row_id_hits,
        )
    }

    fn min_value(&self) -> T {
        M::from_stored(self.stored.min_value())
    }

    fn max_value(&self) -> T {
        M::from_stored(self.stored.max_value())
    }

    fn num_vals(&self) -> u32 {
        self.stored.num_vals()
    }

    fn iter<'a>(&'a self) -> Box<dyn Iterator<Item = T> + 'a> {
        Box::new(self.stored.iter().map(M::from_stored))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use tantivy::columnar::DynamicColumn;
    use tantivy::schema::{Schema, FAST};
    use tantivy::{doc, Index};

    use super::*;

    /// A one-segment index whose fast field `j.n` holds `values` (given
    /// as JSON numbers, so tantivy picks the column type). Shared with the
    /// tests of `search::numbers`.
    pub(crate) fn one_column_segment(values: &[serde_json::Value]) -> tantivy::Searcher {
        let mut builder = Schema::builder();
        let field = builder.add_json_field("j", FAST);
        let index = Index::create_in_ram(builder.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for v in values {
            let object = serde_json::json!({ "n": v }).as_object().unwrap().clone();
            writer
                .add_document(doc!(field => tantivy::schema::OwnedValue::from(object)))
                .unwrap();
        }
        writer.commit().unwrap();
        index.reader().unwrap().searcher()
    }

    /// The column of [`one_column_segment`] as tantivy opens it, beside
    /// the same column read through its stored values.
    fn columns<T>(values: &[serde_json::Value]) -> (Arc<dyn ColumnValues<T>>, StoredValues<T>)
    where
        T: MonotonicallyMappableToU64 + PartialOrd + Copy + Send + Sync + 'static,
        DynamicColumn: Into<Option<tantivy::columnar::Column<T>>>,
    {
        let searcher = one_column_segment(values);
        let segment = searcher.segment_reader(0);
        let handles = segment.fast_fields().dynamic_column_handles("j.n").unwrap();
        let [handle] = handles.as_slice() else {
            panic!("one column expected, got {}", handles.len());
        };
        let opened: Option<tantivy::columnar::Column<T>> = handle.open().unwrap().into();
        let opened = opened.expect("a column of the asked type");
        let stored = handle.open_u64_lenient().unwrap().unwrap();
        (opened.values, StoredValues::new(stored.values))
    }

    /// Every read path of `stored` gives what tantivy's column gives.
    fn same_reads<T>(opened: &dyn ColumnValues<T>, stored: &StoredValues<T>)
    where
        T: MonotonicallyMappableToU64 + PartialOrd + Copy + Send + Sync + std::fmt::Debug + 'static,
    {
        let n = opened.num_vals();
        assert_eq!(stored.num_vals(), n);
        assert!(opened.min_value() == stored.min_value());
        assert!(opened.max_value() == stored.max_value());
        let all: Vec<u32> = (0..n).collect();
        let mut rng = SmallRng::seed_from_u64(u64::from(n));
        // Consecutive runs, sparse sorted rows, repeats and unsorted rows.
        let mut picks: Vec<Vec<u32>> = vec![all.clone(), all[3..200].to_vec(), vec![]];
        picks.push(all.iter().copied().filter(|r| r % 3 == 0).collect());
        picks.push(vec![5, 5, 6, 7]);
        picks.push(vec![9, 8, 7, 10]);
        picks.push((0..500).map(|_| rng.gen_range(0..n)).collect());
        for rows in &picks {
            let mut want = vec![opened.get_val(0); rows.len()];
            opened.get_vals(rows, &mut want);
            let mut got = want.clone();
            got.iter_mut().for_each(|v| *v = stored.get_val(0));
            stored.get_vals(rows, &mut got);
            assert!(want == got, "rows {rows:?}: {want:?} != {got:?}");
            let mut read = want.clone();
            read_rows(stored, rows, &mut read);
            assert!(want == read);
        }
        for (start, len) in [(0, n), (1, n - 1), (130, 300), (n - 1, 1)] {
            let mut want = vec![opened.get_val(0); len as usize];
            opened.get_range(u64::from(start), &mut want);
            let mut got = vec![stored.get_val(0); len as usize];
            stored.get_range(u64::from(start), &mut got);
            assert!(want == got, "range {start}+{len}");
        }
        let (low, high) = (opened.get_val(10), opened.get_val(20));
        let (low, high) = if low <= high {
            (low, high)
        } else {
            (high, low)
        };
        let (mut want, mut got) = (Vec::new(), Vec::new());
        opened.get_row_ids_for_value_range(low..=high, 0..n, &mut want);
        stored.get_row_ids_for_value_range(low..=high, 0..n, &mut got);
        assert_eq!(want, got);
        assert!(opened.iter().zip(stored.iter()).all(|(a, b)| a == b));
    }

    #[test]
    fn stored_i64_values_read_as_tantivy_reads_them() {
        let mut rng = SmallRng::seed_from_u64(1);
        // Time-ordered dates (blockwise linear) and small signed codes.
        let mut t = 1_700_000_000_000i64;
        let dates: Vec<serde_json::Value> = (0..3000)
            .map(|_| {
                t += rng.gen_range(0..50);
                serde_json::json!(t)
            })
            .collect();
        let codes: Vec<serde_json::Value> = (0..3000)
            .map(|_| serde_json::json!(rng.gen_range(-600..600i64)))
            .collect();
        for values in [dates, codes] {
            let (opened, stored) = columns::<i64>(&values);
            same_reads(opened.as_ref(), &stored);
        }
    }

    #[test]
    fn stored_f64_values_read_as_tantivy_reads_them() {
        let mut rng = SmallRng::seed_from_u64(2);
        let values: Vec<serde_json::Value> = (0..3000)
            .map(|_| serde_json::json!(rng.gen_range(-180.0..180.0f64)))
            .collect();
        let (opened, stored) = columns::<f64>(&values);
        same_reads(opened.as_ref(), &stored);
    }

    #[test]
    fn consecutive_rows_are_told_apart() {
        assert!(consecutive(&[4, 5, 6]));
        assert!(consecutive(&[0]));
        assert!(!consecutive(&[]));
        assert!(!consecutive(&[3, 3, 5]));
        assert!(!consecutive(&[5, 4]));
        assert!(!consecutive(&[1, 2, 4]));
    }
}
