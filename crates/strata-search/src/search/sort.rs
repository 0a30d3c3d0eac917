//! Sorting hits by fields: the `sort` parameter, per-document sort keys
//! read from fast fields, and their order (missing values last, as
//! Elasticsearch does by default). Numeric keys are read from whatever
//! numeric column type a segment holds, so segments compare by value.
//!
//! - `value`: [`SortValue`], one sort value (a leaf).
//! - `columns`: a segment's fast columns opened by name (a leaf).

mod columns;
mod value;

use std::cmp::Ordering;

use serde_json::Value;

pub use super::sort_field::{
    after_values, key_orders, validate_search_after, KeyOrder, Missing, NumericType, SortField,
};
pub use columns::{dense, numeric_column, str_column};
use tantivy::columnar::{DynamicColumn, NumericalType};
use tantivy::{DocId, Score, SegmentReader};
pub use value::SortValue;

use crate::mapping::{FieldType, Mappings};
use crate::store::KEYWORDS;

/// Ordering of two documents' values under the criteria's `orders`:
/// `Less` means `a` ranks before `b` (missing values where the order puts
/// them; a criterion without an order is ascending, missing last).
pub fn rank_cmp(a: &[SortValue], b: &[SortValue], orders: &[KeyOrder]) -> Ordering {
    for (i, (a, b)) in a.iter().zip(b).enumerate() {
        let order = orders.get(i).copied().unwrap_or(KeyOrder {
            descending: false,
            missing_first: false,
        });
        let missing_rank = if order.missing_first {
            Ordering::Less
        } else {
            Ordering::Greater
        };
        let ord = match (a, b) {
            (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
            (SortValue::Missing, _) => missing_rank,
            (_, SortValue::Missing) => missing_rank.reverse(),
            (a, b) if order.descending => b.cmp_present(a),
            (a, b) => a.cmp_present(b),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

/// Reads one criterion's values in one segment.
pub enum ValueReader {
    /// The document's score.
    Score,
    /// The segment-local doc id.
    Doc,
    /// `_shard_doc`: the doc id above this base (shard and segment,
    /// see `snapshot::shard_doc_base`), set by the ranking collector.
    ShardDoc(i64),
    /// An i64 column (long, date).
    Int(Option<tantivy::columnar::Column<i64>>),
    /// An f64 column.
    Float(Option<tantivy::columnar::Column<f64>>),
    /// A bool column.
    Bool(Option<tantivy::columnar::Column<bool>>),
    /// A string column.
    Str(Option<tantivy::columnar::StrColumn>),
    /// The string column of an `ip` field (canonical address text).
    Ip(Option<tantivy::columnar::StrColumn>),
    /// A runtime field, computed per document.
    Runtime(Box<super::runtime_sort::RuntimeReader>),
    /// Another reader whose missing values sort as a given value.
    WithMissing(Box<ValueReader>, SortValue),
    /// Another reader's values converted (`numeric_type`; `true`: a
    /// `date` field's).
    Converted(Box<ValueReader>, NumericType, bool),
}

impl ValueReader {
    /// Opens the reader of `field` in `segment` (`runtime`: the runtime
    /// field it names).
    pub(crate) fn open_for(
        field: &SortField,
        mappings: &Mappings,
        segment: &SegmentReader,
        runtime: Option<&super::runtime_sort::RuntimeSort>,
    ) -> ValueReader {
        let reader = ValueReader::open_with_missing(field, mappings, segment, runtime);
        match field.numeric_type {
            Some(to) => {
                let from_date = runtime.is_none()
                    && mappings.leaf(&field.field).map(|l| l.ty) == Some(FieldType::Date);
                ValueReader::Converted(Box::new(reader), to, from_date)
            }
            None => reader,
        }
    }

    /// The reader of `field`, with its `missing` value if it has one.
    fn open_with_missing(
        field: &SortField,
        mappings: &Mappings,
        segment: &SegmentReader,
        runtime: Option<&super::runtime_sort::RuntimeSort>,
    ) -> ValueReader {
        let (reader, numeric_runtime) = match runtime {
            Some(r) => (
                ValueReader::Runtime(Box::new(r.reader(segment, field.descending))),
                r.numeric(),
            ),
            None => (ValueReader::open_column(field, mappings, segment), false),
        };
        match &field.missing {
            Missing::Value(v) => {
                let numeric =
                    numeric_runtime || matches!(reader, ValueReader::Int(_) | ValueReader::Bool(_));
                let value = match (v, numeric) {
                    (Value::String(s), true) => s
                        .trim()
                        .parse::<i64>()
                        .map(SortValue::Int)
                        .unwrap_or_else(|_| SortValue::from_json(v)),
                    (Value::Bool(b), _) => SortValue::Int(i64::from(*b)),
                    (Value::String(s), false) if matches!(reader, ValueReader::Ip(_)) => {
                        SortValue::ip(s.clone())
                    }
                    _ => SortValue::from_json(v),
                };
                ValueReader::WithMissing(Box::new(reader), value)
            }
            _ => reader,
        }
    }

    fn open_column(field: &SortField, mappings: &Mappings, segment: &SegmentReader) -> ValueReader {
        if field.field == "_score" {
            return ValueReader::Score;
        }
        if field.field == "_doc" {
            return ValueReader::Doc;
        }
        if field.field == super::sort_field::SHARD_DOC {
            return ValueReader::ShardDoc(0);
        }
        let ty = mappings.leaf(&field.field).map(|l| l.ty).or_else(|| {
            field
                .unmapped_type
                .as_deref()
                .and_then(FieldType::from_name)
        });
        let name = format!("{KEYWORDS}.{}", field.field);
        let ff = segment.fast_fields();
        match ty {
            Some(t) if t.is_integer() || t == FieldType::Date => {
                match numeric_column(segment, &name, NumericalType::I64) {
                    Some(DynamicColumn::I64(c)) => ValueReader::Int(Some(c)),
                    // A column tantivy had to keep as f64 still sorts by value.
                    _ => match numeric_column(segment, &name, NumericalType::F64) {
                        Some(DynamicColumn::F64(c)) => ValueReader::Float(Some(c)),
                        _ => ValueReader::Int(None),
                    },
                }
            }
            Some(t) if t.is_float() => match numeric_column(segment, &name, NumericalType::F64) {
                Some(DynamicColumn::F64(c)) => ValueReader::Float(Some(c)),
                _ => ValueReader::Float(None),
            },
            Some(FieldType::Boolean) => {
                ValueReader::Bool(ff.column_opt::<bool>(&name).ok().flatten())
            }
            Some(FieldType::Ip) => ValueReader::Ip(ff.str(&name).ok().flatten()),
            _ => ValueReader::Str(ff.str(&name).ok().flatten()),
        }
    }

    /// The value of `doc` (the first, for multi-valued fields).
    pub fn value(&self, doc: DocId, score: Score) -> SortValue {
        match self {
            ValueReader::WithMissing(inner, fill) => match inner.value(doc, score) {
                SortValue::Missing => fill.clone(),
                v => v,
            },
            ValueReader::Converted(inner, to, from_date) => {
                to.convert(inner.value(doc, score), *from_date)
            }
            ValueReader::Score => SortValue::Float(f64::from(score)),
            ValueReader::Doc => SortValue::Int(i64::from(doc)),
            ValueReader::ShardDoc(base) => SortValue::Int(base + i64::from(doc)),
            ValueReader::Runtime(r) => r.value(doc),
            ValueReader::Int(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, SortValue::Int),
            ValueReader::Float(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, SortValue::Float),
            ValueReader::Bool(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, |b| SortValue::Int(i64::from(b))),
            ValueReader::Str(c) => {
                first_str(c.as_ref(), doc).map_or(SortValue::Missing, SortValue::Str)
            }
            ValueReader::Ip(c) => {
                first_str(c.as_ref(), doc).map_or(SortValue::Missing, SortValue::ip)
            }
        }
    }
}

/// The first string of `doc` in a string column.
fn first_str(column: Option<&tantivy::columnar::StrColumn>, doc: DocId) -> Option<String> {
    let column = column?;
    let ord = column.term_ords(doc).next()?;
    let mut s = String::new();
    matches!(column.ord_to_str(ord, &mut s), Ok(true)).then_some(s)
}

impl ValueReader {
    /// The error a runtime field's script met, taken.
    pub fn take_error(&self) -> Option<tantivy::TantivyError> {
        match self {
            ValueReader::Runtime(r) => r.take_error(),
            ValueReader::WithMissing(inner, _) | ValueReader::Converted(inner, ..) => {
                inner.take_error()
            }
            _ => None,
        }
    }

    /// Whether [`ValueReader::rank_key`] can rank this reader's values:
    /// a numeric column, a boolean column or the document id, with
    /// missing values first or last (not sorted as a given value).
    pub fn has_rank_key(&self) -> bool {
        matches!(
            self,
            ValueReader::Int(_) | ValueReader::Float(_) | ValueReader::Bool(_) | ValueReader::Doc
        )
    }

    /// A key whose natural order is this criterion's order of `doc`'s
    /// value within the segment (smaller ranks first): the value's
    /// order-preserving 64-bit encoding (bit-inverted when descending)
    /// below a tier for missing values (first or last). Only for readers
    /// with [`ValueReader::has_rank_key`]; others give the missing key.
    pub fn rank_key(&self, doc: DocId, order: KeyOrder) -> u128 {
        let encoded = match self {
            ValueReader::Doc => Some(u64::from(doc)),
            ValueReader::Int(c) => c.as_ref().and_then(|c| c.first(doc)).map(encode_i64),
            ValueReader::Float(c) => c.as_ref().and_then(|c| c.first(doc)).map(encode_f64),
            ValueReader::Bool(c) => c.as_ref().and_then(|c| c.first(doc)).map(u64::from),
            _ => None,
        };
        match encoded {
            Some(v) => present_key(v, order),
            None if order.missing_first => 0,
            None => 2u128 << 64,
        }
    }
}

/// The rank key of an integer value (as [`ValueReader::rank_key`] gives
/// for a document holding it).
pub fn int_rank_key(value: i64, order: KeyOrder) -> u128 {
    present_key(encode_i64(value), order)
}

fn present_key(encoded: u64, order: KeyOrder) -> u128 {
    if order.descending {
        (1u128 << 64) | u128::from(!encoded)
    } else {
        (1u128 << 64) | u128::from(encoded)
    }
}

/// `i64` to `u64` preserving order.
fn encode_i64(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// `f64` to `u64` preserving order (`-0.0` ranks as `0.0`, as the
/// values' comparison has it).
fn encode_f64(v: f64) -> u64 {
    let bits = if v == 0.0 { 0 } else { v.to_bits() };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

#[cfg(test)]
#[path = "sort_tests.rs"]
mod tests;
