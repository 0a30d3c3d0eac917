//! How `geo_point` values live in the shard schema: a point of the field
//! at `path` is two 32-bit codes (`store::geo_codes`, Lucene's encoding),
//! `path.lat_code` and `path.lon_code`, in the typed JSON field `f` (fast,
//! hence columnar: 8 bytes a point). Segments written before the codes
//! hold two f64 columns, `path.lat` and `path.lon` (16 bytes a point), and
//! a merge of both kinds holds all four; [`PointColumns`] reads any of them.
//! The mapping knows only `path`, so the sub-paths stay out of `_mapping`;
//! `_source` keeps the original.
//!
//! Invariant: a document's points are written lat and lon in the same
//! order and in one of the two forms, so the i-th latitude of a document
//! pairs with its i-th longitude, and only checked points are written
//! (finite, in range). A degrees column whose values are all integral is
//! stored as i64 by tantivy; [`PointColumns`] reads either as f64.

use std::ops::Range;
use std::sync::Arc;

use tantivy::columnar::{Column, ColumnIndex, ColumnType, ColumnValues, NumericalType, RowId};
use tantivy::{DocId, SegmentReader};

use crate::error::Result;
use crate::mapping::geo::GeoPoint;
use crate::store::geo_codes::{Latitude, Longitude};
use crate::store::stored_values::{StoredMapping, StoredValues};
use crate::store::KEYWORDS;

/// The latitude-code sub-path of a geo_point field.
pub fn lat_code_path(path: &str) -> String {
    format!("{path}.lat_code")
}

/// The longitude-code sub-path of a geo_point field.
pub fn lon_code_path(path: &str) -> String {
    format!("{path}.lon_code")
}

/// The sub-path of the latitudes in degrees, in segments written before
/// the codes.
fn lat_path(path: &str) -> String {
    format!("{path}.lat")
}

/// The sub-path of the longitudes in degrees, in segments written before
/// the codes.
fn lon_path(path: &str) -> String {
    format!("{path}.lon")
}

/// How a document's value rows are found in the two columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// Every document has one point: its row in both columns is its id.
    Full,
    /// The columns have the same shape (as the invariant makes them: as
    /// many latitudes as longitudes per document), so the latitude
    /// column's rows serve the longitude column too.
    Shared,
    /// Anything else: each column's own rows, paired in order.
    Separate,
}

/// The points of one geo_point field in one segment: its codes' columns,
/// its degrees' columns, or (after a merge of both kinds) the two.
pub struct PointColumns {
    first: Pair,
    /// The degrees' columns when the segment also has codes.
    second: Option<Pair>,
}

impl PointColumns {
    /// Opens the columns of the field at `path`; `None` when the segment
    /// has no point for it.
    pub fn open(segment: &SegmentReader, path: &str) -> Result<Option<PointColumns>> {
        let codes = match (
            code_column::<Latitude>(segment, &lat_code_path(path))?,
            code_column::<Longitude>(segment, &lon_code_path(path))?,
        ) {
            (Some(lat), Some(lon)) => Some(Pair::new(lat, lon)),
            _ => None,
        };
        let degrees = match (
            f64_column(segment, &lat_path(path))?,
            f64_column(segment, &lon_path(path))?,
        ) {
            (Some(lat), Some(lon)) => Some(Pair::new(lat, lon)),
            _ => None,
        };
        Ok(match (codes, degrees) {
            (Some(first), second) => Some(PointColumns { first, second }),
            (None, Some(first)) => Some(PointColumns {
                first,
                second: None,
            }),
            (None, None) => None,
        })
    }

    /// The points of `doc`, in indexing order.
    #[inline]
    pub fn points(&self, doc: DocId) -> impl Iterator<Item = GeoPoint> + '_ {
        let second = self.second.as_ref().map(|pair| pair.points(doc));
        self.first.points(doc).chain(second.into_iter().flatten())
    }

    /// True when every document of the segment has exactly one point.
    pub fn one_per_doc(&self) -> bool {
        self.second.is_none() && self.first.rows == Rows::Full
    }

    /// The one point of each of `docs` into `lat` and `lon` (resized to
    /// `docs.len()`), read a block at a time; only when
    /// [`PointColumns::one_per_doc`], where a document's row is its id.
    /// Returns false (and reads nothing) otherwise.
    pub fn read_block(&self, docs: &[DocId], lat: &mut Vec<f64>, lon: &mut Vec<f64>) -> bool {
        self.one_per_doc() && self.first.read_block(docs, lat, lon)
    }

    /// True when `doc` has a point (cheaper than reading it).
    #[inline]
    pub fn has_point(&self, doc: DocId) -> bool {
        self.first.has_point(doc) || self.second.as_ref().is_some_and(|p| p.has_point(doc))
    }
}

/// The latitude and longitude columns of one form of a field's points.
struct Pair {
    lat: Column<f64>,
    lon: Column<f64>,
    rows: Rows,
}

