//! A segment's fast columns opened by name, whatever type tantivy stored
//! them as: numeric columns coerced to the type asked for, string
//! (keyword) columns, and whether a column is dense.
//!
//! A leaf of `search::sort`: plain tantivy look-ups, used by the sort
//! readers, the aggregation collectors and a script's `doc['field']`
//! (`script::doc_values`) without depending on sorting.

use tantivy::columnar::{Cardinality, Column, ColumnType, DynamicColumn, NumericalType, StrColumn};
use tantivy::SegmentReader;

/// True when `column` exists and holds exactly one value per document
/// (so its values can be read by document ids, a block at a time).
pub fn dense<T>(column: &Option<Column<T>>) -> bool
where
    T: PartialOrd + Copy + std::fmt::Debug + Send + Sync + 'static,
{
    column
        .as_ref()
        .is_some_and(|c| c.get_cardinality() == Cardinality::Full)
}

/// The segment's numeric column at `name`, whatever numeric type tantivy
/// stored it as (a float field whose values in a segment are all whole
/// numbers may be an i64 column there), coerced to `target`; `None` when
/// the segment has no numeric column there or it cannot be coerced.
pub fn numeric_column(
    segment: &SegmentReader,
    name: &str,
    target: NumericalType,
) -> Option<DynamicColumn> {
    let handles = segment.fast_fields().dynamic_column_handles(name).ok()?;
    handles
        .into_iter()
        .filter_map(|h| h.open().ok())
        .filter(DynamicColumn::is_numerical)
        .find_map(|c| c.coerce_numerical(target))
}

/// The segment's string (keyword) column at `name`, if it has one.
pub fn str_column(segment: &SegmentReader, name: &str) -> tantivy::Result<Option<StrColumn>> {
    for handle in segment.fast_fields().dynamic_column_handles(name)? {
        if handle.column_type() == ColumnType::Str {
            if let DynamicColumn::Str(column) = handle.open()? {
                return Ok(Some(column));
            }
        }
    }
    Ok(None)
}
