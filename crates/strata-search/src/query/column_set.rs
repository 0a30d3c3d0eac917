//! Exact numbers and dates (`term`, `terms`, `match` and `query_string` on
//! a numeric or date field) found in their columns.
//!
//! New indices keep no terms for numbers and dates (`store::schema`); their
//! columns answer every query, as Elasticsearch's points do. A segment's
//! column at the path has one numerical type (`i64` for longs and dates,
//! `f64` for floating fields, merged segments coerced to the wider one);
//! each wanted value is mapped to that type's `u64` order and looked up,
//! so `5` finds `5.0` in an `f64` column and `5.5` finds nothing in an
//! `i64` one. Indices whose numbers are also terms are answered the same
//! way, so a query means the same in both. A filter repeated on a large
//! segment keeps its matches there (`filter_cache`).

use std::sync::Arc;

use tantivy::columnar::{Column, ColumnType, MonotonicallyMappableToU64};
use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::filter::explain_filter;
use super::filter_cache;
use crate::mapping::document::FieldValue;

/// Up to this many values are found by one range scan each (tantivy's
/// `get_docids_for_value_range`, fast on bit-packed blocks); more by one
/// pass over the column with a lookup per value read.
const SCANS_MAX: usize = 8;

/// Filters of up to this many values are kept per segment once repeated
/// (`filter_cache`); longer lists are rarely sent twice.
const CACHED_VALUES_MAX: usize = 64;

/// Documents with one of `values` in the numeric column `column` (`f.<path>`).
#[derive(Clone, Debug)]
pub struct ColumnSetQuery {
    column: String,
    values: Arc<[FieldValue]>,
}

impl ColumnSetQuery {
    /// `values` are the field's typed values (`Long`, `Date` or `Double`).
    pub fn new(column: String, values: Vec<FieldValue>) -> ColumnSetQuery {
        ColumnSetQuery {
            column,
            values: values.into(),
        }
    }
}

impl Query for ColumnSetQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(ColumnSetWeight(self.clone())))
    }
}

struct ColumnSetWeight(ColumnSetQuery);

impl Weight for ColumnSetWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let query = &self.0;
        let found = match query.values.len() <= CACHED_VALUES_MAX {
            true => {
                let key = format!("{}|{:?}", query.column, query.values);
                filter_cache::matches(reader, &key, || query.matches(reader))?
            }
            false => query.matches(reader)?,
        };
        Ok(match found {
            Some(set) if set.len() > 0 => {
                Box::new(ConstScorer::new(BitSetDocSet::from(set), boost))
            }
            _ => Box::new(EmptyScorer),
        })
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, "ColumnSetQuery")
    }
}

impl ColumnSetQuery {
    /// The documents of `reader` holding one of the values (`None`: the
    /// segment has no such column).
    fn matches(&self, reader: &SegmentReader) -> tantivy::Result<Option<BitSet>> {
        let mut found: Option<BitSet> = None;
        for handle in reader.fast_fields().dynamic_column_handles(&self.column)? {
            let ty = handle.column_type();
            let mut keys: Vec<u64> = self.values.iter().filter_map(|v| key(ty, v)).collect();
            if keys.is_empty() {
                continue;
            }
            let Some(column) = handle.open_u64_lenient()? else {
                continue;
            };
            keys.sort_unstable();
            keys.dedup();
            keys.retain(|k| (column.min_value()..=column.max_value()).contains(k));
            let set = found.get_or_insert_with(|| BitSet::with_max_value(reader.max_doc()));
            add_matches(&column, &keys, reader.max_doc(), set);
        }
        Ok(found)
    }
}

/// Inserts into `set` the documents (below `max_doc`) with a value in
/// `keys` (sorted, each within the column's bounds).
pub(super) fn add_matches(column: &Column<u64>, keys: &[u64], max_doc: DocId, set: &mut BitSet) {
    if keys.len() <= SCANS_MAX {
        let mut docs = Vec::new();
        for &k in keys {
            docs.clear();
            column.get_docids_for_value_range(k..=k, 0..max_doc, &mut docs);
            for &d in &docs {
                set.insert(d);
            }
        }
        return;
    }
    for doc in 0..max_doc {
        if column
            .values_for_doc(doc)
            .any(|v| keys.binary_search(&v).is_ok())
        {
            set.insert(doc);
        }
    }
}

/// `value` in the `u64` order of a column of type `ty`; `None` when no
/// value of that column can equal it (a fraction in an integer column, a
/// non-numeric column).
fn key(ty: ColumnType, value: &FieldValue) -> Option<u64> {
    let (int, float) = match *value {
        FieldValue::Long(n) | FieldValue::Date(n) => (Some(n), n as f64),
        FieldValue::Double(f) => {
            let integral = f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64;
            (integral.then_some(f as i64), f)
        }
        _ => return None,
    };
    match ty {
        ColumnType::I64 => int.map(i64::to_u64),
        ColumnType::U64 => int.and_then(|n| u64::try_from(n).ok()),
        ColumnType::F64 => Some(float.to_u64()),
        _ => None,
    }
}

#[cfg(test)]
#[path = "column_set_tests.rs"]
mod model_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_map_to_the_column_type_or_to_nothing() {
        let long = FieldValue::Long(-5);
        let whole = FieldValue::Double(7.0);
        let half = FieldValue::Double(2.5);
        assert_eq!(key(ColumnType::I64, &long), Some((-5i64).to_u64()));
        assert_eq!(key(ColumnType::I64, &whole), Some(7i64.to_u64()));
        assert_eq!(key(ColumnType::I64, &half), None);
        assert_eq!(key(ColumnType::U64, &long), None);
        assert_eq!(key(ColumnType::U64, &whole), Some(7));
        assert_eq!(key(ColumnType::F64, &long), Some((-5f64).to_u64()));
        assert_eq!(key(ColumnType::F64, &half), Some(2.5f64.to_u64()));
        assert_eq!(key(ColumnType::Str, &long), None);
        assert_eq!(key(ColumnType::I64, &FieldValue::Bool(true)), None);
    }
}
