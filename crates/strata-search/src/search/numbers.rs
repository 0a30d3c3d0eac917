//! A numeric column read as `f64` whatever numeric type a segment stored
//! it as, for the metrics Strata computes itself.
//!
//! tantivy coerces an `i64` column to `f64` by wrapping it in a mapping
//! column whose block read calls the wrapped column once per value through
//! a trait object: two fifths of the CPU of a percentiles or sum over a
//! `long` field. Here the column's stored `u64` form is read a block at a
//! time in one call, and each value is mapped back to its number in a loop
//! chosen once per block.

use tantivy::columnar::{Cardinality, Column, ColumnType, MonotonicallyMappableToU64};
use tantivy::{DocId, SegmentReader};

use crate::store::stored_values::read_rows;

/// How the stored `u64`s map back to numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    I64,
    U64,
    F64,
}

impl Stored {
    #[inline(always)]
    fn value(self, raw: u64) -> f64 {
        match self {
            Stored::I64 => i64::from_u64(raw) as f64,
            Stored::U64 => raw as f64,
            Stored::F64 => f64::from_u64(raw),
        }
    }
}

/// A segment's numeric column, as `f64`s.
#[derive(Clone)]
pub struct F64Column {
    raw: Column<u64>,
    stored: Stored,
}

impl F64Column {
    /// The segment's first numeric column at `name` (as tantivy's
    /// coercion picks it); `None` when it has none.
    pub fn open(segment: &SegmentReader, name: &str) -> Option<F64Column> {
        let handles = segment.fast_fields().dynamic_column_handles(name).ok()?;
        handles.into_iter().find_map(|handle| {
            let stored = match handle.column_type() {
                ColumnType::I64 => Stored::I64,
                ColumnType::U64 => Stored::U64,
                ColumnType::F64 => Stored::F64,
                _ => return None,
            };
            let raw = handle.open_u64_lenient().ok()??;
            Some(F64Column { raw, stored })
        })
    }

    /// Every document holds exactly one value.
    pub fn is_dense(&self) -> bool {
        self.raw.get_cardinality() == Cardinality::Full
    }

    /// The values of `doc`.
    pub fn values_for_doc(&self, doc: DocId) -> impl Iterator<Item = f64> + '_ {
        let stored = self.stored;
        self.raw.values_for_doc(doc).map(move |r| stored.value(r))
    }

    /// The value of `doc` in a dense column.
    pub fn dense_value(&self, doc: DocId) -> f64 {
        self.stored.value(self.raw.values.get_val(doc))
    }

    /// The values of `docs` in a dense column, into `out` (`raw` is
    /// scratch space).
    pub fn read_dense(&self, docs: &[DocId], raw: &mut Vec<u64>, out: &mut Vec<f64>) {
        raw.resize(docs.len(), 0);
        read_rows(self.raw.values.as_ref(), docs, raw);
        out.clear();
        match self.stored {
            Stored::I64 => out.extend(raw.iter().map(|&r| Stored::I64.value(r))),
            Stored::U64 => out.extend(raw.iter().map(|&r| Stored::U64.value(r))),
            Stored::F64 => out.extend(raw.iter().map(|&r| Stored::F64.value(r))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::stored_values::tests::one_column_segment;

    /// Reads `values` of one field, stored as tantivy stores them, through
    /// each path.
    fn read(values: &[serde_json::Value]) -> (Vec<f64>, Vec<f64>, bool) {
        let searcher = one_column_segment(values);
        let segment = searcher.segment_reader(0);
        let column = F64Column::open(segment, "j.n").unwrap();
        let docs: Vec<DocId> = (0..values.len() as u32).collect();
        let (mut raw, mut block) = (Vec::new(), Vec::new());
        if column.is_dense() {
            column.read_dense(&docs, &mut raw, &mut block);
        }
        let each = docs
            .iter()
            .flat_map(|&d| column.values_for_doc(d))
            .collect();
        (block, each, column.is_dense())
    }

    #[test]
    fn every_stored_type_reads_back_its_numbers() {
        use serde_json::json;
        let ints = [json!(-5), json!(0), json!(7), json!(-9_000_000_000i64)];
        let (block, each, dense) = read(&ints);
        assert!(dense);
        assert_eq!(block, vec![-5.0, 0.0, 7.0, -9e9]);
        assert_eq!(each, block);

        let big = [json!(u64::MAX), json!(1u64 << 63)];
        let (block, _, _) = read(&big);
        assert_eq!(block, vec![u64::MAX as f64, (1u64 << 63) as f64]);

        let floats = [json!(-1.5), json!(2.25), json!(0.0)];
        let (block, each, _) = read(&floats);
        assert_eq!(block, vec![-1.5, 2.25, 0.0]);
        assert_eq!(each, block);
    }

    #[test]
    fn a_sparse_column_reads_per_document() {
        use serde_json::json;
        let values = [json!(3), json!("text"), json!(4)];
        let (block, each, dense) = read(&values);
        assert!(!dense);
        assert!(block.is_empty());
        assert_eq!(each, vec![3.0, 4.0]);
    }
}