impl Pair {
    fn new(lat: Column<f64>, lon: Column<f64>) -> Pair {
        let same_shape = lat.values.num_vals() == lon.values.num_vals()
            && match (&lat.index, &lon.index) {
                (ColumnIndex::Full, ColumnIndex::Full) => true,
                (ColumnIndex::Optional(a), ColumnIndex::Optional(b)) => {
                    a.num_docs() == b.num_docs()
                }
                (ColumnIndex::Multivalued(a), ColumnIndex::Multivalued(b)) => {
                    a.num_docs() == b.num_docs()
                }
                _ => false,
            };
        let rows = match (&lat.index, same_shape) {
            (ColumnIndex::Full, true) => Rows::Full,
            (_, true) => Rows::Shared,
            (_, false) => Rows::Separate,
        };
        Pair { lat, lon, rows }
    }

    #[inline]
    fn points(&self, doc: DocId) -> Points<'_> {
        let (lat, lon) = match self.rows {
            Rows::Full => (doc..doc + 1, doc..doc + 1),
            Rows::Shared => {
                let rows = self.lat.index.value_row_ids(doc);
                (rows.clone(), rows)
            }
            Rows::Separate => (
                self.lat.index.value_row_ids(doc),
                self.lon.index.value_row_ids(doc),
            ),
        };
        Points {
            columns: self,
            lat,
            lon,
        }
    }

    fn read_block(&self, docs: &[DocId], lat: &mut Vec<f64>, lon: &mut Vec<f64>) -> bool {
        if self.rows != Rows::Full {
            return false;
        }
        lat.resize(docs.len(), 0.0);
        lon.resize(docs.len(), 0.0);
        self.lat.values.get_vals(docs, lat);
        self.lon.values.get_vals(docs, lon);
        true
    }

    #[inline]
    fn has_point(&self, doc: DocId) -> bool {
        match self.rows {
            Rows::Full => true,
            Rows::Shared => self.lat.index.has_value(doc),
            Rows::Separate => self.lat.index.has_value(doc) && self.lon.index.has_value(doc),
        }
    }
}

/// The points of one document in one pair: latitude and longitude rows, paired.
struct Points<'a> {
    columns: &'a Pair,
    lat: Range<RowId>,
    lon: Range<RowId>,
}

impl Iterator for Points<'_> {
    type Item = GeoPoint;

    #[inline]
    fn next(&mut self) -> Option<GeoPoint> {
        let (lat, lon) = (self.lat.next()?, self.lon.next()?);
        Some(GeoPoint {
            lat: self.columns.lat.values.get_val(lat),
            lon: self.columns.lon.values.get_val(lon),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.lat.len().min(self.lon.len());
        (n, Some(n))
    }
}

/// The codes' column at `sub_path` (an i64 column, as indexing writes
/// them), read as degrees.
fn code_column<A>(segment: &SegmentReader, sub_path: &str) -> Result<Option<Column<f64>>>
where
    A: StoredMapping<f64> + Send + Sync,
{
    let name = format!("{KEYWORDS}.{sub_path}");
    for handle in segment.fast_fields().dynamic_column_handles(&name)? {
        if handle.column_type() != ColumnType::I64 {
            continue;
        }
        let stored = handle
            .open_u64_lenient()
            .map_err(|e| crate::error::SearchError::io(format!("open column {name}"), e))?;
        if let Some(stored) = stored {
            let values: Arc<dyn ColumnValues<f64>> =
                Arc::new(StoredValues::<f64, A>::new(stored.values));
            return Ok(Some(Column {
                index: stored.index,
                values,
            }));
        }
    }
    Ok(None)
}

/// The degrees' column at `sub_path`, as segments before the codes hold it.
fn f64_column(segment: &SegmentReader, sub_path: &str) -> Result<Option<Column<f64>>> {
    let name = format!("{KEYWORDS}.{sub_path}");
    let open_error = |e| crate::error::SearchError::io(format!("open column {name}"), e);
    for handle in segment.fast_fields().dynamic_column_handles(&name)? {
        if handle.column_type() == ColumnType::F64 {
            // Read through the stored u64s (see `StoredValues`); integral
            // columns (stored as i64) take tantivy's coercion below.
            if let Some(stored) = handle.open_u64_lenient().map_err(open_error)? {
                let values: Arc<dyn ColumnValues<f64>> =
                    Arc::new(StoredValues::<f64>::new(stored.values));
                return Ok(Some(Column {
                    index: stored.index,
                    values,
                }));
            }
        }
        let column = handle.open().map_err(open_error)?;
        if !column.is_numerical() {
            continue;
        }
        if let Some(col) = column
            .coerce_numerical(NumericalType::F64)
            .and_then(|c| c.into())
        {
            return Ok(Some(col));
        }
    }
    Ok(None)
}

#[cfg(test)]
#[path = "geo_columns_tests.rs"]
pub(crate) mod tests;
